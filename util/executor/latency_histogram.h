// Durations in nanoseconds, bucketed log-linearly (4 buckets per power of
// two, so a percentile is within 12.5% of the true value).
//
// LatencyHistogram is the recorder: one writer thread at a time, readers at
// any time, no locks (every executor worker owns one, so recording a task
// costs a few uncontended relaxed stores). LatencyDistribution is a plain
// copy that readers merge and query.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace rocksdb_cuckoo {

namespace latency_internal {
// Values 0..3 have a bucket each; above, the power of two and the next two
// bits below the leading one pick the bucket.
constexpr int kSubBucketBits = 2;
constexpr int kBuckets = (64 - kSubBucketBits + 1) << kSubBucketBits;
int BucketOf(uint64_t nanos);
// Smallest value of a bucket.
uint64_t BucketFloor(int bucket);
}  // namespace latency_internal

class LatencyDistribution {
 public:
  void Add(uint64_t nanos);
  void Merge(const LatencyDistribution& other);

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  uint64_t Mean() const { return count_ == 0 ? 0 : sum_ / count_; }
  // The value below which fraction p (in [0, 1]) of the samples lie: the
  // midpoint of the bucket holding it, capped at the largest sample (which
  // is exact, and what p = 1 returns).
  uint64_t Percentile(double p) const;
  // "n=.. mean=.. p50=.. p99=.. max=.." with human units.
  std::string ToString() const;

 private:
  friend class LatencyHistogram;
  std::array<uint64_t, latency_internal::kBuckets> buckets_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
};

class LatencyHistogram {
 public:
  // Only one thread may record into a histogram at a time.
  void Record(uint64_t nanos);
  // Adds the samples recorded so far to *out.
  void AddTo(LatencyDistribution* out) const;

 private:
  std::array<std::atomic<uint64_t>, latency_internal::kBuckets> buckets_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_{0};
  std::atomic<uint64_t> max_{0};
};

// "850ns", "12.3us", "4.56ms", "1.23s".
std::string FormatNanos(uint64_t nanos);

}  // namespace rocksdb_cuckoo
