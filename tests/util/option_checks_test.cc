// The checks every configurable object of the plugin shares: range checks
// name the option, its bounds and the value; unknown option names are
// invalid arguments; key-hashing parts refuse comparators whose equal keys
// may differ in bytes, and timestamps.
#include "util/option_checks.h"

#include <gtest/gtest.h>

#include "rocksdb/comparator.h"
#include "tests/support/test_comparators.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::Comparator;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

TEST(OptionChecksTest, InRangeIncludesBothBounds) {
  EXPECT_TRUE(CheckInRange<int>("Owner", "opt", 1, 1, 3).ok());
  EXPECT_TRUE(CheckInRange<int>("Owner", "opt", 3, 1, 3).ok());
  EXPECT_TRUE(CheckInRange<double>("Owner", "ratio", 0.5, 0.1, 0.95).ok());
}

TEST(OptionChecksTest, OutOfRangeNamesOwnerOptionBoundsAndValue) {
  const Status s = CheckInRange<uint64_t>("Owner", "opt", 7, 1, 4);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("Owner: opt must be in [1, 4], got 7"),
            std::string::npos)
      << s.ToString();
  EXPECT_TRUE(CheckInRange<int>("Owner", "opt", 0, 1, 4).IsInvalidArgument());
}

TEST(OptionChecksTest, UnknownOptionBecomesInvalidArgumentKeepingTheName) {
  const Status s = UnknownOptionIsInvalidArgument(
      "Owner", Status::NotFound("Could not find option: ", "no_such_option"));
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("no_such_option"), std::string::npos);
  // Anything but NotFound passes unchanged.
  EXPECT_TRUE(UnknownOptionIsInvalidArgument("Owner", Status::Corruption("x"))
                  .IsCorruption());
  EXPECT_TRUE(UnknownOptionIsInvalidArgument("Owner", Status::OK()).ok());
}

TEST(OptionChecksTest, HashingNeedsEqualKeysToHaveEqualBytes) {
  EXPECT_TRUE(
      CheckKeysCompareByBytes("Owner", ROCKSDB_NAMESPACE::BytewiseComparator())
          .ok());
  EXPECT_TRUE(CheckKeysCompareByBytes(
                  "Owner", ROCKSDB_NAMESPACE::ReverseBytewiseComparator())
                  .ok());
  testing::CaseInsensitiveComparator case_insensitive;
  const Status s = CheckKeysCompareByBytes("Owner", &case_insensitive);
  ASSERT_TRUE(s.IsNotSupported());
  EXPECT_NE(s.ToString().find("CaseInsensitive"), std::string::npos);
}

TEST(OptionChecksTest, TimestampsAreNotSupported) {
  testing::WithTimestampsComparator with_timestamps;
  const Status s = CheckKeysCompareByBytes("Owner", &with_timestamps);
  ASSERT_TRUE(s.IsNotSupported());
  EXPECT_NE(s.ToString().find("timestamps"), std::string::npos);
}

}  // namespace
}  // namespace rocksdb_cuckoo
