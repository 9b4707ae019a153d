// A fixed set of 64-bit counters, copied once per stripe, each stripe on its
// own cache lines: a thread adds to the stripe of the CPU it runs on, and a
// reader sums the stripes. With one stripe per last-level cache (or per CPU),
// threads on different caches never bounce a line between them, which is
// what a single shared atomic per counter does on every update.
//
// Sums are not a snapshot across counters: each counter's sum is exact once
// its updaters have finished, and otherwise lies between its values at the
// start and at the end of the read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "util/cpu_topology.h"

namespace rocksdb_cuckoo {

class StripedCounters {
 public:
  // Cache-line size the stripes are aligned and padded to.
  static constexpr size_t kCacheLine = 64;

  // One stripe's counters: a small handle, cheap to copy. Only Add is meant
  // for hot paths; the atomics are exposed for callers that build their own
  // protocols on a stripe (reader counts needing stronger ordering than Add).
  class Stripe {
   public:
    explicit Stripe(std::atomic<uint64_t>* counters) : counters_(counters) {}
    void Add(size_t counter, uint64_t delta) const {
      counters_[counter].fetch_add(delta, std::memory_order_relaxed);
    }
    std::atomic<uint64_t>& operator[](size_t counter) const {
      return counters_[counter];
    }

   private:
    std::atomic<uint64_t>* counters_;
  };

  // num_counters counters in every stripe, stripes laid out as the topology
  // and mode say.
  StripedCounters(size_t num_counters, StripeMode mode,
                  const CpuTopology& topology = CpuTopology::System());
  ~StripedCounters();
  StripedCounters(const StripedCounters&) = delete;
  StripedCounters& operator=(const StripedCounters&) = delete;

  // This library's one way to pick a stripe: by the CPU the caller runs on,
  // looked up once per operation (CurrentCpu()) and handed to every striped
  // structure the operation touches. A thread that moves CPUs meanwhile
  // still counts correctly, just on a farther line.
  size_t IndexFor(int cpu) const {
    const size_t c = static_cast<size_t>(cpu);
    return c < cpu_to_stripe_.size() ? cpu_to_stripe_[c] : c % num_stripes_;
  }
  Stripe For(int cpu) const { return At(IndexFor(cpu)); }
  // For an operation that touches only this structure.
  Stripe Local() const { return For(CurrentCpu()); }
  Stripe At(size_t stripe) const {
    return Stripe(counters_ + stripe * stride_);
  }

  void Add(size_t counter, uint64_t delta) const {
    Local().Add(counter, delta);
  }

  // The counter summed over all stripes, each stripe loaded with `order`.
  uint64_t Sum(size_t counter,
               std::memory_order order = std::memory_order_relaxed) const;

  size_t num_counters() const { return num_counters_; }
  size_t num_stripes() const { return num_stripes_; }
  // The mode in effect: kAuto is reported as what it chose.
  StripeMode mode() const { return mode_; }
  // Bytes of counter memory (num_stripes * padded stripe size).
  size_t MemoryUsage() const {
    return num_stripes_ * stride_ * sizeof(std::atomic<uint64_t>);
  }

 private:
  const size_t num_counters_;
  const StripeMode mode_;
  size_t num_stripes_ = 1;
  size_t stride_ = 0;  // counters per stripe, padded to whole cache lines
  std::vector<uint16_t> cpu_to_stripe_;
  std::atomic<uint64_t>* counters_ = nullptr;
};

}  // namespace rocksdb_cuckoo
