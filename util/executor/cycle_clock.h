// The CPU's time-stamp counter on x86 (invariant TSC, synchronized across
// cores on current systems), the generic timer's virtual counter on AArch64
// (cntvct_el0, synchronized and of constant rate by the architecture), the
// steady clock elsewhere: a timestamp much cheaper to read than
// clock_gettime (more so where the clock source is a hypervisor's), which
// matters when the executor stamps every task twice.
//
// This unit owns the counter's rate: on x86 its one calibration against the
// steady clock, on AArch64 the frequency that cntfrq_el0 states. Statistics
// convert ticks to nanoseconds with it, and TscSteadyClock (x86-64 only)
// extrapolates the steady clock with it.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace rocksdb_cuckoo {

class CycleClock {
 public:
  static uint64_t Now() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#elif defined(__aarch64__)
    uint64_t ticks;
    asm volatile("mrs %0, cntvct_el0" : "=r"(ticks));
    return ticks;
#else
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());
#endif
  }

  // A counter reading between two steady-clock readings (nanoseconds),
  // fenced so that the processor cannot move it outside them: the steady
  // clock stood in [before, after] when the counter read `ticks`.
  struct Bracket {
    int64_t before;
    uint64_t ticks;
    int64_t after;
  };
  static Bracket ReadBracket();

  // Nanoseconds per tick, or 0 while the calibration is under way; never
  // waits, and each call moves the calibration on. The rate is measured
  // between two brackets at least kCalibrationNanos apart, from the earlier
  // one's `before` to the later one's `after`, so it errs only upwards (a
  // tick count never converts to less than the steady-clock time it spans),
  // and by at most kMaxCalibrationError: on a busy host it waits for
  // readings tight enough. On AArch64 the rate comes at once from the
  // frequency cntfrq_el0 states (the counter is calibrated as on x86 only
  // where firmware left it 0); elsewhere it is 1, ticks being steady-clock
  // nanoseconds.
  static double TryNanosPerTick();
  // TryNanosPerTick once calibrated: the first call waits for that.
  static double NanosPerTick();
  static uint64_t ToNanos(uint64_t ticks) {
    return static_cast<uint64_t>(static_cast<double>(ticks) * NanosPerTick());
  }

  static constexpr int64_t kCalibrationNanos = 10 * 1000 * 1000;
  static constexpr double kMaxCalibrationError = 4e-4;
};

}  // namespace rocksdb_cuckoo
