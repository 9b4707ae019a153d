// The cycle counter's rate: ticks convert to at least the steady-clock time
// they span (a latency is never under-reported), and to no more than the
// calibration's stated error above it.
#include "util/executor/cycle_clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace rocksdb_cuckoo {
namespace {

TEST(CycleClockTest, BracketsOrderTheirReadings) {
  const CycleClock::Bracket b = CycleClock::ReadBracket();
  EXPECT_LE(b.before, b.after);
  const CycleClock::Bracket later = CycleClock::ReadBracket();
  EXPECT_GE(later.ticks, b.ticks);
}

TEST(CycleClockTest, RateIsPositiveAndStable) {
  const double rate = CycleClock::NanosPerTick();
  EXPECT_GT(rate, 0);
  EXPECT_EQ(CycleClock::TryNanosPerTick(), rate);
  EXPECT_EQ(CycleClock::NanosPerTick(), rate);
}

TEST(CycleClockTest, TicksConvertToNoLessThanTheTimeTheySpan) {
  CycleClock::NanosPerTick();  // calibrated before the first bracket
  for (int i = 0; i < 5; i++) {
    const CycleClock::Bracket first = CycleClock::ReadBracket();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const CycleClock::Bracket last = CycleClock::ReadBracket();
    // The counter's two readings lie inside these steady-clock bounds, so
    // the time between them is at least `shortest` and at most `longest`;
    // preemption only widens the bounds.
    const double shortest = static_cast<double>(last.before - first.after);
    const double longest = static_cast<double>(last.after - first.before);
    const double converted =
        static_cast<double>(CycleClock::ToNanos(last.ticks - first.ticks));
    EXPECT_GE(converted + 1, shortest);
    EXPECT_LE(converted, longest * (1 + CycleClock::kMaxCalibrationError) + 1);
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
