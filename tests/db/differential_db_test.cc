// Differential test through a real DB: one seeded operation sequence goes to a
// reference DB (BlockBasedTable) and to a DB whose table format is
// CuckooHashTable, configured only through an options string. After every
// phase all reads (Get, both MultiGets, every live snapshot, full scans in both
// directions, random Seek/SeekForPrev walks) must agree exactly.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "plugin/example/spool_compaction_service.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb/write_batch.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"

namespace {

using rocksdb_cuckoo::testing::CommaAppendOperator;
using rocksdb_cuckoo::testing::Printable;

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::CompactRangeOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::EnvOptions;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::IngestExternalFileOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::LiveFileMetaData;
using ROCKSDB_NAMESPACE::MergeOperator;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Snapshot;
using ROCKSDB_NAMESPACE::SstFileWriter;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

// The table format under test, as users name it in options strings.
constexpr const char* kDutTableName = "CuckooHashTable";

std::string DutTableFragment(bool identity_as_first_hash) {
  return std::string("table_factory={id=") + kDutTableName +
         ";hash_table_ratio=0.9;max_search_depth=64;identity_as_first_hash=" +
         (identity_as_first_hash ? "true" : "false") + "}";
}

// A DB-under-test file ending in BlockBasedTable's magic means the options
// silently fell back to the default format.
using rocksdb_cuckoo::testing::kBlockBasedTableMagic;

#ifdef CUCKOO_SANITIZED
constexpr int kWorkScale = 2;  // sanitizers are ~5-10x slower
#else
constexpr int kWorkScale = 1;
#endif

// Options shared by both DBs: tiny memtables and files so that flushes,
// L0 compactions and multi-level compactions happen within a few hundred ops.
constexpr const char* kCommonOptions =
    "create_if_missing=true;merge_operator=CommaAppendOperator;"
    "write_buffer_size=65536;max_write_buffer_number=3;"
    "level0_file_num_compaction_trigger=2;target_file_size_base=65536;"
    "max_bytes_for_level_base=262144;max_bytes_for_level_multiplier=4;"
    "num_levels=4;max_background_jobs=2";

// Joins merge operands with ','. Registered by name so that the options

void RegisterFactoriesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    ObjectLibrary& library = *ObjectLibrary::Default();
    register_rocksdb_cuckoo(library, "");
    library.AddFactory<MergeOperator>(
        CommaAppendOperator::kClassName(),
        [](const std::string& /*uri*/, std::unique_ptr<MergeOperator>* guard,
           std::string* /*errmsg*/) {
          guard->reset(new CommaAppendOperator());
          return guard->get();
        });
  });
}

// Unknown or unregistered names must fail loudly.
ConfigOptions StrictConfig() {
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return config;
}

// Everything about the DB under test besides its table format. A new
// component (a memtable, an Env) becomes one more row in kDutVariants.
struct DutVariant {
  const char* name;
  const char* options;  // appended to the DB-under-test options string
  const char* env_uri;  // loaded with Env::CreateFromUri when non-empty
  // Every compaction runs in a cuckoo_compaction_worker process.
  bool remote_compaction = false;
};

const DutVariant kDutVariants[] = {
    {"default", "", ""},
    {"striped_hash", "memtable_factory=striped_hash", ""},
    // RocksDB's work on one key (counting merge operands on every Merge)
    // under a prefix extractor, with the memtable's prefix bloom filter.
    {"striped_hash_prefix_merges",
     "memtable_factory=striped_hash;prefix_extractor=capped:3;"
     "memtable_prefix_bloom_size_ratio=0.1;max_successive_merges=2",
     ""},
    // Background work on AsyncExecutorEnv; smaller memtables and files than
    // kCommonOptions' make flushes and compactions more frequent still.
    {"async_executor_env",
     "write_buffer_size=16384;target_file_size_base=16384;"
     "max_background_jobs=4",
     "AsyncExecutorEnv"},
    // Our table, memtable and Env with every compaction written by a worker
    // process (SpoolCompactionService). The worker cannot create this test's
    // merge operator and is given RocksDB's equivalent by flag.
    {"remote_compaction",
     "memtable_factory=striped_hash;write_buffer_size=16384;"
     "target_file_size_base=16384",
     "AsyncExecutorEnv", /*remote_compaction=*/true},
};

class Random {
 public:
  explicit Random(uint64_t seed) : gen_(seed) {}
  uint64_t Uniform(uint64_t n) {
    return std::uniform_int_distribution<uint64_t>(0, n - 1)(gen_);
  }
  bool OneIn(uint64_t n) { return Uniform(n) == 0; }
  std::string Bytes(size_t len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(Uniform(256));
    return s;
  }
  std::string Printable(size_t len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>('a' + Uniform(26));
    return s;
  }

 private:
  std::mt19937_64 gen_;
};

// Keys of 1..40 bytes (binary included), a quarter exactly 8 bytes of
// big-endian integers so identity_as_first_hash sees its intended input.
std::vector<std::string> MakeKeySpace(Random* rnd, size_t n) {
  std::set<std::string> keys;
  while (keys.size() < n) {
    std::string key;
    switch (rnd->Uniform(4)) {
      case 0: {
        const uint64_t v = rnd->Uniform(4 * n);
        for (int shift = 56; shift >= 0; shift -= 8) {
          key.push_back(static_cast<char>((v >> shift) & 0xff));
        }
        break;
      }
      case 1:
        key = rnd->Bytes(1 + rnd->Uniform(40));
        break;
      default:
        // Shared prefixes make neighbouring keys differ late.
        key = "k" + rnd->Printable(rnd->Uniform(3)) +
              rnd->Printable(rnd->Uniform(37));
        break;
    }
    keys.insert(key);
  }
  return {keys.begin(), keys.end()};
}

std::string MakeValue(Random* rnd) {
  const uint64_t r = rnd->Uniform(100);
  size_t len;
  if (r < 15) {
    len = 0;
  } else if (r < 65) {
    len = 1 + rnd->Uniform(64);
  } else if (r < 93) {
    len = 64 + rnd->Uniform(1000);
  } else {
    len = 2000 + rnd->Uniform(6000);  // several KB
  }
  // Mostly printable so failures read well; some binary for coverage.
  return rnd->OneIn(5) ? rnd->Bytes(len) : rnd->Printable(len);
}

enum class OpKind { kPut, kMerge, kDelete, kSingleDelete };

struct WriteOp {
  OpKind kind;
  size_t key_index;
  std::string value;
};

// SingleDelete's contract (one Put since the last deletion, never mixed with
// Delete or Merge) holds by construction: every fifth key only ever sees
// Put-when-absent and SingleDelete-when-present; the others never see a
// SingleDelete. Mixing them makes results depend on compaction timing.
bool IsSingleDeleteKey(size_t key_index) { return key_index % 5 == 4; }

struct KeyHistory {
  bool present = false;  // tracked for single-delete keys only
  std::string log;       // every write to the key, printed when a check fails
};

// Picks the next write on one of `owned` key indexes; hot keys get most of
// the traffic so that overwrites, merges chains and deletes pile up.
WriteOp ChooseWrite(Random* rnd, const std::vector<size_t>& owned,
                    std::vector<KeyHistory>* history,
                    std::atomic<uint64_t>* op_counter) {
  const size_t hot = std::max<size_t>(1, owned.size() / 8);
  const size_t pos =
      rnd->OneIn(2) ? rnd->Uniform(hot) : rnd->Uniform(owned.size());
  WriteOp op{OpKind::kPut, owned[pos], ""};
  KeyHistory& h = (*history)[op.key_index];
  if (IsSingleDeleteKey(op.key_index)) {
    op.kind = h.present ? OpKind::kSingleDelete : OpKind::kPut;
    h.present = !h.present;
  } else {
    const uint64_t r = rnd->Uniform(100);
    op.kind =
        r < 55 ? OpKind::kPut : (r < 78 ? OpKind::kMerge : OpKind::kDelete);
  }
  const std::string seq = " #" + std::to_string(op_counter->fetch_add(1));
  switch (op.kind) {
    case OpKind::kPut:
      op.value = MakeValue(rnd);
      h.log += seq + ":Put(" + std::to_string(op.value.size()) + "B)";
      break;
    case OpKind::kMerge:
      op.value = rnd->Printable(rnd->Uniform(12));
      h.log += seq + ":Merge(" + op.value + ")";
      break;
    case OpKind::kDelete:
      h.log += seq + ":Delete";
      break;
    case OpKind::kSingleDelete:
      h.log += seq + ":SingleDelete";
      break;
  }
  return op;
}

Status AddToBatch(const WriteOp& op, const std::string& key, WriteBatch* b) {
  switch (op.kind) {
    case OpKind::kPut:
      return b->Put(key, op.value);
    case OpKind::kMerge:
      return b->Merge(key, op.value);
    case OpKind::kDelete:
      return b->Delete(key);
    case OpKind::kSingleDelete:
      return b->SingleDelete(key);
  }
  return Status::InvalidArgument("unknown op");
}

Status ApplyDirect(DB* db, const WriteOp& op, const std::string& key) {
  const WriteOptions wo;
  switch (op.kind) {
    case OpKind::kPut:
      return db->Put(wo, key, op.value);
    case OpKind::kMerge:
      return db->Merge(wo, key, op.value);
    case OpKind::kDelete:
      return db->Delete(wo, key);
    case OpKind::kSingleDelete:
      return db->SingleDelete(wo, key);
  }
  return Status::InvalidArgument("unknown op");
}

using KVs = std::vector<std::pair<std::string, std::string>>;

struct SnapshotPair {
  const Snapshot* ref;
  const Snapshot* dut;
  std::string name;  // "snapshot@#<op count when taken>"
};

std::string UniqueTempDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  std::string base = ::testing::TempDir();
  if (base.empty() || base.back() != '/') base.push_back('/');
  std::string name = tag;
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return base + "cuckoo_diff_" + std::to_string(getpid()) + "_" +
         std::to_string(counter.fetch_add(1)) + "_" + name;
}

// ---------------------------------------------------------------------------
// The harness: a reference DB and a DB under test that receive the same ops.
class DifferentialHarness {
 public:
  DifferentialHarness(const DutVariant& variant, bool mmap, bool identity,
                      uint64_t seed, const std::string& extra_common)
      : variant_(variant),
        mmap_(mmap),
        identity_(identity),
        rnd_(seed),
        extra_common_(extra_common) {}

  ~DifferentialHarness() {
    ReleaseAllSnapshots();
    CloseBoth();
    if (!root_.empty()) {
      ROCKSDB_NAMESPACE::DestroyDB(ref_path_, ref_options_);
      ROCKSDB_NAMESPACE::DestroyDB(dut_path_, dut_options_);
      std::error_code ec;
      std::filesystem::remove_all(root_, ec);
    }
  }

  // Builds both option sets (the DUT's only from a string) and opens the DBs.
  void SetUp(const std::string& tag) {
    RegisterFactoriesOnce();
    root_ = UniqueTempDir(tag);
    ASSERT_TRUE(std::filesystem::create_directories(root_));
    ref_path_ = root_ + "/ref";
    dut_path_ = root_ + "/dut";

    ConfigOptions config = StrictConfig();
    std::string common = kCommonOptions + extra_common_;
    ASSERT_TRUE(
        GetOptionsFromString(config, Options(), common, &ref_options_).ok());

    if (variant_.env_uri[0] != '\0') {
      Env* env = nullptr;
      Status s =
          Env::CreateFromUri(config, variant_.env_uri, "", &env, &env_guard_);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_NE(env, nullptr);
      env_ = env;
      config.env = env;
    }
    dut_options_string_ = common + ";" + DutTableFragment(identity_) +
                          ";allow_mmap_reads=" + (mmap_ ? "true" : "false");
    if (variant_.options[0] != '\0') {
      dut_options_string_ += std::string(";") + variant_.options;
    }
    Status s = GetOptionsFromString(config, Options(), dut_options_string_,
                                    &dut_options_);
    ASSERT_TRUE(s.ok()) << s.ToString() << " for " << dut_options_string_;
    ASSERT_NE(dut_options_.table_factory, nullptr);
    ASSERT_STREQ(dut_options_.table_factory->Name(), kDutTableName);
    ASSERT_NE(dut_options_.merge_operator, nullptr);
    ASSERT_STREQ(dut_options_.merge_operator->Name(),
                 CommaAppendOperator::kClassName());
    if (env_ != nullptr) dut_options_.env = env_;
    if (variant_.remote_compaction) {
      rocksdb_cuckoo::SpoolCompactionServiceOptions service_options;
      service_options.worker_path = CUCKOO_COMPACTION_WORKER;
      service_options.worker_flags = {"--merge_operator=id=stringappend"};
      service_options.spool_dir = root_ + "/spool";
      compaction_service_ =
          std::make_shared<rocksdb_cuckoo::SpoolCompactionService>(
              service_options);
      dut_options_.compaction_service = compaction_service_;
    }

    keys_ = MakeKeySpace(&rnd_, 240 + rnd_.Uniform(120));
    // Lookups of absent keys: the empty key, random ones, near-misses.
    probes_.push_back("");
    while (probes_.size() < 40) {
      std::string p = rnd_.OneIn(2) ? keys_[rnd_.Uniform(keys_.size())] + "\x01"
                                    : rnd_.Bytes(1 + rnd_.Uniform(40));
      if (!std::binary_search(keys_.begin(), keys_.end(), p)) {
        probes_.push_back(p);
      }
    }
    history_.assign(keys_.size(), KeyHistory());
    OpenBoth(/*from_options_file=*/false);
  }

  void OpenBoth(bool from_options_file) {
    DB* raw = nullptr;
    Status s = rocksdb_cuckoo::OpenDB(ref_options_, ref_path_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ref_.reset(raw);

    Options dut_options = dut_options_;
    if (from_options_file) {
      // The format's options must survive the DB's OPTIONS file.
      ConfigOptions config = StrictConfig();
      if (env_ != nullptr) config.env = env_;
      DBOptions db_options;
      std::vector<ColumnFamilyDescriptor> cfs;
      s = ROCKSDB_NAMESPACE::LoadLatestOptions(config, dut_path_, &db_options,
                                               &cfs);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(cfs.size(), 1u);
      const auto& loaded = cfs[0].options.table_factory;
      ASSERT_NE(loaded, nullptr);
      ASSERT_STREQ(loaded->Name(), kDutTableName);
      std::string want, got;
      ASSERT_TRUE(
          dut_options_.table_factory->GetOptionString(config, &want).ok());
      ASSERT_TRUE(loaded->GetOptionString(config, &got).ok());
      EXPECT_EQ(want, got);
      dut_options = Options(db_options, cfs[0].options);
      if (env_ != nullptr) dut_options.env = env_;
    }
    raw = nullptr;
    s = rocksdb_cuckoo::OpenDB(dut_options, dut_path_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    dut_.reset(raw);
    ASSERT_STREQ(dut_->GetOptions().table_factory->Name(), kDutTableName);
  }

  void CloseBoth() {
    for (auto* db : {&ref_, &dut_}) {
      if (*db) {
        Status s = (*db)->Close();
        EXPECT_TRUE(s.ok()) << s.ToString();
        db->reset();
      }
    }
  }

  void Reopen() {
    ReleaseAllSnapshots();
    Event("Reopen");
    CloseBoth();
    ++reopens_;
    OpenBoth(/*from_options_file=*/reopens_ % 2 == 0);
  }

  // ---- writes --------------------------------------------------------------
  void ApplyToBoth(const WriteOp& op) {
    const std::string& key = keys_[op.key_index];
    Status rs = ApplyDirect(ref_.get(), op, key);
    Status ds = ApplyDirect(dut_.get(), op, key);
    ASSERT_TRUE(rs.ok()) << rs.ToString();
    ASSERT_TRUE(ds.ok()) << ds.ToString();
  }

  void ApplyBatchToBoth(const std::vector<WriteOp>& ops) {
    WriteBatch batch;
    for (const WriteOp& op : ops) {
      ASSERT_TRUE(AddToBatch(op, keys_[op.key_index], &batch).ok());
    }
    WriteBatch copy = batch;
    Status rs = ref_->Write(WriteOptions(), &batch);
    Status ds = dut_->Write(WriteOptions(), &copy);
    ASSERT_TRUE(rs.ok()) << rs.ToString();
    ASSERT_TRUE(ds.ok()) << ds.ToString();
  }

  // One random step of the single-threaded workload.
  void RandomStep(const std::vector<size_t>& all_keys) {
    const uint64_t r = rnd_.Uniform(200);
    if (r < 3) {
      if (snapshots_.size() < 6) TakeSnapshot();
    } else if (r < 5) {
      ReleaseSnapshot(rnd_.Uniform(snapshots_.size() + 1));
    } else if (r < 6) {
      FlushBoth();
    } else if (r < 20) {
      std::vector<WriteOp> ops;
      const size_t n = 2 + rnd_.Uniform(6);
      for (size_t i = 0; i < n; ++i) {
        ops.push_back(ChooseWrite(&rnd_, all_keys, &history_, &op_counter_));
      }
      ApplyBatchToBoth(ops);
    } else {
      ApplyToBoth(ChooseWrite(&rnd_, all_keys, &history_, &op_counter_));
    }
  }

  void ReleaseSnapshot(size_t i) {
    if (i >= snapshots_.size()) return;
    Event("release " + snapshots_[i].name);
    ref_->ReleaseSnapshot(snapshots_[i].ref);
    dut_->ReleaseSnapshot(snapshots_[i].dut);
    snapshots_.erase(snapshots_.begin() + i);
  }

  void ReleaseAllSnapshots() {
    while (!snapshots_.empty()) ReleaseSnapshot(snapshots_.size() - 1);
  }

  void TakeSnapshot() {
    snapshots_.push_back({ref_->GetSnapshot(), dut_->GetSnapshot(),
                          "snapshot@#" + std::to_string(op_counter_.load())});
  }

  void Event(const std::string& what) {
    events_ += " #" + std::to_string(op_counter_.load()) + ":" + what;
  }

  // The write history of `key` and the global events, for failure messages.
  std::string Describe(const std::string& key) const {
    std::string out = "\n  writes to " + Printable(key) + ":";
    auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
    if (it != keys_.end() && *it == key) {
      out += history_[it - keys_.begin()].log;
    } else {
      out += " (not in the key space)";
    }
    return out + "\n  events:" + events_ + "\n  now at #" +
           std::to_string(op_counter_.load());
  }

  void FlushBoth() {
    Event("Flush");
    ASSERT_TRUE(ref_->Flush(FlushOptions()).ok());
    ASSERT_TRUE(dut_->Flush(FlushOptions()).ok());
  }

  void CompactBoth(bool full) {
    CompactRangeOptions cro;
    std::string lo, hi;
    Slice lo_slice, hi_slice;
    const Slice* begin = nullptr;
    const Slice* end = nullptr;
    if (full) {
      cro.bottommost_level_compaction =
          ROCKSDB_NAMESPACE::BottommostLevelCompaction::kForce;
    } else {
      lo = keys_[rnd_.Uniform(keys_.size())];
      hi = keys_[rnd_.Uniform(keys_.size())];
      if (hi < lo) std::swap(lo, hi);
      lo_slice = lo;
      hi_slice = hi;
      begin = &lo_slice;
      end = &hi_slice;
    }
    Event(full ? "CompactRange(all)"
               : "CompactRange(" + Printable(lo) + ".." + Printable(hi) + ")");
    Status s = ref_->CompactRange(cro, begin, end);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = dut_->CompactRange(cro, begin, end);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Bulk loading: one random external file per DB, each built by
  // SstFileWriter with that DB's own options (so the DUT's in our format),
  // holding Puts, Merges, Deletes and maybe a DeleteRange over a random run
  // of keys, then ingested into both with the same random options.
  void IngestBoth(bool ingest_behind) {
    const size_t first = rnd_.Uniform(keys_.size());
    const size_t last =
        std::min(keys_.size(), first + 4 + rnd_.Uniform(keys_.size() / 3));
    std::vector<WriteOp> ops;
    for (size_t i = first; i < last; ++i) {
      // Single-delete keys keep their one-Put contract (see ChooseWrite).
      if (IsSingleDeleteKey(i) || rnd_.OneIn(4)) continue;
      const uint64_t r = rnd_.Uniform(100);
      WriteOp op{
          r < 60 ? OpKind::kPut : (r < 80 ? OpKind::kMerge : OpKind::kDelete),
          i, ""};
      op.value = op.kind == OpKind::kPut ? MakeValue(&rnd_)
                 : op.kind == OpKind::kMerge
                     ? rnd_.Printable(1 + rnd_.Uniform(8))
                     : "";
      ops.push_back(op);
    }
    if (ops.empty()) return;
    // A range deletion inside the run, avoiding single-delete keys.
    std::string range_begin, range_end;
    if (rnd_.OneIn(3) && last - first > 2) {
      size_t b = first + rnd_.Uniform(last - first - 1);
      size_t e = b + 1 + rnd_.Uniform(last - b - 1);
      bool clean = true;
      for (size_t i = b; i < e; ++i) clean = clean && !IsSingleDeleteKey(i);
      if (clean) {
        range_begin = keys_[b];
        range_end = keys_[e];
      }
    }
    IngestExternalFileOptions ifo;
    ifo.write_global_seqno = rnd_.OneIn(2);
    ifo.move_files = rnd_.OneIn(2);
    ifo.verify_checksums_before_ingest = rnd_.OneIn(2);
    ifo.ingest_behind = ingest_behind;
    const std::string tag = std::to_string(op_counter_.fetch_add(1));
    std::string what =
        std::string("Ingest(") + (ingest_behind ? "behind," : "") +
        "write_global_seqno=" + (ifo.write_global_seqno ? "1" : "0") +
        ",move_files=" + (ifo.move_files ? "1" : "0");
    if (!range_begin.empty()) {
      what += ",DeleteRange(" + Printable(range_begin) + ".." +
              Printable(range_end) + ")";
    }
    what += ")";
    Event(what);
    for (const WriteOp& op : ops) {
      history_[op.key_index].log +=
          " #" + tag + ":Ingested" +
          (op.kind == OpKind::kPut
               ? "Put(" + std::to_string(op.value.size()) + "B)"
           : op.kind == OpKind::kMerge ? "Merge(" + op.value + ")"
                                       : std::string("Delete"));
    }
    const struct {
      DB* db;
      const Options* options;
      const char* name;
    } targets[] = {{ref_.get(), &ref_options_, "ref"},
                   {dut_.get(), &dut_options_, "dut"}};
    Status results[2];
    for (int t = 0; t < 2; ++t) {
      const std::string path =
          root_ + "/ingest_" + tag + "_" + targets[t].name + ".sst";
      SstFileWriter writer(EnvOptions(), *targets[t].options);
      ASSERT_OK(writer.Open(path));
      for (const WriteOp& op : ops) {
        const std::string& key = keys_[op.key_index];
        ASSERT_OK(op.kind == OpKind::kPut     ? writer.Put(key, op.value)
                  : op.kind == OpKind::kMerge ? writer.Merge(key, op.value)
                                              : writer.Delete(key));
      }
      if (!range_begin.empty()) {
        ASSERT_OK(writer.DeleteRange(range_begin, range_end));
      }
      ASSERT_OK(writer.Finish());
      results[t] = targets[t].db->IngestExternalFile({path}, ifo);
    }
    // Both accept, or both refuse (ingest_behind over overlapping data).
    ASSERT_EQ(results[0].ok(), results[1].ok())
        << "ref: " << results[0].ToString()
        << " dut: " << results[1].ToString();
    if (!results[0].ok()) {
      Event("refused: " + results[0].ToString());
    } else {
      ingested_files_++;
    }
  }

  // A random end-of-phase action that moves data between memtable and files.
  void PhaseAction() {
    switch (rnd_.Uniform(6)) {
      case 0:
        break;  // leave data in the memtables
      case 1:
        FlushBoth();
        break;
      case 2:
        CompactBoth(/*full=*/false);
        break;
      case 3:
        FlushBoth();
        CompactBoth(/*full=*/true);
        break;
      default:
        Reopen();
        break;
    }
  }

  // ---- checks --------------------------------------------------------------
  void VerifyAll() {
    ASSERT_NO_FATAL_FAILURE(VerifyReads(nullptr, "latest"));
    for (size_t i = 0; i < snapshots_.size(); ++i) {
      ASSERT_NO_FATAL_FAILURE(VerifyReads(&snapshots_[i], snapshots_[i].name));
    }
    ASSERT_NO_FATAL_FAILURE(CheckDutFilesAreOurs());
  }

  // Fails when a DB-under-test SST file is a BlockBasedTable file.
  void CheckDutFilesAreOurs() {
    std::vector<LiveFileMetaData> files;
    dut_->GetLiveFilesMetaData(&files);
    for (const LiveFileMetaData& f : files) {
      const std::string path = f.db_path + "/" + f.name;
      std::ifstream in(path, std::ios::binary);
      if (!in.good()) continue;  // a background compaction removed it
      in.seekg(-8, std::ios::end);
      unsigned char tail[8] = {};
      in.read(reinterpret_cast<char*>(tail), 8);
      ASSERT_TRUE(in.good()) << path;
      uint64_t magic = 0;
      for (int i = 7; i >= 0; --i) magic = (magic << 8) | tail[i];
      EXPECT_NE(magic, kBlockBasedTableMagic) << path;
      ++files_checked_;
      if (f.level > 0) ++deeper_files_checked_;
    }
  }

  void VerifyReads(const SnapshotPair* snap, const std::string& label) {
    ReadOptions ref_ro, dut_ro = DutReadOptions();
    if (snap != nullptr) {
      ref_ro.snapshot = snap->ref;
      dut_ro.snapshot = snap->dut;
    }
    SCOPED_TRACE(label);
    ASSERT_NO_FATAL_FAILURE(VerifyGets(ref_ro, dut_ro));
    ASSERT_NO_FATAL_FAILURE(VerifyMultiGets(ref_ro, dut_ro));
    ASSERT_NO_FATAL_FAILURE(VerifyScans(ref_ro, dut_ro));
    ASSERT_NO_FATAL_FAILURE(VerifySeeks(ref_ro, dut_ro));
  }

  void ExpectSameResult(const std::string& key, const Status& rs,
                        const std::string& rv, const Status& ds,
                        const Slice& dv, const char* what) {
    ASSERT_TRUE(rs.ok() || rs.IsNotFound()) << what << ": " << rs.ToString();
    ASSERT_EQ(rs.code(), ds.code())
        << what << " key " << Printable(key) << ": reference " << rs.ToString()
        << " vs under test " << ds.ToString() << Describe(key);
    if (rs.ok()) {
      ASSERT_EQ(rv, dv.ToString())
          << what << " key " << Printable(key) << ": reference "
          << Printable(rv) << " vs under test " << Printable(dv.ToString())
          << Describe(key);
    }
  }

  std::vector<std::string> AllLookupKeys() const {
    std::vector<std::string> all = keys_;
    all.insert(all.end(), probes_.begin(), probes_.end());
    return all;
  }

  void VerifyGets(const ReadOptions& ref_ro, const ReadOptions& dut_ro) {
    for (const std::string& key : AllLookupKeys()) {
      std::string rv;
      PinnableSlice dv;
      Status rs = ref_->Get(ref_ro, key, &rv);
      Status ds = dut_->Get(dut_ro, dut_->DefaultColumnFamily(), key, &dv);
      ASSERT_NO_FATAL_FAILURE(ExpectSameResult(key, rs, rv, ds, dv, "Get"));
    }
  }

  void VerifyMultiGets(const ReadOptions& ref_ro, const ReadOptions& dut_ro) {
    std::vector<std::string> lookup = AllLookupKeys();
    std::shuffle(lookup.begin(), lookup.end(),
                 std::mt19937_64(rnd_.Uniform(1u << 30)));

    // The vector overload, all keys at once.
    std::vector<Slice> slices(lookup.begin(), lookup.end());
    std::vector<std::string> rvals, dvals;
    std::vector<Status> rst = ref_->MultiGet(ref_ro, slices, &rvals);
    std::vector<Status> dst = dut_->MultiGet(dut_ro, slices, &dvals);
    ASSERT_EQ(rst.size(), lookup.size());
    ASSERT_EQ(dst.size(), lookup.size());
    for (size_t i = 0; i < lookup.size(); ++i) {
      ASSERT_NO_FATAL_FAILURE(ExpectSameResult(
          lookup[i], rst[i], rvals[i], dst[i], dvals[i], "MultiGet(vector)"));
    }

    // The batched PinnableSlice overload: one batch of everything, then
    // small batches with duplicates, some passed as sorted input.
    std::vector<std::vector<std::string>> batches = {lookup};
    for (int b = 0; b < 6; ++b) {
      std::vector<std::string> batch;
      const size_t n = 1 + rnd_.Uniform(48);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(lookup[rnd_.Uniform(lookup.size())]);
        if (rnd_.OneIn(8)) batch.push_back(batch.back());
      }
      batches.push_back(std::move(batch));
    }
    for (size_t b = 0; b < batches.size(); ++b) {
      std::vector<std::string>& batch = batches[b];
      const bool sorted = b % 2 == 1;
      if (sorted) std::sort(batch.begin(), batch.end());
      std::vector<Slice> keys(batch.begin(), batch.end());
      std::vector<PinnableSlice> rv(keys.size()), dv(keys.size());
      std::vector<Status> rs(keys.size()), ds(keys.size());
      ref_->MultiGet(ref_ro, ref_->DefaultColumnFamily(), keys.size(),
                     keys.data(), rv.data(), rs.data(), sorted);
      dut_->MultiGet(dut_ro, dut_->DefaultColumnFamily(), keys.size(),
                     keys.data(), dv.data(), ds.data(), sorted);
      for (size_t i = 0; i < keys.size(); ++i) {
        ASSERT_NO_FATAL_FAILURE(ExpectSameResult(batch[i], rs[i],
                                                 rv[i].ToString(), ds[i], dv[i],
                                                 "MultiGet(batched)"));
      }
    }
  }

  // Collects a whole scan; the step limit turns a looping iterator into a
  // failure instead of a hang.
  static KVs Scan(DB* db, const ReadOptions& ro, bool forward, Status* st) {
    KVs out;
    std::unique_ptr<Iterator> it(db->NewIterator(ro));
    if (forward) {
      it->SeekToFirst();
    } else {
      it->SeekToLast();
    }
    for (; it->Valid() && out.size() < 1000000;
         forward ? it->Next() : it->Prev()) {
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
    *st = it->status();
    return out;
  }

  void ExpectSameKVs(const KVs& want, const KVs& got, const char* what) {
    for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
      ASSERT_EQ(want[i].first, got[i].first)
          << what << " entry " << i << ": reference key "
          << Printable(want[i].first) << " vs under test "
          << Printable(got[i].first) << Describe(want[i].first)
          << Describe(got[i].first);
      ASSERT_EQ(want[i].second, got[i].second)
          << what << " entry " << i << " key " << Printable(want[i].first)
          << ": reference " << Printable(want[i].second) << " vs under test "
          << Printable(got[i].second) << Describe(want[i].first);
    }
    ASSERT_EQ(want.size(), got.size())
        << what << " lengths differ; next reference key "
        << (want.size() > got.size() ? Describe(want[got.size()].first) : "")
        << " next under-test key "
        << (got.size() > want.size() ? Describe(got[want.size()].first) : "");
  }

  void VerifyScans(const ReadOptions& ref_ro, const ReadOptions& dut_ro) {
    for (bool forward : {true, false}) {
      Status rs, ds;
      KVs want = Scan(ref_.get(), ref_ro, forward, &rs);
      KVs got = Scan(dut_.get(), dut_ro, forward, &ds);
      ASSERT_TRUE(rs.ok()) << rs.ToString();
      ASSERT_TRUE(ds.ok()) << ds.ToString();
      ASSERT_NO_FATAL_FAILURE(
          ExpectSameKVs(want, got, forward ? "forward scan" : "backward scan"));
    }
  }

  std::string RandomTarget() {
    switch (rnd_.Uniform(4)) {
      case 0:
        return probes_[rnd_.Uniform(probes_.size())];
      case 1:
        return rnd_.Bytes(rnd_.Uniform(41));
      default:
        return keys_[rnd_.Uniform(keys_.size())];
    }
  }

  // Random Seek/SeekForPrev followed by a short random Next/Prev walk, some
  // under iterate_lower_bound/iterate_upper_bound.
  void VerifySeeks(ReadOptions ref_ro, ReadOptions dut_ro) {
    const int kSeeks = 24;
    for (int i = 0; i < kSeeks; ++i) {
      std::string lo, hi;
      Slice lo_slice, hi_slice;
      ReadOptions rro = ref_ro, dro = dut_ro;
      if (rnd_.OneIn(4)) {
        lo = RandomTarget();
        hi = RandomTarget();
        if (hi < lo) std::swap(lo, hi);
        lo_slice = lo;
        hi_slice = hi;
        rro.iterate_lower_bound = dro.iterate_lower_bound = &lo_slice;
        rro.iterate_upper_bound = dro.iterate_upper_bound = &hi_slice;
      }
      std::unique_ptr<Iterator> ri(ref_->NewIterator(rro));
      std::unique_ptr<Iterator> di(dut_->NewIterator(dro));
      const std::string target = RandomTarget();
      const bool for_prev = rnd_.OneIn(2);
      std::string trail = std::string(for_prev ? "SeekForPrev(" : "Seek(") +
                          Printable(target) + ")";
      if (for_prev) {
        ri->SeekForPrev(target);
        di->SeekForPrev(target);
      } else {
        ri->Seek(target);
        di->Seek(target);
      }
      const int steps = static_cast<int>(rnd_.Uniform(8));
      for (int step = 0;; ++step) {
        ASSERT_TRUE(ri->status().ok()) << ri->status().ToString();
        ASSERT_TRUE(di->status().ok())
            << trail << " " << di->status().ToString();
        ASSERT_EQ(ri->Valid(), di->Valid())
            << trail << " reference at "
            << (ri->Valid() ? Describe(ri->key().ToString()) : "end")
            << " under test at "
            << (di->Valid() ? Describe(di->key().ToString()) : "end");
        if (!ri->Valid()) break;
        ASSERT_EQ(ri->key().ToString(), di->key().ToString())
            << trail << ": reference " << Printable(ri->key().ToString())
            << " vs under test " << Printable(di->key().ToString())
            << Describe(ri->key().ToString()) << Describe(di->key().ToString());
        ASSERT_EQ(ri->value().ToString(), di->value().ToString())
            << trail << " at " << Printable(ri->key().ToString())
            << Describe(ri->key().ToString());
        if (step == steps) break;
        if (rnd_.OneIn(3)) {
          trail += ".Prev()";
          ri->Prev();
          di->Prev();
        } else {
          trail += ".Next()";
          ri->Next();
          di->Next();
        }
      }
    }
  }

  // ---- accessors -----------------------------------------------------------
  Random* rnd() { return &rnd_; }
  DB* ref() { return ref_.get(); }
  DB* dut() { return dut_.get(); }
  const std::vector<std::string>& keys() const { return keys_; }
  std::vector<KeyHistory>* history() { return &history_; }
  std::atomic<uint64_t>* op_counter() { return &op_counter_; }
  int ingested_files() const { return ingested_files_; }
  int files_checked() const { return files_checked_; }
  int deeper_files_checked() const { return deeper_files_checked_; }
  const rocksdb_cuckoo::SpoolCompactionService* compaction_service() const {
    return compaction_service_.get();
  }
  const std::string& dut_options_string() const { return dut_options_string_; }
  // Reads of the DB under test: in total order even under a prefix
  // extractor, so that they compare with the reference's (prefix seeks are
  // tests/db/prefix_reads_db_test.cc's).
  ReadOptions DutReadOptions() const {
    ReadOptions ro;
    ro.total_order_seek = dut_options_.prefix_extractor != nullptr;
    return ro;
  }

 private:
  const DutVariant variant_;
  std::shared_ptr<rocksdb_cuckoo::SpoolCompactionService> compaction_service_;
  const bool mmap_;
  const bool identity_;
  Random rnd_;
  const std::string extra_common_;

  std::string root_, ref_path_, dut_path_;
  std::string dut_options_string_;
  Options ref_options_, dut_options_;
  std::shared_ptr<Env> env_guard_;
  Env* env_ = nullptr;
  std::unique_ptr<DB> ref_, dut_;

  std::vector<std::string> keys_, probes_;
  std::vector<KeyHistory> history_;
  std::atomic<uint64_t> op_counter_{0};
  std::string events_;  // snapshots, flushes, compactions, reopens
  std::vector<SnapshotPair> snapshots_;
  int reopens_ = 0;
  int files_checked_ = 0;
  int deeper_files_checked_ = 0;
  int ingested_files_ = 0;
};

// ---------------------------------------------------------------------------
struct DiffParam {
  DutVariant variant;
  bool mmap;
  bool identity;
  uint64_t seed;
};

std::string ParamString(const DiffParam& p) {
  return std::string(p.variant.name) + "_mmap" + (p.mmap ? "1" : "0") +
         "_identity" + (p.identity ? "1" : "0") + "_seed" +
         std::to_string(p.seed);
}

std::string ParamName(const ::testing::TestParamInfo<DiffParam>& info) {
  return ParamString(info.param);
}

void PrintTo(const DiffParam& p, std::ostream* os) { *os << ParamString(p); }

std::vector<DiffParam> SingleWriterParams() {
  std::vector<DiffParam> params;
  for (const DutVariant& v : kDutVariants) {
    for (bool mmap : {false, true}) {
      for (bool identity : {false, true}) {
        for (uint64_t seed : {1, 2, 3}) {
          params.push_back({v, mmap, identity, seed});
        }
      }
    }
  }
  return params;
}

std::vector<DiffParam> ConcurrentParams() {
  std::vector<DiffParam> params;
  for (const DutVariant& v : kDutVariants) {
    for (bool mmap : {false, true}) {
      params.push_back({v, mmap, /*identity=*/mmap, /*seed=*/11});
    }
  }
  return params;
}

class DifferentialDbTest : public ::testing::TestWithParam<DiffParam> {};

TEST_P(DifferentialDbTest, RandomOpsAgreeWithBlockBasedTable) {
  const DiffParam& p = GetParam();
  DifferentialHarness h(p.variant, p.mmap, p.identity, p.seed, "");
  ASSERT_NO_FATAL_FAILURE(h.SetUp(ParamString(p)));
  SCOPED_TRACE("seed " + std::to_string(p.seed) + ", DUT options " +
               h.dut_options_string());

  std::vector<size_t> all(h.keys().size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;

  const int kPhases = 14;
  const int kStepsPerPhase = 360 / kWorkScale;
  for (int phase = 0; phase < kPhases; ++phase) {
    SCOPED_TRACE("phase " + std::to_string(phase));
    for (int i = 0; i < kStepsPerPhase; ++i) {
      ASSERT_NO_FATAL_FAILURE(h.RandomStep(all));
    }
    ASSERT_NO_FATAL_FAILURE(h.PhaseAction());
    ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  }
  // The run must have produced files in our format, compacted past L0.
  ASSERT_NO_FATAL_FAILURE(h.FlushBoth());
  ASSERT_NO_FATAL_FAILURE(h.CompactBoth(/*full=*/true));
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  EXPECT_GT(h.files_checked(), 0);
  EXPECT_GT(h.deeper_files_checked(), 0);
  if (p.variant.remote_compaction) {
    const auto counts = h.compaction_service()->counts();
    EXPECT_GT(counts.completed_remotely, 0);
    EXPECT_EQ(counts.fell_back_to_local, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Cuckoo, DifferentialDbTest,
                         ::testing::ValuesIn(SingleWriterParams()), ParamName);

// Two writer threads on disjoint key sets (so the final state is
// deterministic) while the main thread flushes and reads concurrently.
class ConcurrentDifferentialDbTest
    : public ::testing::TestWithParam<DiffParam> {};

TEST_P(ConcurrentDifferentialDbTest, TwoWritersDisjointKeys) {
  const DiffParam& p = GetParam();
  DifferentialHarness h(p.variant, p.mmap, p.identity, p.seed,
                        ";allow_concurrent_memtable_write=true;"
                        "enable_write_thread_adaptive_yield=true");
  ASSERT_NO_FATAL_FAILURE(h.SetUp(ParamString(p)));
  SCOPED_TRACE("DUT options " + h.dut_options_string());

  constexpr int kWriters = 2;
  std::vector<std::vector<size_t>> owned(kWriters);
  for (size_t i = 0; i < h.keys().size(); ++i) owned[i % kWriters].push_back(i);

  const int kPhases = 5;
  const int kOpsPerWriter = 700 / kWorkScale;
  for (int phase = 0; phase < kPhases; ++phase) {
    SCOPED_TRACE("phase " + std::to_string(phase));
    std::atomic<int> failures{0};
    std::mutex error_mu;
    std::string first_error;
    auto record = [&](const Status& s) {
      if (s.ok()) return;
      std::lock_guard<std::mutex> lock(error_mu);
      if (failures.fetch_add(1) == 0) first_error = s.ToString();
    };
    std::vector<std::thread> writers;
    for (int t = 0; t < kWriters; ++t) {
      const uint64_t thread_seed = p.seed * 1000 + phase * kWriters + t;
      writers.emplace_back([&, t, thread_seed] {
        Random rnd(thread_seed);
        // history entries of a key are touched only by its owner thread.
        for (int i = 0; i < kOpsPerWriter; ++i) {
          if (rnd.OneIn(5)) {
            WriteBatch rb;
            const size_t n = 2 + rnd.Uniform(5);
            for (size_t j = 0; j < n; ++j) {
              WriteOp op =
                  ChooseWrite(&rnd, owned[t], h.history(), h.op_counter());
              record(AddToBatch(op, h.keys()[op.key_index], &rb));
            }
            WriteBatch db = rb;
            record(h.ref()->Write(WriteOptions(), &rb));
            record(h.dut()->Write(WriteOptions(), &db));
          } else {
            WriteOp op =
                ChooseWrite(&rnd, owned[t], h.history(), h.op_counter());
            record(ApplyDirect(h.ref(), op, h.keys()[op.key_index]));
            record(ApplyDirect(h.dut(), op, h.keys()[op.key_index]));
          }
        }
      });
    }
    // Concurrent flushes and reads of the DB under test; contents are in
    // flux, so only internal consistency is checked here.
    for (int round = 0; round < 3; ++round) {
      record(h.ref()->Flush(FlushOptions()));
      record(h.dut()->Flush(FlushOptions()));
      std::unique_ptr<Iterator> it(h.dut()->NewIterator(h.DutReadOptions()));
      std::string prev;
      bool first = true;
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        if (!first) {
          EXPECT_LT(prev, it->key().ToString()) << "keys out of order";
        }
        prev = it->key().ToString();
        first = false;
      }
      record(it->status());
      for (int i = 0; i < 64; ++i) {
        PinnableSlice v;
        Status s =
            h.dut()->Get(h.DutReadOptions(), h.dut()->DefaultColumnFamily(),
                         h.keys()[h.rnd()->Uniform(h.keys().size())], &v);
        if (!s.IsNotFound()) record(s);
      }
    }
    for (std::thread& w : writers) w.join();
    ASSERT_EQ(failures.load(), 0) << first_error;

    // Quiescent now: snapshots and checks are deterministic again.
    h.TakeSnapshot();
    ASSERT_NO_FATAL_FAILURE(h.PhaseAction());
    ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  }
  EXPECT_GT(h.files_checked(), 0);
}

INSTANTIATE_TEST_SUITE_P(Cuckoo, ConcurrentDifferentialDbTest,
                         ::testing::ValuesIn(ConcurrentParams()), ParamName);

// Bulk loading mixed into the random workload: external files built by
// SstFileWriter in each DB's own format, ingested with random options
// (global seqno written into the file or kept in the DB's metadata, moved or
// copied), overlapping live data and snapshots; then flushes, compactions
// and reopens. With allow_ingest_behind the files go below everything.
class IngestionDifferentialDbTest
    : public ::testing::TestWithParam<std::tuple<bool, bool, bool>> {};

TEST_P(IngestionDifferentialDbTest, IngestedFilesReadAsInReference) {
  const auto [mmap, identity, behind] = GetParam();
  const std::string extra = behind ? ";allow_ingest_behind=true" : "";
  DifferentialHarness h(kDutVariants[0], mmap, identity, /*seed=*/21, extra);
  const std::string tag = std::string("ingest_mmap") + (mmap ? "1" : "0") +
                          "_identity" + (identity ? "1" : "0") +
                          (behind ? "_behind" : "");
  ASSERT_NO_FATAL_FAILURE(h.SetUp(tag));
  SCOPED_TRACE("DUT options " + h.dut_options_string());
  std::vector<size_t> all(h.keys().size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;

  // The first file goes into an empty DB.
  ASSERT_NO_FATAL_FAILURE(h.IngestBoth(/*ingest_behind=*/false));
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  const int kPhases = 8;
  for (int phase = 0; phase < kPhases; ++phase) {
    SCOPED_TRACE("phase " + std::to_string(phase));
    for (int i = 0; i < 150 / kWorkScale; ++i) {
      ASSERT_NO_FATAL_FAILURE(h.RandomStep(all));
      if (h.rnd()->OneIn(50)) {
        ASSERT_NO_FATAL_FAILURE(h.IngestBoth(behind && h.rnd()->OneIn(2)));
      }
    }
    ASSERT_NO_FATAL_FAILURE(h.IngestBoth(behind && phase % 2 == 0));
    ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
    ASSERT_NO_FATAL_FAILURE(h.PhaseAction());
    ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  }
  ASSERT_NO_FATAL_FAILURE(h.FlushBoth());
  ASSERT_NO_FATAL_FAILURE(h.CompactBoth(/*full=*/true));
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  ASSERT_NO_FATAL_FAILURE(h.Reopen());
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  EXPECT_GE(h.ingested_files(), kPhases);
}

INSTANTIATE_TEST_SUITE_P(
    Cuckoo, IngestionDifferentialDbTest,
    ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Bool()),
    [](const auto& info) {
      return std::string("mmap") + (std::get<0>(info.param) ? "1" : "0") +
             "_identity" + (std::get<1>(info.param) ? "1" : "0") +
             (std::get<2>(info.param) ? "_behind" : "");
    });

// DeleteRange: tombstones in the memtable, then flushed into a table file,
// then compacted with the keys they cover, must read exactly as in the
// reference at every step (including across a reopen).
TEST(DifferentialDbDeleteRangeTest, DeleteRangeMatchesReference) {
  DifferentialHarness h(kDutVariants[0], /*mmap=*/false, /*identity=*/false,
                        /*seed=*/5, "");
  ASSERT_NO_FATAL_FAILURE(h.SetUp("delete_range"));
  std::vector<size_t> all(h.keys().size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (int i = 0; i < 300; ++i) ASSERT_NO_FATAL_FAILURE(h.RandomStep(all));
  ASSERT_NO_FATAL_FAILURE(h.FlushBoth());

  std::vector<std::string> sorted = h.keys();
  std::sort(sorted.begin(), sorted.end());
  const std::string& begin = sorted[sorted.size() / 4];
  const std::string& end = sorted[sorted.size() / 2];
  for (DB* db : {h.ref(), h.dut()}) {
    ASSERT_OK(
        db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(), begin, end));
  }
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  ASSERT_NO_FATAL_FAILURE(h.FlushBoth());
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  for (int i = 0; i < 100; ++i) ASSERT_NO_FATAL_FAILURE(h.RandomStep(all));
  ASSERT_NO_FATAL_FAILURE(h.CompactBoth(/*full=*/true));
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  ASSERT_NO_FATAL_FAILURE(h.Reopen());
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
}

// A table file holding range tombstones and nothing else: RocksDB derives
// average value sizes from its properties when it installs the file and
// again on reopen (a division that crashed a release build when the
// tombstones were not counted like BlockBasedTable counts them).
TEST(DifferentialDbDeleteRangeTest, FileOfTombstonesAloneReadsAsReference) {
  DifferentialHarness h(kDutVariants[0], /*mmap=*/false, /*identity=*/false,
                        /*seed=*/6, "");
  ASSERT_NO_FATAL_FAILURE(h.SetUp("tombstones_alone"));
  std::vector<std::string> sorted = h.keys();
  std::sort(sorted.begin(), sorted.end());
  for (DB* db : {h.ref(), h.dut()}) {
    ASSERT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(),
                              sorted.front(), sorted.back()));
  }
  ASSERT_NO_FATAL_FAILURE(h.FlushBoth());
  ASSERT_NO_FATAL_FAILURE(h.Reopen());
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
  std::vector<size_t> all(h.keys().size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (int i = 0; i < 100; ++i) ASSERT_NO_FATAL_FAILURE(h.RandomStep(all));
  ASSERT_NO_FATAL_FAILURE(h.CompactBoth(/*full=*/true));
  ASSERT_NO_FATAL_FAILURE(h.Reopen());
  ASSERT_NO_FATAL_FAILURE(h.VerifyAll());
}

}  // namespace
