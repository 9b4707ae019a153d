// The benchmarks' verdicts on their targets: a wrong verdict would report a
// target met that is not.
#include "db_bench_ext/ratio_target.h"

#include <gtest/gtest.h>

namespace rocksdb_cuckoo {
namespace {

TEST(RatioTargetTest, AtLeastIsMetFromTheBoundUp) {
  const RatioTarget target{RatioTarget::kAtLeast, 4};
  EXPECT_TRUE(target.Met(4.0));
  EXPECT_TRUE(target.Met(4.5));
  EXPECT_FALSE(target.Met(3.99));
  EXPECT_EQ(target.Verdict(4.2, {3.0, 4.1, 5.0}),
            "target >=4x met (2 of 3 runs)");
  EXPECT_EQ(target.Verdict(2.0, {1.5, 2.0, 4.0}),
            "target >=4x NOT met (1 of 3 runs)");
}

TEST(RatioTargetTest, AtMostIsMetFromTheBoundDown) {
  const RatioTarget target{RatioTarget::kAtMost, 1.15};
  EXPECT_TRUE(target.Met(1.15));
  EXPECT_TRUE(target.Met(0.2));
  EXPECT_FALSE(target.Met(1.16));
  EXPECT_EQ(target.Verdict(1.2, {1.1, 1.2, 1.3}),
            "target <=1.15x NOT met (1 of 3 runs)");
}

TEST(RatioTargetTest, GoalsAreNamedAsGoals) {
  const RatioTarget goal{RatioTarget::kAtMost, 0.5, "goal"};
  EXPECT_EQ(goal.Verdict(0.4, {0.4}), "goal <=0.5x met (1 of 1 runs)");
}

}  // namespace
}  // namespace rocksdb_cuckoo
