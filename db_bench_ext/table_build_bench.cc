// What building one table file costs, without a DB around it: the sorted
// entries of a flush (16-byte keys, 100-byte values, one version each)
// handed to a table builder, Finish(), and the file closed, for our
// CuckooHashTable (slot-ordered, and key-ordered as entries of varied sizes
// are), the built-in CuckooTable and BlockBasedTable (bloom 10
// bits, no compression, RocksDB's anchor for the write side). Files go to
// /dev/shm when it exists, so the figures are the builders' own work.
//
//   table_build_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   [--keys=N, default 200000]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/table_harness.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::TableHarness;

size_t g_keys = 200000;

// Sorted (internal key, value) pairs: keys 0..n-1 as 16 digits, sequence
// numbers from n down, so they sort and look like a flush's.
const std::vector<std::pair<std::string, std::string>>& Entries() {
  static const auto* entries = [] {
    auto* e = new std::vector<std::pair<std::string, std::string>>();
    e->reserve(g_keys);
    for (size_t i = 0; i < g_keys; i++) {
      InternalKey key(testing::NumberedKey(static_cast<int>(i), 16), g_keys - i,
                      kTypeValue);
      e->emplace_back(key.Encode().ToString(),
                      std::string(100, static_cast<char>('a' + i % 26)));
    }
    return e;
  }();
  return *entries;
}

std::string Folder() {
  return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

void BM_Build(benchmark::State& state,
              const std::shared_ptr<TableFactory>& factory, const char* name) {
  const auto& entries = Entries();
  TableHarness table(
      factory,
      Folder() + "/table_build_bench_" + name + "_" + std::to_string(getpid()),
      /*mmap=*/false);
  uint64_t bytes = 0;
  for (auto _ : state) {
    const Status s = table.Write(entries);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    bytes = table.FileSize();
  }
  state.SetItemsProcessed(state.iterations() * entries.size());
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["entry_MB/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * entries.size() * 124) / 1e6,
      benchmark::Counter::kIsRate);
}

void RegisterAll() {
  BlockBasedTableOptions block;
  block.filter_policy.reset(NewBloomFilterPolicy(10));
  const std::pair<const char*, std::shared_ptr<TableFactory>> formats[] = {
      {"CuckooHashTable", NewCuckooHashTableFactory()},
      // The layout of entries of varied sizes.
      {"CuckooHashTableKeyOrdered", NewCuckooHashTableFactory([] {
         CuckooHashTableOptions key_ordered;
         key_ordered.slot_ordered = false;
         return key_ordered;
       }())},
      {"BlockBasedTable",
       std::shared_ptr<TableFactory>(NewBlockBasedTableFactory(block))},
      {"CuckooTable", std::shared_ptr<TableFactory>(NewCuckooTableFactory())},
  };
  for (const auto& f : formats) {
    benchmark::RegisterBenchmark(
        (std::string("Build/") + f.first).c_str(),
        [f](benchmark::State& s) { BM_Build(s, f.second, f.first); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--keys=", 7) == 0) {
      rocksdb_cuckoo::g_keys = strtoull(argv[i] + 7, nullptr, 10);
    }
  }
  rocksdb_cuckoo::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
