#include "util/striped_counters.h"

#include <new>

namespace rocksdb_cuckoo {

namespace {
constexpr size_t kPerLine =
    StripedCounters::kCacheLine / sizeof(std::atomic<uint64_t>);
}  // namespace

StripedCounters::StripedCounters(size_t num_counters, StripeMode mode,
                                 const CpuTopology& topology)
    : num_counters_(num_counters), mode_(topology.Resolve(mode)) {
  cpu_to_stripe_ = topology.StripeMap(mode_, &num_stripes_);
  stride_ = (num_counters + kPerLine - 1) / kPerLine * kPerLine;
  if (stride_ == 0) stride_ = kPerLine;
  const size_t total = num_stripes_ * stride_;
  counters_ = static_cast<std::atomic<uint64_t>*>(::operator new(
      total * sizeof(std::atomic<uint64_t>), std::align_val_t(kCacheLine)));
  for (size_t i = 0; i < total; ++i) {
    new (&counters_[i]) std::atomic<uint64_t>(0);
  }
}

StripedCounters::~StripedCounters() {
  // std::atomic<uint64_t> is trivially destructible.
  ::operator delete(counters_, std::align_val_t(kCacheLine));
}

uint64_t StripedCounters::Sum(size_t counter, std::memory_order order) const {
  uint64_t sum = 0;
  for (size_t s = 0; s < num_stripes_; ++s) {
    sum += At(s)[counter].load(order);
  }
  return sum;
}

}  // namespace rocksdb_cuckoo
