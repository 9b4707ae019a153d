// TscSteadyClock: from several threads at once, every reading lies between
// a steady-clock reading taken before it and one taken after it plus the
// few microseconds it may run ahead; it does extrapolate from the counter
// where the kernel keeps time with it; and a wake time computed from it is
// never before the delay asked for.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "util/executor/tsc_steady_clock.h"
#include "util/executor/wake_time.h"

namespace rocksdb_cuckoo {
namespace {

// The slack for a counter read out of order, the anchor's own bracket, and
// what the rounded-up rate (plus the calibration's error) adds over one
// anchor's lifetime.
constexpr int64_t kMaxAheadNanos =
    TscSteadyClock::kSlackNanos + TscSteadyClock::kTightNanos +
    static_cast<int64_t>(TscSteadyClock::kAnchorNanos *
                         TscSteadyClock::kRateMargin * 2);

// Where TscSteadyClock extrapolates: on x86-64 when the kernel keeps time
// with the counter.
bool KernelClockIsTsc() {
#if defined(__x86_64__)
  std::ifstream in(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return static_cast<bool>(in >> source) && source == "tsc";
#else
  return false;
#endif
}

// Calibration needs two readings kCalibrationNanos apart, each taken
// without interruption; readings go on until it has happened, where it can
// (a loaded host can interrupt many readings in a row: up to half a minute).
void LetItCalibrate() {
  if (!KernelClockIsTsc()) return;
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  TscSteadyClock::Now();
  while (!TscSteadyClock::Extrapolating() &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    TscSteadyClock::Now();
  }
}

struct Bounds {
  int64_t readings = 0;
  int64_t behind = 0;     // readings before the steady clock's earlier one
  int64_t max_ahead = 0;  // most a reading exceeded the later steady one by
};

// Reads the clock between two steady readings for `nanos`, with pauses of
// up to `pause_nanos` between readings (so anchors age and renew).
Bounds Sample(int64_t nanos, int64_t pause_nanos) {
  Bounds bounds;
  const int64_t end = SteadyNanos() + nanos;
  int64_t pause = 0;
  for (;;) {
    const int64_t before = SteadyNanos();
    const int64_t reading = TscSteadyClock::Now();
    const int64_t after = SteadyNanos();
    ++bounds.readings;
    if (reading < before) ++bounds.behind;
    bounds.max_ahead = std::max(bounds.max_ahead, reading - after);
    if (after >= end) break;
    pause = (pause * 7 + 1000) % (pause_nanos + 1);
    const int64_t until = SteadyNanos() + pause;
    while (SteadyNanos() < until) {
    }
  }
  return bounds;
}

TEST(TscSteadyClockTest, NeverBehindAndOnlyMicrosecondsAheadOnManyThreads) {
  constexpr int kThreads = 4;
  std::vector<Bounds> bounds(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    // Long enough to calibrate and renew the anchor many times over.
    threads.emplace_back([&bounds, i] {
      bounds[i] = Sample(3 * TscSteadyClock::kCalibrationNanos, 3000 * i);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_GT(bounds[i].readings, 100);
    EXPECT_EQ(bounds[i].behind, 0);
    EXPECT_LE(bounds[i].max_ahead, kMaxAheadNanos);
  }
  // Thousands of renewals found no estimate behind, so it still trusts the
  // counter.
  EXPECT_EQ(TscSteadyClock::Extrapolating(), KernelClockIsTsc());
}

TEST(TscSteadyClockTest, ExtrapolatesWhereTheKernelKeepsTimeWithTheCounter) {
  LetItCalibrate();
  EXPECT_EQ(TscSteadyClock::Extrapolating(), KernelClockIsTsc());
}

TEST(TscSteadyClockTest, WakeTimesAreNeverBeforeTheDelay) {
  LetItCalibrate();
  for (const int64_t delay : {0, 1, 999, 1024, 5000, 1000000}) {
    for (int i = 0; i < 10000; ++i) {
      const int64_t asked_at = SteadyNanos();
      const uint64_t wake = WakeAfter(std::chrono::nanoseconds(delay));
      ASSERT_GE(WakeNanos(wake), asked_at + delay) << "delay " << delay;
    }
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
