// The executor's time: steady-clock nanoseconds, and the wake times that a
// task's word carries (see executor_task.h).
//
// A wake time is 48 bits in units of 1024 ns from the first wake time the
// process asked for: nine years of range, and small enough to share one
// atomic word with a task's state, so that a snooze changes both in one
// compare-and-swap. Units are rounded up, so a task never runs before its
// delay (the rounding adds under a microsecond). A time beyond the range
// becomes the latest one, nine years on.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "util/executor/tsc_steady_clock.h"

namespace rocksdb_cuckoo {

// Steady-clock nanoseconds, the executor's only time base (TscSteadyClock
// reads the same clock, faster).
inline int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr int kWakeBits = 48;
constexpr int64_t kWakeUnitNanos = 1024;
constexpr uint64_t kLatestWake = (uint64_t{1} << kWakeBits) - 1;

// Where wake time 0 lies on the steady clock.
inline int64_t WakeEpochNanos() {
  static const int64_t epoch = SteadyNanos();
  return epoch;
}

// The first wake time at or after steady-clock time `nanos` (the latest one
// for anything beyond the range).
inline uint64_t WakeAt(int64_t nanos) {
  const int64_t since = nanos - WakeEpochNanos();
  if (since <= 0) return 0;
  const uint64_t units =
      (static_cast<uint64_t>(since) + kWakeUnitNanos - 1) / kWakeUnitNanos;
  return std::min(units, kLatestWake);
}

// The wake time `delay` from now.
inline uint64_t WakeAfter(std::chrono::nanoseconds delay) {
  const int64_t now = TscSteadyClock::Now();
  const int64_t wait = std::max<int64_t>(0, delay.count());
  // Beyond nine years is the latest wake time; this keeps the sum in range.
  return WakeAt(now + std::min<int64_t>(wait, INT64_MAX / 2));
}

// Steady-clock time of a wake time.
inline int64_t WakeNanos(uint64_t wake) {
  return WakeEpochNanos() + static_cast<int64_t>(wake) * kWakeUnitNanos;
}

}  // namespace rocksdb_cuckoo
