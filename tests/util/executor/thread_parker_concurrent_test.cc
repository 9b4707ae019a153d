// ThreadParker: a Park sleeps until an Unpark, and an Unpark that comes
// first is remembered, so no wake-up is ever lost.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "util/executor/thread_parker.h"

namespace rocksdb_cuckoo {
namespace {

using namespace std::chrono_literals;

TEST(ThreadParkerTest, AnUnparkBeforeTheParkIsRemembered) {
  ThreadParker parker;
  const auto start = std::chrono::steady_clock::now();
  parker.Unpark();
  parker.Park();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

// A Park on another thread must still be asleep 50 ms later, and wake on
// the next Unpark.
void ExpectParkSleepsUntilUnpark(ThreadParker* parker) {
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    parker->Park();
    woke = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(woke.load());
  parker->Unpark();
  sleeper.join();
  EXPECT_TRUE(woke.load());
}

TEST(ThreadParkerTest, ParkSleepsUntilUnpark) {
  ThreadParker parker;
  ExpectParkSleepsUntilUnpark(&parker);
}

TEST(ThreadParkerTest, UnparksDoNotAccumulate) {
  ThreadParker parker;
  parker.Unpark();
  parker.Unpark();
  parker.Park();  // takes the one remembered wake-up
  ExpectParkSleepsUntilUnpark(&parker);
}

TEST(ThreadParkerTest, NoWakeUpIsLostInAPingPong) {
  // Each side parks until the other unparks it; a lost wake-up hangs (and
  // the test times out).
  constexpr int kRounds = 20000;
  ThreadParker ping;
  ThreadParker pong;
  std::atomic<int> turns{0};
  std::thread other([&] {
    for (int i = 0; i < kRounds; ++i) {
      ping.Park();
      turns.fetch_add(1, std::memory_order_relaxed);
      pong.Unpark();
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    ping.Unpark();
    pong.Park();
  }
  other.join();
  EXPECT_EQ(turns.load(), kRounds);
}

}  // namespace
}  // namespace rocksdb_cuckoo
