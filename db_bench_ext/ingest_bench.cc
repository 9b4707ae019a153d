// ingest_bench: what a bulk load through SstFileWriter and IngestExternalFile
// costs with a given table factory, the step db_bench has no benchmark for
// (write_compare.py's ingest workload).
//
//   ingest_bench --db=/dev/shm/ingest --num=4000000 --files=8
//     --options_string='table_factory={id=CuckooHashTable}'
//     --db_options=allow_mmap_reads=false
// (one command line).
//
// Writes --num sorted keys, db_bench's (the key's index as 8 big-endian bytes,
// padded with '0' to --key_size), into --files files of consecutive key
// ranges, then ingests them all with one IngestExternalFile call (moved, not
// copied: a copy costs every format the same). Prints the time and keys/s of
// both steps, then reads a sample of the keys back. The options string is
// parsed strictly, so an unregistered id fails instead of silently giving
// RocksDB's BlockBasedTable.
#include <gflags/gflags.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "tests/support/db_open.h"

DEFINE_string(db, "", "DB to create (destroyed first; required).");
DEFINE_int64(num, 4000000, "Keys to write and ingest.");
DEFINE_int32(key_size, 16, "Key bytes (>= 8).");
DEFINE_int32(value_size, 100, "Value bytes.");
DEFINE_int32(files, 8, "SST files the keys are split into.");
DEFINE_string(options_string, "",
              "Column family options on top of the defaults (compression "
              "none), e.g. table_factory={id=CuckooHashTable}.");
DEFINE_string(db_options, "",
              "DB options string, e.g. allow_mmap_reads=true for the "
              "built-in CuckooTable and PlainTable.");
DEFINE_int32(verify, 1000, "Keys read back after the ingest, evenly spaced.");

namespace {

using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::EnvOptions;
using ROCKSDB_NAMESPACE::IngestExternalFileOptions;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::SstFileWriter;
using ROCKSDB_NAMESPACE::Status;
using Clock = std::chrono::steady_clock;

void Check(const Status& s, const std::string& what) {
  if (s.ok()) return;
  std::fprintf(stderr, "ingest_bench: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(1);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// db_bench's key for index i (GenerateKeyFromInt without prefixes), so the
// keys are those of the db_bench workloads and sort by index.
std::string Key(uint64_t i) {
  std::string key(FLAGS_key_size, '0');
  for (int b = 7; b >= 0; --b, i >>= 8) key[b] = static_cast<char>(i);
  return key;
}

// Values are windows of one random buffer: no per-key generation cost in the
// timed loop, and the window is a function of the index, for the read-back.
class Values {
 public:
  Values() : buffer_(kSpan + FLAGS_value_size, '\0') {
    std::mt19937_64 rng(301);
    for (char& c : buffer_) c = static_cast<char>(rng());
  }

  Slice Get(uint64_t i) const {
    return Slice(buffer_.data() + (i * 7919) % kSpan, FLAGS_value_size);
  }

 private:
  static constexpr uint64_t kSpan = 1 << 20;
  std::string buffer_;
};

// The defaults, compression off as in the db_bench workloads, then the flags'
// options strings, strictly: unknown options and unregistered ids fail.
Options MakeOptions() {
  Options base;
  base.create_if_missing = true;
  base.compression = ROCKSDB_NAMESPACE::kNoCompression;
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  DBOptions db_options;
  Check(ROCKSDB_NAMESPACE::GetDBOptionsFromString(
            config, base, FLAGS_db_options, &db_options),
        "--db_options=" + FLAGS_db_options);
  ColumnFamilyOptions cf_options;
  Check(ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
            config, base, FLAGS_options_string, &cf_options),
        "--options_string=" + FLAGS_options_string);
  if (cf_options.table_factory == nullptr) {
    Check(Status::InvalidArgument("no table factory"),
          "--options_string=" + FLAGS_options_string);
  }
  return Options(db_options, cf_options);
}

// Writes the keys into --files files of consecutive ranges; returns their
// paths.
std::vector<std::string> WriteFiles(const Options& options,
                                    const std::string& dir,
                                    const Values& values) {
  std::vector<std::string> paths;
  SstFileWriter writer(EnvOptions(options), options);
  for (int f = 0; f < FLAGS_files; ++f) {
    const uint64_t begin = FLAGS_num * f / FLAGS_files;
    const uint64_t end = FLAGS_num * (f + 1) / FLAGS_files;
    if (begin == end) continue;
    paths.push_back(dir + "/" + std::to_string(f) + ".sst");
    Check(writer.Open(paths.back()), "open " + paths.back());
    for (uint64_t i = begin; i < end; ++i) {
      Check(writer.Put(Key(i), values.Get(i)), "put into " + paths.back());
    }
    Check(writer.Finish(), "finish " + paths.back());
  }
  return paths;
}

void Verify(DB* db, const Values& values) {
  const int64_t samples = std::min<int64_t>(FLAGS_verify, FLAGS_num);
  std::string value;
  for (int64_t s = 0; s < samples; ++s) {
    const uint64_t i = FLAGS_num * s / samples;
    Check(db->Get(ReadOptions(), Key(i), &value),
          "get key " + std::to_string(i));
    if (Slice(value) != values.Get(i)) {
      Check(Status::Corruption("wrong value"), "key " + std::to_string(i));
    }
  }
  std::printf("verified %" PRId64 " keys\n", samples);
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Time SstFileWriter + IngestExternalFile with a table factory");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_db.empty() || FLAGS_num < 1 || FLAGS_key_size < 8 ||
      FLAGS_value_size < 0 || FLAGS_files < 1) {
    std::fprintf(stderr,
                 "ingest_bench: need --db, --num >= 1, --key_size >= 8, "
                 "--value_size >= 0, --files >= 1\n");
    return 2;
  }
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  const Options options = MakeOptions();
  std::printf("ingest_bench: %" PRId64
              " keys (%d+%d bytes) in %d files, table factory %s\n",
              FLAGS_num, FLAGS_key_size, FLAGS_value_size, FLAGS_files,
              options.table_factory->Name());

  Check(ROCKSDB_NAMESPACE::DestroyDB(FLAGS_db, options), "destroy " + FLAGS_db);
  DB* raw = nullptr;
  Check(rocksdb_cuckoo::OpenDB(options, FLAGS_db, &raw), "open " + FLAGS_db);
  std::unique_ptr<DB> db(raw);
  const std::string dir = FLAGS_db + "-sst";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const Values values;

  Clock::time_point start = Clock::now();
  const std::vector<std::string> paths = WriteFiles(options, dir, values);
  const double write_s = SecondsSince(start);
  std::printf("write: %.3f s, %.0f keys/s\n", write_s, FLAGS_num / write_s);
  std::fflush(stdout);

  IngestExternalFileOptions ingest;
  ingest.move_files = true;
  start = Clock::now();
  Check(db->IngestExternalFile(paths, ingest), "ingest");
  const double ingest_s = SecondsSince(start);
  std::printf("ingest: %.3f s, %.0f keys/s\n", ingest_s, FLAGS_num / ingest_s);

  Verify(db.get(), values);
  Check(db->Close(), "close");
  std::filesystem::remove_all(dir);
  return 0;
}
