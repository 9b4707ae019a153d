// EntrySlabs under concurrent inserts (allow_concurrent_memtable_write):
// threads allocating at once must never receive overlapping memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "memory/concurrent_arena.h"
#include "memtable/entry_slabs.h"

namespace rocksdb_cuckoo {
namespace {

TEST(EntrySlabsConcurrentTest, ThreadsGetDisjointMemory) {
  ROCKSDB_NAMESPACE::ConcurrentArena arena(1u << 20);
  EntrySlabs slabs(&arena, size_t{4} << 20);
  ASSERT_TRUE(slabs.uses_slabs());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  struct Placed {
    char* memory;
    size_t size;
  };
  std::vector<std::vector<Placed>> placed(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Sizes that cross chunk ends at different points per thread.
        const size_t size = 40 + static_cast<size_t>((i * 37 + t * 11) % 400);
        char* memory = slabs.Allocate(size);
        memset(memory, 'a' + t, size);
        placed[t].push_back({memory, size});
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (const Placed& p : placed[t]) {
      for (size_t b = 0; b < p.size; ++b) {
        ASSERT_EQ(p.memory[b], 'a' + t) << "thread " << t;
      }
    }
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
