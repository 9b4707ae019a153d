// What a CuckooHashTable requires of its options and comparator: each bad
// value is InvalidArgument naming the option, and the first bad option is
// the one reported.
#include "table/cuckoo_hash_table_checks.h"

#include <gtest/gtest.h>

#include "rocksdb/comparator.h"
#include "table/cuckoo_hash_table.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::Status;

bool Names(const Status& s, const std::string& text) {
  return s.ToString().find(text) != std::string::npos;
}

TEST(CuckooHashTableChecksTest, DefaultsPass) {
  EXPECT_TRUE(CheckOptions(CuckooHashTableOptions()).ok());
  EXPECT_TRUE(CheckComparator(ROCKSDB_NAMESPACE::BytewiseComparator()).ok());
}

TEST(CuckooHashTableChecksTest, RatioIsOpenBetweenZeroAndOne) {
  EXPECT_TRUE(CheckHashTableRatio("hash_table_ratio", 0.5).ok());
  for (double bad : {0.0, 1.0, -0.1, 1.5}) {
    const Status s = CheckHashTableRatio("hash_table_ratio", bad);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_TRUE(Names(s, "hash_table_ratio must be in (0, 1)")) << s.ToString();
  }
}

TEST(CuckooHashTableChecksTest, SearchDepthAndChecksumAreBounded) {
  EXPECT_TRUE(CheckMaxSearchDepth("max_search_depth", 1).ok());
  EXPECT_TRUE(CheckMaxSearchDepth("max_search_depth", 0).IsInvalidArgument());
  EXPECT_TRUE(
      CheckMaxSearchDepth("max_search_depth", 1000000).IsInvalidArgument());
  for (auto type : {ROCKSDB_NAMESPACE::kNoChecksum, ROCKSDB_NAMESPACE::kCRC32c,
                    ROCKSDB_NAMESPACE::kXXH3}) {
    EXPECT_TRUE(CheckChecksumType("checksum", type).ok()) << int{type};
  }
  const Status s = CheckChecksumType("checksum", ROCKSDB_NAMESPACE::kxxHash);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_TRUE(Names(s, "checksum")) << s.ToString();
}

TEST(CuckooHashTableChecksTest, TheFirstBadOptionIsReported) {
  CuckooHashTableOptions options;
  options.max_search_depth = 0;
  options.checksum = ROCKSDB_NAMESPACE::kxxHash;
  EXPECT_TRUE(Names(CheckOptions(options), "max_search_depth"));
  options.hash_table_ratio = 2;
  EXPECT_TRUE(Names(CheckOptions(options), "hash_table_ratio"));
}

}  // namespace
}  // namespace rocksdb_cuckoo
