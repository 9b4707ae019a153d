#include "util/executor/cycle_clock.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "util/executor/wake_time.h"

namespace rocksdb_cuckoo {

CycleClock::Bracket CycleClock::ReadBracket() {
  Bracket bracket;
  bracket.before = SteadyNanos();
#if defined(__x86_64__) || defined(__i386__)
  _mm_lfence();
  bracket.ticks = __rdtsc();
  _mm_lfence();
#elif defined(__aarch64__)
  // The counter may be read early or late, as rdtsc may: isb keeps it
  // between the steady-clock readings.
  asm volatile("isb" ::: "memory");
  bracket.ticks = Now();
  asm volatile("isb" ::: "memory");
#else
  bracket.ticks = Now();
#endif
  bracket.after = SteadyNanos();
  return bracket;
}

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)

namespace {

int64_t Width(const CycleClock::Bracket& bracket) {
  return bracket.after - bracket.before;
}

class Calibration {
 public:
  double Try() {
    const double known = nanos_per_tick_.load(std::memory_order_acquire);
    if (known != 0) return known;
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) return 0;
    // Another thread may have finished since the look above.
    const double finished = nanos_per_tick_.load(std::memory_order_relaxed);
    if (finished != 0) return finished;
    const CycleClock::Bracket now = CycleClock::ReadBracket();
    const int64_t width = Width(now);
    // A start that a preempted reading made wide would need a long window
    // to bound the error; a tighter reading may end sooner as a new start.
    if (!started_ || EarliestEnd(now, width) < EarliestEnd(start_, width)) {
      start_ = now;
      started_ = true;
      return 0;
    }
    const int64_t window = now.after - start_.before;
    if (window < CycleClock::kCalibrationNanos || now.ticks <= start_.ticks ||
        static_cast<double>(Width(start_) + width) >
            CycleClock::kMaxCalibrationError * static_cast<double>(window)) {
      return 0;
    }
    const double nanos_per_tick = static_cast<double>(window) /
                                  static_cast<double>(now.ticks - start_.ticks);
    nanos_per_tick_.store(nanos_per_tick, std::memory_order_release);
    return nanos_per_tick;
  }

 private:
  // The earliest a calibration from `start` can end, with an end reading
  // `end_width` wide: the true rate lies within the two readings' widths
  // over the window.
  static double EarliestEnd(const CycleClock::Bracket& start,
                            int64_t end_width) {
    return static_cast<double>(start.before) +
           std::max(static_cast<double>(CycleClock::kCalibrationNanos),
                    static_cast<double>(Width(start) + end_width) /
                        CycleClock::kMaxCalibrationError);
  }

  std::atomic<double> nanos_per_tick_{0};
  std::mutex mu_;
  bool started_ = false;         // guarded by mu_
  CycleClock::Bracket start_{};  // guarded by mu_
};

Calibration& TheCalibration() {
  static Calibration* calibration = new Calibration;  // never destroyed
  return *calibration;
}

#if defined(__aarch64__)
// 0 where firmware did not set the frequency.
double StatedNanosPerTick() {
  uint64_t hertz;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(hertz));
  return hertz != 0 ? 1e9 / static_cast<double>(hertz) : 0;
}
#endif

}  // namespace

double CycleClock::TryNanosPerTick() {
#if defined(__aarch64__)
  static const double stated = StatedNanosPerTick();
  if (stated != 0) return stated;
#endif
  return TheCalibration().Try();
}

double CycleClock::NanosPerTick() {
  static const double nanos_per_tick = [] {
    double rate;
    while ((rate = TryNanosPerTick()) == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return rate;
  }();
  return nanos_per_tick;
}

#else

double CycleClock::TryNanosPerTick() { return 1.0; }
double CycleClock::NanosPerTick() { return 1.0; }

#endif

}  // namespace rocksdb_cuckoo
