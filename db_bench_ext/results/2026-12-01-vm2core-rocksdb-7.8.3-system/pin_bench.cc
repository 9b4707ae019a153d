// One-off: what pinning a value costs per key, 16 pins one by one
// (PinnedFileMemory::PinTo) against one batch of 16 (PinnedFileMemory::Pins,
// as MultiGet pins a group), each then released. Built against the release
// build's library, run on one CPU:
//   INC="-I. -I.deps/rocksdb-src -I.deps/rocksdb-src/include
//        -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DOS_LINUX"
//   g++ -O2 -std=c++17 $INC pin_bench.cc build/librocksdb_cuckoo.a -lrocksdb
//       -lbenchmark -lpthread -o pin_bench && taskset -c 1 ./pin_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include "file/random_access_file_reader.h"
#include "rocksdb/cleanable.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "table/pinned_file_memory.h"
using namespace ROCKSDB_NAMESPACE;
using rocksdb_cuckoo::PinnedFileMemory;
static PinnedFileMemory* Open() {
  std::string path = "/tmp/pin_bench_file";
  WriteStringToFile(Env::Default(), std::string(4096, 'v'), path);
  std::unique_ptr<FSRandomAccessFile> file;
  FileSystem::Default()->NewRandomAccessFile(path, FileOptions(), &file,
                                             nullptr);
  PinnedFileMemory* m = nullptr;
  PinnedFileMemory::Open(
      std::make_unique<RandomAccessFileReader>(std::move(file), path), 4096,
      ReadOptions(), false, &m);
  return m;
}
static void BM_PinEach(benchmark::State& st) {
  PinnedFileMemory* m = Open();
  Cleanable c[16];
  for (auto _ : st) {
    for (auto& x : c) m->PinTo(&x);
    for (auto& x : c) x.Reset();
  }
  st.SetItemsProcessed(st.iterations() * 16);
}
static void BM_PinBatch(benchmark::State& st) {
  PinnedFileMemory* m = Open();
  Cleanable c[16];
  for (auto _ : st) {
    {
      PinnedFileMemory::Pins p(m, 16);
      for (auto& x : c) p.PinTo(&x);
    }
    for (auto& x : c) x.Reset();
  }
  st.SetItemsProcessed(st.iterations() * 16);
}
BENCHMARK(BM_PinEach)->Repetitions(7)->ReportAggregatesOnly(true);
BENCHMARK(BM_PinBatch)->Repetitions(7)->ReportAggregatesOnly(true);
BENCHMARK_MAIN();
