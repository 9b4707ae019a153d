// table_compare: one workload run through several table formats in turn, so
// that CuckooHashTable is measured side by side with RocksDB's built-in
// CuckooTable, PlainTable and BlockBasedTable on the same data.
//
//   table_compare --num=1000000 --formats=ours,cuckoo,plain,block --csv=x.csv
//
// 1. Load: for each repetition and format, a fresh DB is bulk loaded (Put,
//    Flush, CompactRange into one table file in one level).
// 2. Verify: every key and value is read back through Get, MultiGet and a
//    full scan, and absent keys must be NotFound.
// 3. Read: for each repetition and format, the DB is reopened (fresh table
//    readers) and a first pass of Get on present keys, then Get on present
//    keys, Get on absent keys, MultiGet and a full scan are timed.
// Each repetition visits the formats in turn (rotating who goes first), so
// they share the machine's noise. The closing table gives the median and the
// min-max over the repetitions, and the ratio of our median to the others'.
#include <gflags/gflags.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/write_batch.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"

DEFINE_int64(num, 1000000, "Keys loaded into every format.");
DEFINE_int32(key_size, 16, "Key length in bytes, at least 8.");
DEFINE_int32(value_size, 100, "Value length in bytes.");
DEFINE_int32(reps, 3, "Repetitions of every measurement.");
DEFINE_int64(reads, 500000, "Lookups per Get and MultiGet measurement.");
DEFINE_int32(batch, 32, "Keys per MultiGet call.");
DEFINE_string(db_dir, "/tmp/table_compare",
              "Parent folder of the per-format DBs (one subfolder each).");
DEFINE_string(formats, "ours,cuckoo,plain,block",
              "Formats to run, comma-separated: ours (CuckooHashTable), "
              "cuckoo (RocksDB's CuckooTable), plain (PlainTable), "
              "block (BlockBasedTable).");
DEFINE_string(csv, "", "Write every measurement, one row per repetition.");
DEFINE_bool(identity_keys, false,
            "Keys are the integers 0..num-1 as 8 big-endian bytes (--key_size "
            "is ignored) and both cuckoo formats use identity_as_first_hash. "
            "Absent keys then lie past the largest key.");
DEFINE_string(
    ours_options, "hash_table_ratio=0.9",
    "Options of ours, inside table_factory={id=CuckooHashTable;...}.");
DEFINE_bool(ours_mmap_reads, true,
            "allow_mmap_reads for ours (the built-in cuckoo and plain tables "
            "require it, so they always have it).");
DEFINE_int32(block_cache_mb, 512,
             "Block cache of BlockBasedTable, which reads without mmap "
             "(default: holds the whole DB).");
DEFINE_uint64(seed, 42, "Seed of the random choice of read keys.");
DEFINE_bool(keep_db, false, "Keep the DBs after the run.");

namespace {

using ROCKSDB_NAMESPACE::BlockBasedTableOptions;
using ROCKSDB_NAMESPACE::CompactRangeOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::CuckooTableOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::LiveFileMetaData;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::PlainTableOptions;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

using Clock = std::chrono::steady_clock;

// Keeps the timed value reads from being optimized away.
volatile unsigned g_sink;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A benchmark whose data or setup is wrong has no numbers worth printing.
void Check(const Status& s, const std::string& what) {
  if (s.ok()) return;
  std::fprintf(stderr, "table_compare: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(1);
}

void Fail(const std::string& what) { Check(Status::Corruption(what), "FAIL"); }

// splitmix64's finalizer: a bijection on 64-bit integers, so distinct indexes
// give distinct keys, spread evenly and loaded in random key order.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Inverse of a multiplication by odd `a` modulo 2^64 (Newton's iteration).
constexpr uint64_t MulInverse(uint64_t a) {
  uint64_t x = a;
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

// Inverse of x ^= x >> shift.
uint64_t UnXorShift(uint64_t x, int shift) {
  for (int done = shift; done < 64; done += shift) x ^= x >> done;
  return x;
}

uint64_t UnMix(uint64_t x) {
  x = UnXorShift(x, 31) * MulInverse(0x94d049bb133111ebULL);
  x = UnXorShift(x, 27) * MulInverse(0xbf58476d1ce4e5b9ULL);
  return UnXorShift(x, 30);
}

void PutBigEndian(uint64_t v, char* out) {
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v);
}

uint64_t GetBigEndian(const char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}

// Keys and values as functions of an index, so nothing is stored: indexes in
// [0, num) are loaded, indexes in [num, 2 num) are the absent keys. A key
// read back from a scan gives its index back, so its value can be checked.
class Workload {
 public:
  Workload(int key_size, int value_size, bool identity)
      : key_size_(key_size), value_size_(value_size), identity_(identity) {}

  int key_size() const { return key_size_; }
  int value_size() const { return value_size_; }

  void Key(uint64_t i, char* out) const {
    PutBigEndian(identity_ ? i : Mix(i), out);
    // The tail carries no information; it only gives keys their length.
    for (int b = 8; b < key_size_; ++b) {
      out[b] = static_cast<char>(i >> (8 * (b % 8)));
    }
  }

  void Value(uint64_t i, char* out) const {
    uint64_t x = Mix(~i);
    for (int b = 0; b < value_size_; ++b) {
      if (b % 8 == 0) x = Mix(x + 1);
      out[b] = static_cast<char>(x >> (8 * (b % 8)));
    }
  }

  // The index whose key is `key`, or false if no index has this key.
  bool Index(const Slice& key, uint64_t* index) const {
    if (key.size() != static_cast<size_t>(key_size_)) return false;
    const uint64_t head = GetBigEndian(key.data());
    *index = identity_ ? head : UnMix(head);
    std::string expected(key_size_, '\0');
    Key(*index, expected.data());
    return key == Slice(expected);
  }

 private:
  const int key_size_;
  const int value_size_;
  const bool identity_;
};

// A table format under test: `name` is its --formats word and CSV value,
// `label` heads its column in the printed table.
struct Format {
  std::string name;
  std::string label;
};

const std::vector<Format>& KnownFormats() {
  static const std::vector<Format> formats = {
      {"ours", "CuckooHashTable"},
      {"cuckoo", "RocksDB Cuckoo"},
      {"plain", "PlainTable"},
      {"block", "BlockBased"},
  };
  return formats;
}

Options BaseOptions() {
  Options options;
  options.create_if_missing = true;
  // Sizes compare layouts, not codecs (the hash formats never compress).
  options.compression = ROCKSDB_NAMESPACE::kNoCompression;
  // The L0 files of the load are merged once, by CompactRange.
  options.disable_auto_compactions = true;
  // ... and a large --num must not stall writes on the L0 file count.
  options.level0_slowdown_writes_trigger = 1 << 30;
  options.level0_stop_writes_trigger = 1 << 30;
  // One table file per format: every lookup measures exactly one reader.
  options.target_file_size_base = uint64_t{1} << 40;
  options.max_compaction_bytes = uint64_t{1} << 42;
  // Table readers open with the DB, so the open time includes them.
  options.max_open_files = -1;
  // The built-in cuckoo and plain tables read only through mmap.
  options.allow_mmap_reads = true;
  return options;
}

Options MakeOptions(const std::string& format, const Workload& workload) {
  Options options = BaseOptions();
  if (format == "ours") {
    options.allow_mmap_reads = FLAGS_ours_mmap_reads;
    // Through the options string, as users configure it.
    std::string spec = "table_factory={id=";
    spec += rocksdb_cuckoo::kCuckooHashTableName;
    spec += ";";
    if (FLAGS_identity_keys) spec += "identity_as_first_hash=true;";
    spec += FLAGS_ours_options + "}";
    ConfigOptions config;
    config.ignore_unknown_options = false;
    config.ignore_unsupported_options = false;
    Options parsed;
    Check(
        ROCKSDB_NAMESPACE::GetOptionsFromString(config, options, spec, &parsed),
        spec);
    // An unregistered id may still parse to a null factory.
    if (parsed.table_factory == nullptr ||
        !parsed.table_factory->IsInstanceOf(
            rocksdb_cuckoo::kCuckooHashTableName)) {
      Fail(spec + " did not give a CuckooHashTable factory");
    }
    return parsed;
  }
  if (format == "cuckoo") {
    CuckooTableOptions table;
    table.identity_as_first_hash = FLAGS_identity_keys;
    options.table_factory.reset(
        ROCKSDB_NAMESPACE::NewCuckooTableFactory(table));
  } else if (format == "plain") {
    PlainTableOptions table;
    table.user_key_len = workload.key_size();
    // Without a prefix extractor PlainTable binary-searches; the first 8
    // bytes are unique per key here, so its hash index and bloom are per key.
    options.prefix_extractor.reset(
        ROCKSDB_NAMESPACE::NewFixedPrefixTransform(8));
    options.table_factory.reset(ROCKSDB_NAMESPACE::NewPlainTableFactory(table));
  } else if (format == "block") {
    // Its usual set-up: through mmap it would not cache blocks (it caches
    // only blocks it owns) and would re-verify one on every read.
    options.allow_mmap_reads = false;
    BlockBasedTableOptions table;
    table.filter_policy.reset(ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10));
    table.block_cache = ROCKSDB_NAMESPACE::NewLRUCache(
        static_cast<size_t>(FLAGS_block_cache_mb) << 20);
    options.table_factory.reset(
        ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  } else {
    Fail("unknown format '" + format + "'");
  }
  return options;
}

std::unique_ptr<DB> OpenOrDie(const Options& options, const std::string& dir) {
  DB* db = nullptr;
  Check(rocksdb_cuckoo::OpenDB(options, dir, &db), "open " + dir);
  return std::unique_ptr<DB>(db);
}

// ---- measurements ----------------------------------------------------------

// Every measurement: an id (CSV) and a title and unit (table).
struct Metric {
  const char* id;
  const char* title;
  const char* unit;
};

constexpr Metric kMetrics[] = {
    {"load_s", "load: put+flush+compact", "s"},
    {"build_s", "  of which final flush+compact", "s"},
    {"size_mb", "SST file size", "MB"},
    {"open_ms", "DB open (all readers)", "ms"},
    {"get_first", "Get, present keys, first pass", "Mops/s"},
    {"get_present", "Get, present keys", "Mops/s"},
    {"get_absent", "Get, absent keys", "Mops/s"},
    {"multiget", "MultiGet, present keys", "Mkeys/s"},
    {"scan", "full scan (iterator)", "Mkeys/s"},
};

// samples[format][metric id] = one value per repetition.
using Samples =
    std::map<std::string, std::map<std::string, std::vector<double>>>;

// Bulk load into a fresh DB; returns when the data sits in one level.
void Load(const Options& options, const std::string& dir,
          const Workload& workload, Samples::mapped_type* out) {
  Check(ROCKSDB_NAMESPACE::DestroyDB(dir, options), "destroy " + dir);
  // A bulk-load memtable: an unsorted vector, sorted once at flush, takes
  // random-order Puts several times faster than the skip list. Reads later
  // reopen with the default memtable.
  Options load_options = options;
  load_options.memtable_factory =
      std::make_shared<ROCKSDB_NAMESPACE::VectorRepFactory>();
  load_options.allow_concurrent_memtable_write = false;
  const Clock::time_point start = Clock::now();
  std::unique_ptr<DB> db = OpenOrDie(load_options, dir);
  // A bulk load: the flush below makes the data durable, not a WAL.
  WriteOptions write_options;
  write_options.disableWAL = true;
  WriteBatch batch;
  std::string key(workload.key_size(), '\0');
  std::string value(workload.value_size(), '\0');
  for (int64_t i = 0; i < FLAGS_num; ++i) {
    workload.Key(i, key.data());
    workload.Value(i, value.data());
    Check(batch.Put(key, value), "batch put");
    if (batch.Count() == 1000 || i + 1 == FLAGS_num) {
      Check(db->Write(write_options, &batch), "write");
      batch.Clear();
    }
  }
  const Clock::time_point build_start = Clock::now();
  Check(db->Flush(FlushOptions()), "flush");
  Check(db->CompactRange(CompactRangeOptions(), nullptr, nullptr), "compact");
  (*out)["build_s"].push_back(SecondsSince(build_start));
  (*out)["load_s"].push_back(SecondsSince(start));

  std::vector<LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  uint64_t bytes = 0;
  for (const LiveFileMetaData& f : files) {
    bytes += f.size;
    if (f.level != files.front().level) Fail(dir + ": data in two levels");
  }
  (*out)["size_mb"].push_back(bytes / 1e6);
  Check(db->Close(), "close");
}

// Reads every key through Get and MultiGet, every absent key through Get, and
// the whole DB through an iterator, comparing every byte.
void Verify(DB* db, const Workload& workload) {
  std::string key(workload.key_size(), '\0');
  std::string expected(workload.value_size(), '\0');
  const ReadOptions read_options;
  PinnableSlice value;
  for (int64_t i = 0; i < 2 * FLAGS_num; ++i) {
    workload.Key(i, key.data());
    const Status s =
        db->Get(read_options, db->DefaultColumnFamily(), key, &value);
    if (i >= FLAGS_num) {
      if (!s.IsNotFound()) {
        Fail("absent key " + std::to_string(i) + ": " + s.ToString());
      }
      continue;
    }
    workload.Value(i, expected.data());
    if (!s.ok() || value != Slice(expected)) {
      Fail("Get key " + std::to_string(i) + ": " + s.ToString());
    }
    value.Reset();
  }

  const int64_t batch = FLAGS_batch;
  std::string keys(batch * workload.key_size(), '\0');
  std::vector<Slice> key_slices(batch);
  std::vector<PinnableSlice> values(batch);
  std::vector<Status> statuses(batch);
  for (int64_t first = 0; first < FLAGS_num; first += batch) {
    const int64_t n = std::min(batch, FLAGS_num - first);
    for (int64_t j = 0; j < n; ++j) {
      char* k = keys.data() + j * workload.key_size();
      workload.Key(first + j, k);
      key_slices[j] = Slice(k, workload.key_size());
    }
    db->MultiGet(read_options, db->DefaultColumnFamily(), n, key_slices.data(),
                 values.data(), statuses.data());
    for (int64_t j = 0; j < n; ++j) {
      workload.Value(first + j, expected.data());
      if (!statuses[j].ok() || values[j] != Slice(expected)) {
        Fail("MultiGet key " + std::to_string(first + j) + ": " +
             statuses[j].ToString());
      }
      values[j].Reset();
    }
  }

  std::unique_ptr<Iterator> it(db->NewIterator(read_options));
  int64_t count = 0;
  std::string previous;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++count) {
    uint64_t i = 0;
    if (!workload.Index(it->key(), &i) ||
        i >= static_cast<uint64_t>(FLAGS_num)) {
      Fail("scan: unexpected key at position " + std::to_string(count));
    }
    if (count > 0 && it->key().compare(previous) <= 0) {
      Fail("scan: key out of order at position " + std::to_string(count));
    }
    workload.Value(i, expected.data());
    if (it->value() != Slice(expected)) {
      Fail("scan: value of key " + std::to_string(i));
    }
    previous.assign(it->key().data(), it->key().size());
  }
  Check(it->status(), "scan");
  if (count != FLAGS_num) {
    Fail("scan saw " + std::to_string(count) + " keys, not " +
         std::to_string(FLAGS_num));
  }
}

// `reads` keys drawn at random from [first, first + num), back to back.
std::string RandomKeys(const Workload& workload, uint64_t first,
                       std::mt19937_64* rng) {
  std::uniform_int_distribution<uint64_t> pick(0, FLAGS_num - 1);
  std::string keys(FLAGS_reads * workload.key_size(), '\0');
  for (int64_t r = 0; r < FLAGS_reads; ++r) {
    workload.Key(first + pick(*rng), keys.data() + r * workload.key_size());
  }
  return keys;
}

// Get of every key in `keys`; returns operations per second.
double TimeGets(DB* db, const std::string& keys, int key_size, bool present) {
  const ReadOptions read_options;
  PinnableSlice value;
  int64_t found = 0;
  const Clock::time_point start = Clock::now();
  for (size_t off = 0; off < keys.size(); off += key_size) {
    const Status s = db->Get(read_options, db->DefaultColumnFamily(),
                             Slice(keys.data() + off, key_size), &value);
    if (s.ok()) {
      ++found;
      value.Reset();
    } else if (!s.IsNotFound()) {
      Check(s, "Get");
    }
  }
  const double seconds = SecondsSince(start);
  if (found != (present ? FLAGS_reads : 0)) {
    Fail("timed Get found " + std::to_string(found) + " of " +
         std::to_string(FLAGS_reads) + (present ? " present" : " absent") +
         " keys");
  }
  return FLAGS_reads / seconds;
}

// MultiGet of `keys` in batches of --batch; returns keys per second.
double TimeMultiGets(DB* db, const std::string& keys, int key_size) {
  const ReadOptions read_options;
  const size_t batch = FLAGS_batch;
  std::vector<Slice> key_slices(batch);
  std::vector<PinnableSlice> values(batch);
  std::vector<Status> statuses(batch);
  const size_t total = keys.size() / key_size;
  int64_t found = 0;
  const Clock::time_point start = Clock::now();
  for (size_t first = 0; first < total; first += batch) {
    const size_t n = std::min(batch, total - first);
    for (size_t j = 0; j < n; ++j) {
      key_slices[j] = Slice(keys.data() + (first + j) * key_size, key_size);
    }
    db->MultiGet(read_options, db->DefaultColumnFamily(), n, key_slices.data(),
                 values.data(), statuses.data());
    for (size_t j = 0; j < n; ++j) {
      found += statuses[j].ok();
      values[j].Reset();
    }
  }
  const double seconds = SecondsSince(start);
  if (found != FLAGS_reads) Fail("timed MultiGet missed present keys");
  return total / seconds;
}

// One pass of an iterator over the whole DB, reading a byte of every value;
// returns keys per second.
double TimeScan(DB* db) {
  const Clock::time_point start = Clock::now();
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  int64_t count = 0;
  unsigned checksum = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++count) {
    checksum += static_cast<unsigned char>(it->value().data()[0]);
  }
  Check(it->status(), "scan");
  const double seconds = SecondsSince(start);
  if (count != FLAGS_num) Fail("timed scan missed keys");
  g_sink = checksum;
  return count / seconds;
}

// ---- report ---------------------------------------------------------------

struct Stats {
  double median;
  double min;
  double max;
};

Stats Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {median, v.front(), v.back()};
}

// Three significant digits or so, without exponents.
std::string Number(double v) {
  char buf[32];
  const double a = v < 0 ? -v : v;
  std::snprintf(buf, sizeof(buf),
                a >= 100  ? "%.0f"
                : a >= 10 ? "%.1f"
                          : "%.2f",
                v);
  return buf;
}

std::string Cell(const std::vector<double>& samples) {
  if (samples.empty()) return "-";
  const Stats s = Summarize(samples);
  std::string cell = Number(s.median);
  const std::string lo = Number(s.min), hi = Number(s.max);
  if (lo != hi) cell += " [" + lo + "-" + hi + "]";
  return cell;
}

void PrintTable(const std::vector<Format>& formats, const Samples& samples) {
  // Ratios of ours to each built-in format that ran.
  const bool have_ours = samples.count("ours") > 0;
  std::vector<const Format*> others;
  for (const Format& f : formats) {
    if (have_ours && f.name != "ours" && f.name != "block") {
      others.push_back(&f);
    }
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"metric"};
  for (const Format& f : formats) header.push_back(f.label);
  for (const Format* f : others) header.push_back("ours/" + f->name);
  rows.push_back(header);
  for (const Metric& m : kMetrics) {
    std::vector<std::string> row = {std::string(m.title) + " (" + m.unit + ")"};
    for (const Format& f : formats) {
      const auto& per_metric = samples.at(f.name);
      auto it = per_metric.find(m.id);
      row.push_back(it == per_metric.end() ? "-" : Cell(it->second));
    }
    for (const Format* f : others) {
      const double ours = Summarize(samples.at("ours").at(m.id)).median;
      const double theirs = Summarize(samples.at(f->name).at(m.id)).median;
      row.push_back(theirs > 0 ? Number(ours / theirs) + "x" : "-");
    }
    rows.push_back(row);
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < rows[r].size(); ++c) {
      const std::string& text = rows[r][c];
      const std::string pad(width[c] - text.size(), ' ');
      // Label column left-aligned, numbers right-aligned.
      line += c == 0 ? text + pad : "  " + pad + text;
    }
    std::printf("%s\n", line.c_str());
    if (r == 0) std::printf("%s\n", std::string(line.size(), '-').c_str());
  }
  std::printf(
      "median [min-max] of %d repetitions; ours/x = ratio of medians "
      "(times and sizes: lower is better; rates: higher is better)\n",
      FLAGS_reps);
}

void WriteCsv(const std::string& path, const std::vector<Format>& formats,
              const Samples& samples) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) Fail("cannot write " + path);
  std::fprintf(f,
               "format,metric,unit,rep,value,num,key_size,value_size,"
               "identity_keys\n");
  for (const Format& format : formats) {
    for (const Metric& m : kMetrics) {
      const auto& per_metric = samples.at(format.name);
      auto it = per_metric.find(m.id);
      if (it == per_metric.end()) continue;
      for (size_t rep = 0; rep < it->second.size(); ++rep) {
        std::fprintf(f, "%s,%s,%s,%zu,%.6g,%" PRId64 ",%d,%d,%d\n",
                     format.name.c_str(), m.id, m.unit, rep + 1,
                     it->second[rep], FLAGS_num, FLAGS_key_size,
                     FLAGS_value_size, FLAGS_identity_keys ? 1 : 0);
      }
    }
  }
  if (std::fclose(f) != 0) Fail("cannot write " + path);
}

std::vector<Format> ParseFormats(const std::string& list) {
  std::vector<Format> formats;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    auto it = std::find_if(KnownFormats().begin(), KnownFormats().end(),
                           [&](const Format& f) { return f.name == name; });
    if (it == KnownFormats().end()) Fail("unknown format '" + name + "'");
    formats.push_back(*it);
  }
  if (formats.empty()) Fail("--formats is empty");
  return formats;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Side-by-side benchmark of CuckooHashTable and RocksDB's table formats");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_identity_keys) FLAGS_key_size = 8;
  if (FLAGS_num < 1 || FLAGS_reads < 1 || FLAGS_reps < 1 || FLAGS_batch < 1 ||
      FLAGS_key_size < 8 || FLAGS_value_size < 1) {
    Fail(
        "need --num, --reads, --reps, --batch >= 1, --key_size >= 8, "
        "--value_size >= 1");
  }
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");

  const std::vector<Format> formats = ParseFormats(FLAGS_formats);
  const Workload workload(FLAGS_key_size, FLAGS_value_size,
                          FLAGS_identity_keys);
  std::map<std::string, Options> options;
  std::map<std::string, std::string> dirs;
  for (const Format& f : formats) {
    options[f.name] = MakeOptions(f.name, workload);
    dirs[f.name] = FLAGS_db_dir + "/" + f.name;
  }
  std::filesystem::create_directories(FLAGS_db_dir);
  std::printf(
      "table_compare: num=%" PRId64 " key_size=%d value_size=%d reads=%" PRId64
      " batch=%d reps=%d identity_keys=%d formats=%s\n",
      FLAGS_num, FLAGS_key_size, FLAGS_value_size, FLAGS_reads, FLAGS_batch,
      FLAGS_reps, FLAGS_identity_keys ? 1 : 0, FLAGS_formats.c_str());
  std::fflush(stdout);

  Samples samples;
  const Clock::time_point run_start = Clock::now();
  const size_t n = formats.size();
  for (int rep = 0; rep < FLAGS_reps; ++rep) {
    for (size_t k = 0; k < n; ++k) {
      const Format& f = formats[(rep + k) % n];
      auto& out = samples[f.name];
      Load(options[f.name], dirs[f.name], workload, &out);
      std::printf(
          "  load   %d/%d  %-16s %6.2f s (flush+compact %.2f s)  %.1f MB\n",
          rep + 1, FLAGS_reps, f.label.c_str(), out["load_s"].back(),
          out["build_s"].back(), out["size_mb"].back());
      std::fflush(stdout);
    }
  }

  for (const Format& f : formats) {
    const Clock::time_point start = Clock::now();
    std::unique_ptr<DB> db = OpenOrDie(options[f.name], dirs[f.name]);
    Verify(db.get(), workload);
    Check(db->Close(), "close");
    std::printf("  verify      %-16s OK: %" PRId64
                " values by Get, MultiGet and scan, %" PRId64
                " absent keys (%.1f s)\n",
                f.label.c_str(), FLAGS_num, FLAGS_num, SecondsSince(start));
    std::fflush(stdout);
  }

  std::mt19937_64 rng(FLAGS_seed);
  const std::string present = RandomKeys(workload, 0, &rng);
  const std::string absent = RandomKeys(workload, FLAGS_num, &rng);
  const int ks = workload.key_size();
  for (int rep = 0; rep < FLAGS_reps; ++rep) {
    for (size_t k = 0; k < n; ++k) {
      const Format& f = formats[(rep + k) % n];
      auto& out = samples[f.name];
      const Clock::time_point open_start = Clock::now();
      std::unique_ptr<DB> db = OpenOrDie(options[f.name], dirs[f.name]);
      out["open_ms"].push_back(SecondsSince(open_start) * 1e3);
      // The first pass after open also faults in mapped pages or, for ours
      // loaded, reads each chunk from the file; the passes after it see
      // the tables as they stay.
      out["get_first"].push_back(TimeGets(db.get(), present, ks, true) / 1e6);
      out["get_present"].push_back(TimeGets(db.get(), present, ks, true) / 1e6);
      out["get_absent"].push_back(TimeGets(db.get(), absent, ks, false) / 1e6);
      out["multiget"].push_back(TimeMultiGets(db.get(), present, ks) / 1e6);
      out["scan"].push_back(TimeScan(db.get()) / 1e6);
      Check(db->Close(), "close");
      std::printf(
          "  read   %d/%d  %-16s open %.1f ms, Get first %.2f / %.2f / "
          "absent %.2f Mops/s, MultiGet %.2f, scan %.2f Mkeys/s\n",
          rep + 1, FLAGS_reps, f.label.c_str(), out["open_ms"].back(),
          out["get_first"].back(), out["get_present"].back(),
          out["get_absent"].back(), out["multiget"].back(), out["scan"].back());
      std::fflush(stdout);
    }
  }

  std::printf("\n");
  PrintTable(formats, samples);
  if (!FLAGS_csv.empty()) {
    WriteCsv(FLAGS_csv, formats, samples);
    std::printf("csv: %s\n", FLAGS_csv.c_str());
  }
  if (!FLAGS_keep_db) {
    for (const Format& f : formats) {
      Check(ROCKSDB_NAMESPACE::DestroyDB(dirs[f.name], options[f.name]),
            "destroy " + dirs[f.name]);
      std::filesystem::remove_all(dirs[f.name]);
    }
  }
  std::printf("table_compare: %.1f s\n", SecondsSince(run_start));
  return 0;
}
