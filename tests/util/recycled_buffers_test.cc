// RecycledBuffers: given buffers serve later requests of any size, from a
// run that holds them whole or from pooled units moved into one range (the
// pages themselves, contents and all), and the pool stays within its bound
// and lets go of what nobody takes.
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
    limits.unit_bytes = kMiB;
    limits.min_buffer_bytes = 64 << 10;
    limits.max_pooled_bytes = 8 * kMiB;
    limits.max_idle_micros = 1000;
    return limits;
  }

  // Takes a buffer and fills it with `mark`.
  char* Take(size_t size, size_t* capacity, char mark = 0x5a) {
    char* buffer = pool_.Take(size, 64, capacity);
    EXPECT_NE(buffer, nullptr);
    EXPECT_GE(*capacity, size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % 64, 0u);
    memset(buffer, mark, *capacity);  // all of it is usable
    return buffer;
  }

  // Whether every byte of [begin, begin + size) is `mark`.
  static bool AllAre(const char* begin, size_t size, char mark) {
    for (size_t i = 0; i < size; i++) {
      if (begin[i] != mark) return false;
    }
    return true;
  }

  uint64_t now_ = 0;
  RecycledBuffers pool_;
};

TEST_F(RecycledBuffersTest, AGivenBufferServesTheNextRequestItHoldsWhole) {
  size_t capacity;
  char* first = Take(4 * kMiB, &capacity);
  EXPECT_EQ(capacity, 4 * kMiB);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % kMiB, 0u);
  pool_.Give(first, capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 4 * kMiB);

  // Three of its units, the last three; the first stays pooled.
  size_t again;
  char* part = pool_.Take(2 * kMiB + 4096, 64, &again);
  EXPECT_EQ(part, first + kMiB);
  EXPECT_EQ(again, 3 * kMiB);
  EXPECT_EQ(pool_.pooled_bytes(), kMiB);
  pool_.Give(part, again);
}

TEST_F(RecycledBuffersTest, TheSmallestRunThatHoldsItServes) {
  size_t big_capacity, small_capacity;
  char* big = Take(4 * kMiB, &big_capacity);
  char* small = Take(2 * kMiB, &small_capacity);
  pool_.Give(big, big_capacity);
  pool_.Give(small, small_capacity);
  size_t capacity;
  EXPECT_EQ(pool_.Take(2 * kMiB, 64, &capacity), small);
  pool_.Give(small, capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 6 * kMiB);
}

TEST_F(RecycledBuffersTest, ARequestNoRunHoldsIsMadeOfThePooledPages) {
  size_t a_capacity, b_capacity;
  char* a = Take(2 * kMiB, &a_capacity, 'a');
  char* b = Take(2 * kMiB, &b_capacity, 'b');
  pool_.Give(a, a_capacity);
  pool_.Give(b, b_capacity);

  // Five units: the four pooled ones, moved with what they hold (the
  // newest first), and a fresh one, zeros.
  size_t capacity;
  char* joined = pool_.Take(5 * kMiB, 64, &capacity);
  ASSERT_NE(joined, nullptr);
  EXPECT_EQ(capacity, 5 * kMiB);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
  EXPECT_TRUE(AllAre(joined, 2 * kMiB, 'b'));
  EXPECT_TRUE(AllAre(joined + 2 * kMiB, 2 * kMiB, 'a'));
  EXPECT_TRUE(AllAre(joined + 4 * kMiB, kMiB, 0));
  memset(joined, 1, capacity);

  // What was put together goes back and serves again, unit by unit.
  pool_.Give(joined, capacity);
  size_t one;
  char* unit = pool_.Take(kMiB, 64, &one);
  EXPECT_EQ(unit, joined + 4 * kMiB);
  EXPECT_TRUE(AllAre(unit, kMiB, 1));
  pool_.Give(unit, one);
  size_t all;
  char* again = pool_.Take(5 * kMiB, 64, &all);
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(AllAre(again, 5 * kMiB, 1));
  pool_.Free(again, all);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
}

TEST_F(RecycledBuffersTest, FreshBuffersAndFreedOnesLeaveThePoolAlone) {
  size_t capacity;
  char* pooled = Take(2 * kMiB, &capacity, 'p');
  pool_.Give(pooled, capacity);
  size_t fresh_capacity;
  char* fresh = pool_.TakeFresh(2 * kMiB, 64, &fresh_capacity);
  ASSERT_NE(fresh, nullptr);
  EXPECT_NE(fresh, pooled);
  EXPECT_TRUE(AllAre(fresh, fresh_capacity, 0));
  EXPECT_EQ(pool_.pooled_bytes(), 2 * kMiB);
  pool_.Free(fresh, fresh_capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 2 * kMiB);
}

TEST_F(RecycledBuffersTest, SmallAndHugeBuffersAreNotPooled) {
  size_t capacity;
  char* small = Take(1000, &capacity);
  pool_.Give(small, capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
  char* huge = Take(9 * kMiB, &capacity);  // over max_pooled_bytes
  pool_.Give(huge, capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
}

TEST_F(RecycledBuffersTest, ThePoolKeepsTheNewestWithinItsBound) {
  // The bound is 8 MiB: of five 2 MiB buffers, the four given last stay.
  char* buffers[5];
  size_t capacity[5];
  for (int i = 0; i < 5; i++) buffers[i] = Take(2 * kMiB, &capacity[i]);
  for (int i = 0; i < 5; i++) pool_.Give(buffers[i], capacity[i]);
  EXPECT_EQ(pool_.pooled_bytes(), 8 * kMiB);
  const std::set<char*> kept(buffers + 1, buffers + 5);
  for (int i = 1; i < 5; i++) {
    buffers[i] = Take(2 * kMiB, &capacity[i]);
    EXPECT_EQ(kept.count(buffers[i]), 1u) << i;
  }
  EXPECT_EQ(pool_.pooled_bytes(), 0u);
  for (int i = 1; i < 5; i++) pool_.Give(buffers[i], capacity[i]);
}

TEST_F(RecycledBuffersTest, WhatNobodyTakesIsFreedOnceIdle) {
  size_t capacity;
  char* buffer = Take(2 * kMiB, &capacity);
  pool_.Give(buffer, capacity);
  now_ += 1000;  // not yet past max_idle_micros
  size_t other_capacity;
  char* other = pool_.TakeFresh(8 * kMiB, 64, &other_capacity);
  memset(other, 1, other_capacity);
  EXPECT_EQ(pool_.pooled_bytes(), 2 * kMiB);
  now_ += 1;
  pool_.Give(other, other_capacity);
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
  memset(buffer, 1, capacity);
  pool.Give(buffer, capacity);
  EXPECT_EQ(pool.pooled_bytes(), 4 * kMiB);
  // No Take or Give after this: only the pool's thread can free it.
  for (int i = 0; i < 1000 && pool.pooled_bytes() > 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

}  // namespace
}  // namespace rocksdb_cuckoo
