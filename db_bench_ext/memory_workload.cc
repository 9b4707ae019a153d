// memory_workload: one write+read workload in this process, then the memory
// report. db_bench_ext/memory_mode.sh runs it in a fresh
// process per allocator setting (glibc, jemalloc with several MALLOC_CONFs,
// our arena allocator for the block cache) and compares the runs.
//
//   memory_workload --config=stock --cache_allocator=arena --csv=x.csv
//
// 1. Load: --num keys in random order, values of random length in
//    [--value_min, --value_max], WAL off; flush.
// 2. Mixed: --threads threads run --ops operations in all, --get_percent
//    Gets of random keys (found or not) and Puts that overwrite keys with
//    values of a new random length, so memtables, flushes, compactions and
//    the block cache keep allocating and freeing blocks of many sizes.
// 3. Report: once flushes and compactions are done, the memory report (RSS,
//    peak RSS over the whole run, allocator statistics, fragmentation =
//    RSS / allocated - 1) taken with the DB still open, and
//    the RSS the process had before opening the DB (code and libraries).
// Configurations: `stock` is BlockBasedTable (bloom filter) with the skip
// list memtable; `ours` is CuckooHashTable (files loaded into memory, not
// mapped, so their bytes count as allocated) with the striped_hash memtable
// when it is registered. Both have the block cache (--block_cache_mb), which
// only BlockBasedTable reads through.
#include <gflags/gflags.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cache/jemalloc_arena_allocator.h"
#include "cache/jemalloc_runtime.h"
#include "tests/support/memory_report.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"

DEFINE_string(config, "stock",
              "stock (BlockBasedTable, skip list) or ours (CuckooHashTable, "
              "striped_hash memtable when registered).");
DEFINE_string(cache_allocator, "malloc",
              "Block cache memory: malloc, or arena (JemallocArenaAllocator; "
              "needs the process on jemalloc).");
DEFINE_string(arena_options, "",
              "Options of JemallocArenaAllocator, e.g. \"dontdump=true\".");
DEFINE_string(label, "", "Name of the allocator setting, for the CSV.");
DEFINE_int64(num, 200000, "Keys loaded.");
DEFINE_int32(value_min, 64, "Shortest value, bytes.");
DEFINE_int32(value_max, 512, "Longest value, bytes.");
DEFINE_int64(ops, 400000, "Operations of the mixed phase, all threads.");
DEFINE_int32(threads, 4, "Threads of the mixed phase.");
DEFINE_int32(get_percent, 90, "Share of Gets in the mixed phase.");
DEFINE_int32(block_cache_mb, 16, "Block cache capacity.");
DEFINE_int32(write_buffer_mb, 8, "write_buffer_size.");
DEFINE_string(db, "/tmp/memory_workload", "DB folder (destroyed first).");
DEFINE_string(csv, "", "Append one row (header if the file is new).");
DEFINE_uint64(seed, 7, "Seed of the key order and value lengths.");

namespace {

using namespace ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;

void Check(const Status& s, const std::string& what) {
  if (s.ok()) return;
  fprintf(stderr, "memory_workload: %s: %s\n", what.c_str(),
          s.ToString().c_str());
  exit(1);
}

// CPU seconds of the whole process (every thread, user and system). On a
// shared machine ops per CPU second is steadier than ops per wall second.
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Fixed-width keys of a permuted index, so the load order is random.
std::string Key(uint64_t i) {
  char buf[24];
  snprintf(
      buf, sizeof(buf), "k%015" PRIu64,
      static_cast<uint64_t>((i * 0x9E3779B97F4A7C15ULL) % 1000000000000000ULL));
  return buf;
}

std::string Value(std::mt19937_64* rng, uint64_t i) {
  std::uniform_int_distribution<int> length(FLAGS_value_min, FLAGS_value_max);
  return std::string(length(*rng), static_cast<char>('a' + i % 26));
}

struct Setup {
  Options options;
  std::string memtable = "skiplist";
};

Setup MakeSetup() {
  ConfigOptions strict;
  strict.ignore_unsupported_options = false;
  strict.ignore_unknown_options = false;

  LRUCacheOptions cache_options;
  cache_options.capacity = static_cast<size_t>(FLAGS_block_cache_mb) << 20;
  if (FLAGS_cache_allocator == "arena") {
    std::string text = "id=JemallocArenaAllocator";
    if (!FLAGS_arena_options.empty()) text += ";" + FLAGS_arena_options;
    Check(MemoryAllocator::CreateFromString(strict, text,
                                            &cache_options.memory_allocator),
          "block cache allocator " + text);
  } else if (FLAGS_cache_allocator != "malloc") {
    Check(Status::InvalidArgument("--cache_allocator", FLAGS_cache_allocator),
          "flags");
  }

  Setup setup;
  Options& options = setup.options;
  options.create_if_missing = true;
  options.compression = kNoCompression;
  options.write_buffer_size = static_cast<size_t>(FLAGS_write_buffer_mb) << 20;
  options.max_background_jobs = 2;
  if (FLAGS_config == "stock") {
    BlockBasedTableOptions table;
    table.block_cache = NewLRUCache(cache_options);
    table.filter_policy.reset(NewBloomFilterPolicy(10));
    options.table_factory.reset(NewBlockBasedTableFactory(table));
  } else if (FLAGS_config == "ours") {
    Check(TableFactory::CreateFromString(strict, "CuckooHashTable",
                                         &options.table_factory),
          "table_factory");
    // Loaded into the heap: its bytes are then part of `allocated`.
    options.allow_mmap_reads = false;
    std::shared_ptr<MemTableRepFactory> memtable;
    if (MemTableRepFactory::CreateFromString(strict, "striped_hash", &memtable)
            .ok() &&
        memtable != nullptr) {
      options.memtable_factory = memtable;
      setup.memtable = "striped_hash";
    }
  } else {
    Check(Status::InvalidArgument("--config", FLAGS_config), "flags");
  }
  return setup;
}

// Waits until no flush or compaction runs or is due, so that the report
// sees the DB at rest rather than half-way through building a file.
void WaitForBackgroundWork(DB* db) {
  const char* properties[] = {
      "rocksdb.num-running-flushes", "rocksdb.num-running-compactions",
      "rocksdb.mem-table-flush-pending", "rocksdb.compaction-pending"};
  for (bool busy = true; busy;) {
    busy = false;
    for (const char* property : properties) {
      uint64_t value = 0;
      busy |= db->GetIntProperty(property, &value) && value != 0;
    }
    if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// jemalloc's view of the settings MALLOC_CONF asked for, so a typo there
// (which jemalloc only warns about) shows in the results.
std::string JemallocSettings() {
  const rocksdb_cuckoo::JemallocApi* je = rocksdb_cuckoo::FindJemalloc(nullptr);
  if (je == nullptr || !je->owns_malloc) return "-";
  bool background = false;
  const char* metadata_thp = "?";
  rocksdb_cuckoo::MallctlRead(*je, "opt.background_thread", &background)
      .PermitUncheckedError();
  rocksdb_cuckoo::MallctlRead(*je, "opt.metadata_thp", &metadata_thp)
      .PermitUncheckedError();
  return std::string("background_thread=") + (background ? "1" : "0") +
         " metadata_thp=" + metadata_thp;
}

void AppendCsv(const std::vector<std::pair<std::string, std::string>>& row) {
  const bool fresh = !std::ifstream(FLAGS_csv).good();
  std::ofstream out(FLAGS_csv, std::ios::app);
  for (size_t i = 0; fresh && i < row.size(); ++i) {
    out << row[i].first << (i + 1 < row.size() ? "," : "\n");
  }
  for (size_t i = 0; i < row.size(); ++i) {
    out << row[i].second << (i + 1 < row.size() ? "," : "\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("write+read workload, then the memory report");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  // What the process holds before the DB: code, libraries, allocator setup.
  rocksdb_cuckoo::MemoryReport initial;
  Check(rocksdb_cuckoo::GetMemoryReport(&initial), "memory report");

  Setup setup = MakeSetup();
  Check(DestroyDB(FLAGS_db, setup.options), "DestroyDB");
  DB* raw = nullptr;
  Check(rocksdb_cuckoo::OpenDB(setup.options, FLAGS_db, &raw), "DB::Open");
  std::unique_ptr<DB> db(raw);
  WriteOptions write_options;
  write_options.disableWAL = true;

  const double cpu_start = CpuSeconds();
  const auto load_start = Clock::now();
  std::mt19937_64 rng(FLAGS_seed);
  for (int64_t i = 0; i < FLAGS_num; ++i) {
    Check(db->Put(write_options, Key(i), Value(&rng, i)), "Put");
  }
  Check(db->Flush(FlushOptions()), "Flush");
  const double load_seconds = SecondsSince(load_start);

  std::atomic<int64_t> found{0};
  const auto mixed_start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < FLAGS_threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 thread_rng(FLAGS_seed * 1000 + t);
      std::uniform_int_distribution<int64_t> key(0, FLAGS_num * 5 / 4);
      std::uniform_int_distribution<int> percent(0, 99);
      std::string value;
      int64_t hits = 0;
      for (int64_t n = t; n < FLAGS_ops; n += FLAGS_threads) {
        const int64_t i = key(thread_rng);
        if (percent(thread_rng) < FLAGS_get_percent) {
          Status s = db->Get(ReadOptions(), Key(i), &value);
          if (!s.ok() && !s.IsNotFound()) Check(s, "Get");
          hits += s.ok();
        } else {
          Check(db->Put(write_options, Key(i), Value(&thread_rng, i)), "Put");
        }
      }
      found += hits;
    });
  }
  for (auto& thread : threads) thread.join();
  const double mixed_seconds = SecondsSince(mixed_start);
  const double cpu_seconds = CpuSeconds() - cpu_start;

  WaitForBackgroundWork(db.get());
  rocksdb_cuckoo::MemoryReport report;
  Check(rocksdb_cuckoo::GetMemoryReport(&report), "memory report");
  Check(db->Close(), "Close");
  db.reset();
  Check(DestroyDB(FLAGS_db, setup.options), "DestroyDB");

  const double load_ops = FLAGS_num / load_seconds;
  const double mixed_ops = FLAGS_ops / mixed_seconds;
  const double all_ops =
      (FLAGS_num + FLAGS_ops) / (load_seconds + mixed_seconds);
  printf(
      "memory_workload: config=%s memtable=%s cache_allocator=%s "
      "label=%s jemalloc[%s]\n",
      FLAGS_config.c_str(), setup.memtable.c_str(),
      FLAGS_cache_allocator.c_str(), FLAGS_label.c_str(),
      JemallocSettings().c_str());
  printf("  load %.0f ops/s, mixed %.0f ops/s (%" PRId64
         " found), overall %.0f ops/s, %.0f ops per CPU second\n",
         load_ops, mixed_ops, found.load(), all_ops,
         (FLAGS_num + FLAGS_ops) / cpu_seconds);
  printf("  at start: %s\n  at end:   %s\n", initial.ToString().c_str(),
         report.ToString().c_str());

  if (!FLAGS_csv.empty()) {
    auto mib = [](uint64_t bytes) {
      char buf[32];
      snprintf(buf, sizeof(buf), "%.1f", bytes / 1048576.0);
      return std::string(buf);
    };
    char frag[32];
    snprintf(frag, sizeof(frag), "%.4f", report.fragmentation());
    AppendCsv({{"config", FLAGS_config},
               {"memtable", setup.memtable},
               {"label", FLAGS_label},
               {"cache_allocator", FLAGS_cache_allocator},
               {"malloc", report.allocator},
               {"jemalloc_settings", JemallocSettings()},
               {"load_ops", std::to_string(static_cast<int64_t>(load_ops))},
               {"mixed_ops", std::to_string(static_cast<int64_t>(mixed_ops))},
               {"ops", std::to_string(static_cast<int64_t>(all_ops))},
               {"ops_per_cpu_s", std::to_string(static_cast<int64_t>(
                                     (FLAGS_num + FLAGS_ops) / cpu_seconds))},
               {"initial_rss_mib", mib(initial.rss)},
               {"rss_mib", mib(report.rss)},
               {"peak_rss_mib", mib(report.peak_rss)},
               {"allocated_mib", mib(report.allocated)},
               {"active_mib", mib(report.active)},
               {"mapped_mib", mib(report.mapped)},
               {"metadata_mib", mib(report.metadata)},
               {"resident_mib", mib(report.resident)},
               {"fragmentation", frag}});
  }
  return 0;
}
