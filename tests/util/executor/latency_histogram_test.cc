// LatencyHistogram / LatencyDistribution: bucket bounds, percentiles within
// the promised 12.5%, merging, and the recorder's snapshot.

#include "util/executor/latency_histogram.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rocksdb_cuckoo {
namespace {

using latency_internal::BucketFloor;
using latency_internal::BucketOf;
using latency_internal::kBuckets;

TEST(LatencyHistogramTest, BucketsCoverEveryValueInOrder) {
  EXPECT_EQ(BucketOf(0), 0);
  EXPECT_EQ(BucketOf(3), 3);
  EXPECT_EQ(BucketOf(UINT64_MAX), kBuckets - 1);
  for (int b = 1; b < kBuckets; ++b) {
    const uint64_t floor = BucketFloor(b);
    EXPECT_GT(floor, BucketFloor(b - 1)) << b;
    EXPECT_EQ(BucketOf(floor), b) << b;
    EXPECT_EQ(BucketOf(floor - 1), b - 1) << b;
  }
}

TEST(LatencyHistogramTest, PercentilesAreWithinAnEighth) {
  LatencyDistribution d;
  for (uint64_t v = 1; v <= 10000; ++v) d.Add(v * 1000);  // 1us .. 10ms
  EXPECT_EQ(d.count(), 10000u);
  EXPECT_EQ(d.max(), 10000000u);
  EXPECT_EQ(d.Mean(), 5000500u);
  const double p50 = static_cast<double>(d.Percentile(0.5));
  const double p99 = static_cast<double>(d.Percentile(0.99));
  EXPECT_NEAR(p50, 5000000.0, 5000000.0 / 8);
  EXPECT_NEAR(p99, 9900000.0, 9900000.0 / 8);
  EXPECT_EQ(d.Percentile(1.0), 10000000u);  // capped at the largest sample
  EXPECT_EQ(LatencyDistribution().Percentile(0.5), 0u);
}

TEST(LatencyHistogramTest, MergeAndSnapshotAddUp) {
  LatencyHistogram a;
  LatencyHistogram b;
  for (int i = 0; i < 100; ++i) a.Record(100);
  for (int i = 0; i < 100; ++i) b.Record(1000000);
  LatencyDistribution both;
  a.AddTo(&both);
  b.AddTo(&both);
  EXPECT_EQ(both.count(), 200u);
  EXPECT_EQ(both.max(), 1000000u);
  EXPECT_LE(both.Percentile(0.5), 100u + 100u / 8);
  EXPECT_GE(both.Percentile(0.99), 1000000u - 1000000u / 8);
  LatencyDistribution copy;
  copy.Merge(both);
  EXPECT_EQ(copy.ToString(), both.ToString());
  EXPECT_NE(both.ToString().find("n=200"), std::string::npos);
}

TEST(LatencyHistogramTest, FormatsHumanUnits) {
  EXPECT_EQ(FormatNanos(850), "850ns");
  EXPECT_EQ(FormatNanos(12300), "12.3us");
  EXPECT_EQ(FormatNanos(4560000), "4.56ms");
  EXPECT_EQ(FormatNanos(1230000000), "1.23s");
}

}  // namespace
}  // namespace rocksdb_cuckoo
