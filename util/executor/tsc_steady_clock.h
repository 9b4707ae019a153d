// The steady clock as the executor's Add and Snooze read it: extrapolated
// from the CPU's time-stamp counter (CycleClock), because clock_gettime
// costs most of a snooze and reading the counter costs much less.
//
// The estimate is never behind the steady clock, so a wake time computed
// from it never lets a task run before its delay. It is at most a few
// microseconds ahead:
//   - it adds kSlackNanos, which covers the counter being read a little
//     before the instructions around it (the processor may reorder it);
//   - it extrapolates from an anchor (a counter reading and a steady-clock
//     reading taken at most kTightNanos after it) with CycleClock's
//     calibrated rate rounded up by kRateMargin, which covers the
//     calibration's error and the kernel's clock slewing;
//   - the anchor is renewed once it is kAnchorNanos old, which bounds what
//     that rounding can add;
//   - each renewal checks that the estimate was not behind; if it ever was
//     (the counter changed rate or stopped), the clock falls back to
//     clock_gettime for good.
// Only where the kernel itself keeps time with the counter (its clock
// source is "tsc", which it picks only for an invariant counter that is
// synchronized across CPUs); elsewhere, and until CycleClock's calibration
// has measured the rate over kCalibrationNanos, Now() is SteadyNanos().
#pragma once

#include <cstdint>

#include "util/executor/cycle_clock.h"

namespace rocksdb_cuckoo {

class TscSteadyClock {
 public:
  // Steady-clock nanoseconds (as SteadyNanos()), never behind it.
  static int64_t Now();
  // Whether Now() is extrapolating from the counter at the moment (rather
  // than reading the steady clock).
  static bool Extrapolating();

  static constexpr int64_t kCalibrationNanos = CycleClock::kCalibrationNanos;
  static constexpr int64_t kSlackNanos = 1000;
  static constexpr int64_t kTightNanos = 2000;
  static constexpr int64_t kAnchorNanos = 1000 * 1000;
  static constexpr double kRateMargin = 2e-3;
};

}  // namespace rocksdb_cuckoo
