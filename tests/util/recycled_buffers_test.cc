// RecycledBuffers: a given buffer is handed to the next request it fits,
// never one too large or of another alignment, and the pool stays within
// its bound and lets go of what nobody takes.
#include "util/recycled_buffers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>

namespace rocksdb_cuckoo {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

class RecycledBuffersTest : public ::testing::Test {
 protected:
  RecycledBuffersTest() : pool_(MakeLimits(), [this] { return now_; }) {}

  static RecycledBuffers::Limits MakeLimits() {
    RecycledBuffers::Limits limits;
    limits.min_buffer_bytes = 64 << 10;
    limits.max_pooled_bytes = 8 * kMiB;
    limits.max_idle_micros = 1000;
    return limits;
  }

  char* Take(size_t size, size_t align, size_t* capacity) {
    char* buffer = pool_.Take(size, align, capacity);
    EXPECT_NE(buffer, nullptr);
    EXPECT_GE(*capacity, size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % align, 0u);
    memset(buffer, 0x5a, *capacity);  // all of it is usable
    return buffer;
  }

  uint64_t now_ = 0;
  RecycledBuffers pool_;
};

TEST_F(RecycledBuffersTest, AGivenBufferServesTheNextRequestItFits) {
  size_t capacity;
  char* first = Take(4 * kMiB, 2 * kMiB, &capacity);
  EXPECT_EQ(capacity, 4 * kMiB);
  pool_.Give(first, capacity, 2 * kMiB);
  EXPECT_EQ(pool_.pooled_bytes(), 4 * kMiB);

  // Larger than asked, but less than twice: handed on, with its own
  // capacity.
  size_t again;
  EXPECT_EQ(Take(2 * kMiB + 4096, 2 * kMiB, &again), first);
  EXPECT_EQ(again, 4 * kMiB);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
  pool_.Give(first, again, 2 * kMiB);
}

TEST_F(RecycledBuffersTest, TakesBuffersFromAlignedAlloc) {
  char* buffer = static_cast<char*>(aligned_alloc(64, 3 * kMiB));
  ASSERT_NE(buffer, nullptr);
  memset(buffer, 1, 3 * kMiB);
  pool_.Give(buffer, 3 * kMiB, 64);
  size_t capacity;
  EXPECT_EQ(Take(3 * kMiB, 64, &capacity), buffer);
  pool_.Give(buffer, capacity, 64);
}

TEST_F(RecycledBuffersTest, NeverOneTooLargeOrOfAnotherAlignment) {
  size_t capacity;
  char* big = Take(4 * kMiB, 2 * kMiB, &capacity);
  pool_.Give(big, capacity, 2 * kMiB);

  size_t small_capacity;
  char* small = Take(2 * kMiB, 2 * kMiB, &small_capacity);  // 4 = 2 * 2
  EXPECT_NE(small, big);
  EXPECT_EQ(small_capacity, 2 * kMiB);
  size_t other_capacity;
  char* other = Take(4 * kMiB, 64, &other_capacity);
  EXPECT_NE(other, big);
  EXPECT_EQ(pool_.pooled_bytes(), 4 * kMiB);

  // The smallest that fits wins.
  pool_.Give(small, small_capacity, 2 * kMiB);
  size_t fit;
  EXPECT_EQ(Take(2 * kMiB, 2 * kMiB, &fit), small);
  pool_.Give(small, fit, 2 * kMiB);
  pool_.Give(other, other_capacity, 64);
}

TEST_F(RecycledBuffersTest, SmallAndHugeBuffersAreNotPooled) {
  size_t capacity;
  char* small = Take(1000, 64, &capacity);
  pool_.Give(small, capacity, 64);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
  char* huge = Take(9 * kMiB, 64, &capacity);  // over max_pooled_bytes
  pool_.Give(huge, capacity, 64);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
}

TEST_F(RecycledBuffersTest, ThePoolKeepsTheNewestWithinItsBound) {
  // The bound is 8 MiB: of five 2 MiB buffers, the four given last stay.
  char* buffers[5];
  size_t capacity[5];
  for (int i = 0; i < 5; i++) buffers[i] = Take(2 * kMiB, 64, &capacity[i]);
  for (int i = 0; i < 5; i++) pool_.Give(buffers[i], capacity[i], 64);
  EXPECT_EQ(pool_.pooled_bytes(), 8 * kMiB);
  const std::set<char*> kept(buffers + 1, buffers + 5);
  for (int i = 1; i < 5; i++) {
    buffers[i] = Take(2 * kMiB, 64, &capacity[i]);
    EXPECT_EQ(kept.count(buffers[i]), 1u) << i;
  }
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
  for (int i = 1; i < 5; i++) pool_.Give(buffers[i], capacity[i], 64);
}

TEST_F(RecycledBuffersTest, WhatNobodyTakesIsFreedOnceIdle) {
  size_t capacity;
  char* buffer = Take(2 * kMiB, 64, &capacity);
  pool_.Give(buffer, capacity, 64);
  now_ += 1000;  // not yet past max_idle_micros
  size_t other_capacity;
  char* other = Take(8 * kMiB, 64, &other_capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 2 * kMiB);
  now_ += 1;
  pool_.Give(other, other_capacity, 64);
  EXPECT_EQ(pool_.pooled_bytes(), 8 * kMiB);
}

TEST(RecycledBuffersIdleTest, ItsThreadFreesWhatNobodyTakes) {
  RecycledBuffers::Limits limits;
  limits.max_idle_micros = 20 * 1000;
  limits.trim_when_idle = true;
  RecycledBuffers pool(limits, RecycledBuffers::SteadyClockMicros);
  size_t capacity;
  char* buffer = pool.Take(4 * kMiB, 64, &capacity);
  ASSERT_NE(buffer, nullptr);
  pool.Give(buffer, capacity, 64);
  EXPECT_EQ(pool.pooled_bytes(), 4 * kMiB);
  // No Take or Give after this: only the pool's thread can free it.
  for (int i = 0; i < 1000 && pool.pooled_bytes() > 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

}  // namespace
}  // namespace rocksdb_cuckoo
