// A cheap timestamp for statistics: the CPU's time-stamp counter on x86-64
// (invariant TSC, synchronized across cores on current systems), the steady
// clock elsewhere. Reading it costs a third of a clock_gettime call (less
// still where the clock source is a hypervisor's), which matters when the
// executor stamps every task twice. Durations convert to nanoseconds with a
// factor calibrated once against the steady clock.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rocksdb_cuckoo {

class CycleClock {
 public:
  static uint64_t Now() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());
#endif
  }
  // Nanoseconds per tick, measured over a few milliseconds on first use.
  static double NanosPerTick();
  static uint64_t ToNanos(uint64_t ticks) {
    return static_cast<uint64_t>(static_cast<double>(ticks) * NanosPerTick());
  }
};

}  // namespace rocksdb_cuckoo
