#include "util/executor/latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rocksdb_cuckoo {

namespace latency_internal {

constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBucketBits;

int BucketOf(uint64_t nanos) {
  if (nanos < kSubBuckets) return static_cast<int>(nanos);
  const int msb = 63 - __builtin_clzll(nanos);
  const uint64_t sub = (nanos >> (msb - kSubBucketBits)) & (kSubBuckets - 1);
  return static_cast<int>(((msb - kSubBucketBits + 1) << kSubBucketBits) + sub);
}

uint64_t BucketFloor(int bucket) {
  const uint64_t b = static_cast<uint64_t>(bucket);
  if (b < kSubBuckets) return b;
  const int msb = static_cast<int>(b >> kSubBucketBits) + kSubBucketBits - 1;
  const uint64_t sub = b & (kSubBuckets - 1);
  return (kSubBuckets + sub) << (msb - kSubBucketBits);
}

}  // namespace latency_internal

using latency_internal::BucketFloor;
using latency_internal::BucketOf;
using latency_internal::kBuckets;

void LatencyDistribution::Add(uint64_t nanos) {
  ++buckets_[BucketOf(nanos)];
  ++count_;
  sum_ += nanos;
  max_ = std::max(max_, nanos);
}

void LatencyDistribution::Merge(const LatencyDistribution& other) {
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

uint64_t LatencyDistribution::Percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::min(std::max(p, 0.0), 1.0);
  // The rank of the wanted sample, 1-based.
  const uint64_t rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_))));
  if (rank >= count_) return max_;  // known exactly
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      const uint64_t lo = BucketFloor(i);
      const uint64_t hi = i + 1 < kBuckets ? BucketFloor(i + 1) : lo;
      return std::min(lo + (hi - lo) / 2, max_);
    }
  }
  return max_;
}

std::string LatencyDistribution::ToString() const {
  return "n=" + std::to_string(count_) + " mean=" + FormatNanos(Mean()) +
         " p50=" + FormatNanos(Percentile(0.50)) +
         " p99=" + FormatNanos(Percentile(0.99)) + " max=" + FormatNanos(max_);
}

void LatencyHistogram::Record(uint64_t nanos) {
  // Single writer: a load and a store are enough, and cheaper than an
  // atomic read-modify-write.
  auto bump = [](std::atomic<uint64_t>& a, uint64_t by) {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  };
  bump(buckets_[BucketOf(nanos)], 1);
  bump(count_, 1);
  bump(sum_, nanos);
  if (nanos > max_.load(std::memory_order_relaxed)) {
    max_.store(nanos, std::memory_order_relaxed);
  }
}

void LatencyHistogram::AddTo(LatencyDistribution* out) const {
  for (int i = 0; i < kBuckets; ++i) {
    out->buckets_[i] += buckets_[i].load(std::memory_order_relaxed);
  }
  out->count_ += count_.load(std::memory_order_relaxed);
  out->sum_ += sum_.load(std::memory_order_relaxed);
  out->max_ = std::max(out->max_, max_.load(std::memory_order_relaxed));
}

std::string FormatNanos(uint64_t nanos) {
  char buf[32];
  const double v = static_cast<double>(nanos);
  if (nanos < 1000) {
    snprintf(buf, sizeof(buf), "%lluns",
             static_cast<unsigned long long>(nanos));
  } else if (nanos < 1000000) {
    snprintf(buf, sizeof(buf), "%.1fus", v / 1e3);
  } else if (nanos < 1000000000) {
    snprintf(buf, sizeof(buf), "%.2fms", v / 1e6);
  } else {
    snprintf(buf, sizeof(buf), "%.2fs", v / 1e9);
  }
  return buf;
}

}  // namespace rocksdb_cuckoo
