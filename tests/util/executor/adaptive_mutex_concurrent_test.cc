// AdaptiveMutex: excludes as a mutex must (no update under it is lost while
// threads contend), and try_lock fails while another thread holds it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "util/executor/adaptive_mutex.h"

namespace rocksdb_cuckoo {
namespace {

TEST(AdaptiveMutexTest, NoUpdateIsLostUnderContention) {
  AdaptiveMutex mu;
  // Not atomic: a lapse in exclusion loses increments.
  uint64_t count = 0;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        std::lock_guard<AdaptiveMutex> lock(mu);
        const uint64_t seen = count;
        // Widen the window between read and write.
        std::atomic_signal_fence(std::memory_order_seq_cst);
        count = seen + 1;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(count, uint64_t{kThreads} * kPerThread);
}

TEST(AdaptiveMutexTest, TryLockFailsWhileHeldElsewhere) {
  AdaptiveMutex mu;
  std::unique_lock<AdaptiveMutex> held(mu);
  bool taken = true;
  std::thread other([&] { taken = mu.try_lock(); });
  other.join();
  EXPECT_FALSE(taken);
  held.unlock();
  std::thread again([&] {
    taken = mu.try_lock();
    if (taken) mu.unlock();
  });
  again.join();
  EXPECT_TRUE(taken);
}

}  // namespace
}  // namespace rocksdb_cuckoo
