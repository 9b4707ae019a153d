// RecycledBuffers from many threads while its own thread frees idle
// buffers: no buffer, nor any unit moved into another, is handed to two
// holders at once, and none is lost.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "util/recycled_buffers.h"

namespace rocksdb_cuckoo {
namespace {

#ifdef CUCKOO_SANITIZED
constexpr int kRoundsPerThread = 300;
#else
constexpr int kRoundsPerThread = 3000;
#endif

TEST(RecycledBuffersConcurrentTest, EveryBufferHasOneHolderAtATime) {
  RecycledBuffers::Limits limits;
  limits.unit_bytes = 4096;  // requests of 1 to 8 units: many put together
  limits.min_buffer_bytes = 4096;
  limits.max_pooled_bytes = 1 << 20;
  limits.max_idle_micros = 200;  // the trimming thread runs all along
  limits.trim_when_idle = true;
  RecycledBuffers pool(limits, RecycledBuffers::SteadyClockMicros);
  constexpr int kThreads = 4;
  std::atomic<int> overwritten{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRoundsPerThread; round++) {
        const size_t size = 4096 * (1 + (round + t) % 8);
        size_t capacity;
        char* buffer = pool.Take(size, 64, &capacity);
        ASSERT_NE(buffer, nullptr);
        // A buffer someone else also holds would see its mark change.
        memset(buffer, t + 1, capacity);
        std::this_thread::yield();
        for (size_t i = 0; i < capacity; i += 512) {
          if (buffer[i] != t + 1) overwritten++;
        }
        pool.Give(buffer, capacity);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(overwritten.load(), 0);
  EXPECT_LE(pool.pooled_bytes(), limits.max_pooled_bytes);
}

}  // namespace
}  // namespace rocksdb_cuckoo
