#include "util/executor/cycle_clock.h"

#include <thread>

namespace rocksdb_cuckoo {

double CycleClock::NanosPerTick() {
#if defined(__x86_64__)
  static const double nanos_per_tick = [] {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const uint64_t start_ticks = Now();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const uint64_t ticks = Now() - start_ticks;
    const double nanos = static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                             start)
            .count());
    return ticks == 0 ? 1.0 : nanos / static_cast<double>(ticks);
  }();
  return nanos_per_tick;
#else
  return 1.0;
#endif
}

}  // namespace rocksdb_cuckoo
