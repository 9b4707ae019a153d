// MemTableRep-level micro-benchmarks (Google Benchmark): the striped_hash
// rep against RocksDB's skip list rep on the same entries, without a DB
// around them, so the memtable's own cost is what is timed.
//
//   Fill       insert N random 16-byte keys with 100-byte values (1.6
//              versions per key on average, as db_bench fillrandom makes)
//   FullScan   what a flush does: make an iterator, SeekToFirst, Next to the
//              end reading every key and value. For striped_hash the cached
//              sorted view is dropped first, so every scan pays for the sort.
//   Get        point lookups of present keys through MemTableRep::Get
//   SeekAfterInserts
//              k entries inserted (not timed), then a new iterator seeks to a
//              random key and reads 10 more: iterators made while writes
//              continue, as db_bench seekrandomwhilewriting makes them,
//              without a DB around (striped_hash renews its sorted view for
//              each; the skip list paid for order in the inserts)
//   ConcurrentFill
//              N entries inserted by 1 to 16 threads sharing one rep
//              (InsertKeyConcurrently, as RocksDB's concurrent memtable
//              writes do), keys drawn from N keys at every thread count:
//              how the rep itself scales, without RocksDB's write path
//
//   build/db_bench_ext/memtable_rep_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
//
// N defaults to 460000 entries, a ~64 MiB memtable (MEMTABLE_REP_BENCH_N).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/lookup_key.h"
#include "db/memtable.h"
#include "memory/concurrent_arena.h"
#include "memtable/striped_hash_memtable.h"
#include "rocksdb/memtablerep.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr size_t kKeySize = 16;
constexpr size_t kValueSize = 100;

size_t NumEntries() {
  const char* n = getenv("MEMTABLE_REP_BENCH_N");
  return n != nullptr ? strtoull(n, nullptr, 10) : 460000;
}

// db_bench's key layout: the key number big-endian in the first 8 bytes.
std::string KeyOf(uint64_t k) {
  std::string key(kKeySize, '0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>(k >> (56 - 8 * i));
  return key;
}

std::unique_ptr<MemTableRepFactory> NewFactory(int which) {
  if (which == 0) return std::make_unique<SkipListFactory>();
  return std::make_unique<StripedHashMemTableFactory>();
}

// A filled memtable rep with what MemTable would give it.
struct Table {
  explicit Table(int which)
      : factory(NewFactory(which)),
        comparator(InternalKeyComparator(BytewiseComparator())),
        rep(factory->CreateMemTableRep(comparator, &arena, nullptr, nullptr)) {}

  void Fill(size_t n, uint64_t seed) { Insert(0, n, n, seed, false, &keys); }

  // Inserts entries begin..end-1 (their sequence numbers), keys drawn from
  // [0, key_space), appending them to *drawn when given.
  void Insert(size_t begin, size_t end, size_t key_space, uint64_t seed,
              bool concurrently, std::vector<uint64_t>* drawn) {
    std::mt19937_64 random(seed);
    std::string entry;
    for (size_t i = begin; i < end; ++i) {
      const uint64_t k = random() % key_space;
      if (drawn != nullptr) drawn->push_back(k);
      entry.clear();
      const std::string user_key = KeyOf(k);
      PutVarint32(&entry, static_cast<uint32_t>(kKeySize + 8));
      entry += user_key;
      PutFixed64(&entry, PackSequenceAndType(i + 1, kTypeValue));
      PutVarint32(&entry, kValueSize);
      entry.append(kValueSize, static_cast<char>('a' + i % 26));
      char* buf = nullptr;
      KeyHandle handle = rep->Allocate(entry.size(), &buf);
      memcpy(buf, entry.data(), entry.size());
      if (concurrently) {
        rep->InsertKeyConcurrently(handle);
      } else {
        rep->InsertKey(handle);
      }
    }
  }

  std::unique_ptr<MemTableRepFactory> factory;
  MemTable::KeyComparator comparator;
  // RocksDB's arena block size for write buffers of 8 MiB and more.
  ConcurrentArena arena{1 << 20};
  std::unique_ptr<MemTableRep> rep;
  std::vector<uint64_t> keys;
};

const char* RepName(int which) {
  return which == 0 ? "skip_list" : "striped_hash";
}

void BM_Fill(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const size_t n = NumEntries();
  for (auto _ : state) {
    auto table = std::make_unique<Table>(which);
    table->Fill(n, 1);
    benchmark::DoNotOptimize(table->rep.get());
    state.PauseTiming();  // freeing the arena is not the insert's cost
    table.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.SetLabel(RepName(which));
}

Table* SharedTable(int which) {
  static Table* tables[2] = {nullptr, nullptr};
  if (tables[which] == nullptr) {
    tables[which] = new Table(which);
    tables[which]->Fill(NumEntries(), 1);
  }
  return tables[which];
}

void BM_FullScan(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  Table* table = SharedTable(which);
  size_t entries = 0;
  for (auto _ : state) {
    // Drop the cached sorted view: every scan sorts, like a first flush.
    table->rep->MarkFlushed();
    std::unique_ptr<MemTableRep::Iterator> iter(table->rep->GetIterator());
    uint64_t sum = 0;
    entries = 0;
    for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
      // A flush reads the whole entry: key length, key and value.
      const char* e = iter->key();
      sum +=
          static_cast<unsigned char>(e[1]) +
          static_cast<unsigned char>(e[1 + kKeySize + 8 + 1 + kValueSize - 1]);
      ++entries;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * entries));
  state.SetLabel(RepName(which));
}

void BM_Get(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  Table* table = SharedTable(which);
  std::mt19937_64 random(2);
  size_t found = 0;
  for (auto _ : state) {
    const uint64_t k = table->keys[random() % table->keys.size()];
    LookupKey lookup(KeyOf(k), kMaxSequenceNumber);
    table->rep->Get(lookup, &found, [](void* arg, const char*) {
      ++*static_cast<size_t*>(arg);
      return false;
    });
  }
  if (found != static_cast<size_t>(state.iterations())) {
    state.SkipWithError("a present key was not found");
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetLabel(RepName(which));
}

void BM_SeekAfterInserts(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const size_t k = static_cast<size_t>(state.range(1));
  const size_t n = NumEntries();
  Table table(which);
  table.Fill(n, 1);
  std::mt19937_64 random(3);
  size_t next_entry = n;
  size_t read = 0;
  // striped_hash sorts the whole memtable for its first iterator; what is
  // timed is renewing that view after inserts.
  std::unique_ptr<MemTableRep::Iterator>(table.rep->GetIterator());
  for (auto _ : state) {
    // The skip list pays for order when inserting, striped_hash when the
    // iterator is made: timed is the iterator's side alone.
    state.PauseTiming();
    table.Insert(next_entry, next_entry + k, n, next_entry, false, nullptr);
    next_entry += k;
    state.ResumeTiming();
    std::unique_ptr<MemTableRep::Iterator> iter(table.rep->GetIterator());
    LookupKey target(KeyOf(random() % n), kMaxSequenceNumber);
    iter->Seek(target.internal_key(), target.memtable_key().data());
    for (int i = 0; i < 10 && iter->Valid(); ++i, iter->Next()) ++read;
  }
  if (read == 0) state.SkipWithError("no seek found an entry");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetLabel(RepName(which));
}

// One rep shared by every thread of a ConcurrentFill run.
Table* concurrent_table = nullptr;

void NewConcurrentTable(const benchmark::State& state) {
  concurrent_table = new Table(static_cast<int>(state.range(0)));
}

void DeleteConcurrentTable(const benchmark::State&) {
  delete concurrent_table;
  concurrent_table = nullptr;
}

void BM_ConcurrentFill(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const size_t n = NumEntries();
  const size_t threads = static_cast<size_t>(state.threads());
  const size_t index = static_cast<size_t>(state.thread_index());
  const size_t begin = n * index / threads;
  const size_t end = n * (index + 1) / threads;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    concurrent_table->Insert(begin, end, n, index + 1, true, nullptr);
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  // Google Benchmark's own time column is per iteration with every thread's
  // iteration counted (the wall time divided by the thread count). These
  // average each thread's time from the common start to its end: the wall
  // time of all N entries while there are no more threads than CPUs.
  state.counters["wall_ms"] =
      benchmark::Counter(seconds * 1e3, benchmark::Counter::kAvgThreads);
  state.counters["Mentries_per_s"] = benchmark::Counter(
      static_cast<double>(n) / seconds / 1e6, benchmark::Counter::kAvgThreads);
  state.SetLabel(RepName(which));
}

BENCHMARK(BM_Fill)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_FullScan)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Get)->Arg(0)->Arg(1);
// A fixed count, so that every run grows the memtable alike.
BENCHMARK(BM_SeekAfterInserts)
    ->ArgsProduct({{0, 1}, {1, 16, 160}})
    ->Iterations(3000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConcurrentFill)
    ->Arg(0)
    ->Arg(1)
    ->ThreadRange(1, 16)
    ->UseRealTime()
    ->Iterations(1)
    ->Setup(NewConcurrentTable)
    ->Teardown(DeleteConcurrentTable)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rocksdb_cuckoo

int main(int argc, char** argv) {
  // Arena blocks mapped afresh and unmapped when freed, in every run: with
  // malloc's adaptive threshold, runs after the first reused memory the
  // first had faulted in, so the first (skip_list, 1 thread) paid for
  // faults the others did not (5x its time on a gVisor VM).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
