#include "util/executor/tsc_steady_clock.h"

#include <atomic>
#include <cmath>
#include <fstream>
#include <mutex>
#include <string>

#include "util/executor/cycle_clock.h"
#include "util/executor/wake_time.h"

namespace rocksdb_cuckoo {

// x86-64 only: on AArch64, clock_gettime already reads the counter in user
// space (the vDSO), cheaply; 32-bit x86 has no 128-bit product for the
// estimate; other targets have no counter (CycleClock is the steady clock).
#if defined(__x86_64__)

namespace {

static_assert(TscSteadyClock::kRateMargin > CycleClock::kMaxCalibrationError,
              "the margin must cover the calibration's error");

bool KernelKeepsTimeWithTsc() {
  std::ifstream in(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return static_cast<bool>(in >> source) && source == "tsc";
}

// A counter reading for an anchor; false when its steady readings lie more
// than kTightNanos apart (the thread was preempted, say): such a reading
// would loosen the bounds.
bool ReadTight(CycleClock::Bracket* bracket) {
  *bracket = CycleClock::ReadBracket();
  return bracket->after - bracket->before <= TscSteadyClock::kTightNanos;
}

// On cache lines of its own: every Now() reads it, and little else should
// share them.
class alignas(64) Extrapolator {
 public:
  int64_t Now() {
    const Mode mode = mode_.load(std::memory_order_acquire);
    if (mode == kOff) return SteadyNanos();
    if (mode == kStarting) return Start();
    // The anchor, under a sequence lock (odd while it is being renewed).
    const uint64_t version = version_.load(std::memory_order_acquire);
    const uint64_t anchor_tsc = anchor_tsc_.load(std::memory_order_relaxed);
    const int64_t anchor_nanos = anchor_nanos_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((version & 1) == 0 &&
        version_.load(std::memory_order_relaxed) == version) {
      const uint64_t tsc = CycleClock::Now();
      if (TicksSince(anchor_tsc, tsc) < anchor_ticks_) {
        return Estimate(anchor_tsc, anchor_nanos, tsc);
      }
    }
    return Renew();
  }

  bool Extrapolating() const {
    return mode_.load(std::memory_order_acquire) == kExtrapolating;
  }

 private:
  enum Mode { kStarting, kExtrapolating, kOff };

  // Counter ticks from the anchor to `tsc`; none if the counter was read
  // before the anchor was.
  static uint64_t TicksSince(uint64_t anchor_tsc, uint64_t tsc) {
    return tsc > anchor_tsc ? tsc - anchor_tsc : 0;
  }
  // The steady-clock time at counter reading `tsc`, from an anchor.
  int64_t Estimate(uint64_t anchor_tsc, int64_t anchor_nanos,
                   uint64_t tsc) const {
    // 64 x 64 -> 128 bits: one multiplication, and no overflow however
    // long ago the anchor was (Renew's check).
    const unsigned __int128 scaled =
        static_cast<unsigned __int128>(TicksSince(anchor_tsc, tsc)) *
        nanos_per_tick_q32_;
    return anchor_nanos + TscSteadyClock::kSlackNanos +
           static_cast<int64_t>(scaled >> 32);
  }

  // Until CycleClock's calibration (which each call moves on) knows the
  // rate: the steady clock. Then the rate, rounded up by kRateMargin, and
  // the first anchor.
  int64_t Start() {
    const double nanos_per_tick = CycleClock::TryNanosPerTick();
    if (nanos_per_tick == 0) return SteadyNanos();
    std::unique_lock<std::mutex> lock(start_mu_, std::try_to_lock);
    if (!lock.owns_lock()) return SteadyNanos();
    CycleClock::Bracket now;
    if (!ReadTight(&now) ||
        mode_.load(std::memory_order_relaxed) != kStarting) {
      return now.after;
    }
    const double rounded_up =
        nanos_per_tick * (1 + TscSteadyClock::kRateMargin);
    nanos_per_tick_q32_ =
        static_cast<uint64_t>(std::ceil(std::ldexp(rounded_up, 32)));
    anchor_ticks_ = static_cast<uint64_t>(
        static_cast<double>(TscSteadyClock::kAnchorNanos) / rounded_up);
    anchor_tsc_.store(now.ticks, std::memory_order_relaxed);
    anchor_nanos_.store(now.after, std::memory_order_relaxed);
    mode_.store(kExtrapolating, std::memory_order_release);
    return now.after;
  }

  // A new anchor; also checks that the old one's estimate for this moment
  // was not behind the steady clock.
  int64_t Renew() {
    CycleClock::Bracket now;
    if (!ReadTight(&now)) return now.after;
    uint64_t version = version_.load(std::memory_order_relaxed);
    // Another thread renewing: this reading is as good.
    if ((version & 1) != 0 ||
        !version_.compare_exchange_strong(version, version + 1,
                                          std::memory_order_relaxed)) {
      return now.after;
    }
    std::atomic_thread_fence(std::memory_order_release);
    const int64_t estimate =
        Estimate(anchor_tsc_.load(std::memory_order_relaxed),
                 anchor_nanos_.load(std::memory_order_relaxed), now.ticks);
    // The counter ran slower than measured, or went back: stop trusting it.
    if (estimate < now.before) mode_.store(kOff, std::memory_order_release);
    anchor_tsc_.store(now.ticks, std::memory_order_relaxed);
    anchor_nanos_.store(now.after, std::memory_order_relaxed);
    version_.store(version + 2, std::memory_order_release);
    return now.after;
  }

  std::atomic<Mode> mode_{KernelKeepsTimeWithTsc() ? kStarting : kOff};
  // Written once, under start_mu_, before mode_ turns kExtrapolating:
  // nanoseconds per tick in 32.32 fixed point, rounded up (an integer
  // multiplication is far cheaper than converting to and from double).
  uint64_t nanos_per_tick_q32_ = 0;
  uint64_t anchor_ticks_ = 0;
  std::mutex start_mu_;
  std::atomic<uint64_t> version_{0};
  std::atomic<uint64_t> anchor_tsc_{0};
  std::atomic<int64_t> anchor_nanos_{0};
};

Extrapolator& TheExtrapolator() {
  static Extrapolator* extrapolator = new Extrapolator;  // never destroyed
  return *extrapolator;
}

}  // namespace

int64_t TscSteadyClock::Now() { return TheExtrapolator().Now(); }
bool TscSteadyClock::Extrapolating() {
  return TheExtrapolator().Extrapolating();
}

#else

int64_t TscSteadyClock::Now() { return SteadyNanos(); }
bool TscSteadyClock::Extrapolating() { return false; }

#endif

}  // namespace rocksdb_cuckoo
