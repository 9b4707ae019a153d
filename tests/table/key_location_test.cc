// Where a key may live: fingerprints never mark a slot empty, the two
// buckets differ, identity hashing follows integer keys, and ordinary keys
// spread evenly over the buckets.
#include "table/key_location.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::Slice;

TEST(KeyLocationTest, FingerprintsAreNeverZeroAndBucketsDiffer) {
  EXPECT_EQ(FingerprintOf(0), 1);
  EXPECT_EQ(FingerprintOf(0x10000), 1);
  EXPECT_EQ(FingerprintOf(0xabcd), 0xabcd);
  std::mt19937_64 rnd(1);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t hash = rnd();
    const uint64_t buckets = 2 + rnd() % 1000;
    const KeyLocation kh = LocateKey(hash, 0, false, buckets);
    ASSERT_NE(kh.fingerprint, 0);
    ASSERT_LT(kh.bucket1, buckets);
    ASSERT_LT(kh.bucket2, buckets);
    ASSERT_NE(kh.bucket1, kh.bucket2);
    ASSERT_LT(kh.slot[0], kSlotsPerBucket);
    ASSERT_LT(kh.slot[1], kSlotsPerBucket);
    ASSERT_NE(kh.slot[0], kh.slot[1]);
  }
  // One bucket: both choices are it.
  const KeyLocation one = LocateKey(12345, 0, false, 1);
  EXPECT_EQ(one.bucket1, 0u);
  EXPECT_EQ(one.bucket2, 0u);
}

TEST(KeyLocationTest, IdentityKeysFillConsecutiveBucketsAndSlots) {
  // Dense integer keys k, k + n, k + 2n ... share bucket k and get slots of
  // their own.
  constexpr uint64_t kBuckets = 100;
  for (uint64_t key = 0; key < 8 * kBuckets; ++key) {
    const KeyLocation kh =
        LocateKey(key * 0x9e3779b97f4a7c15ull, key, true, kBuckets);
    EXPECT_EQ(kh.bucket1, key % kBuckets);
    EXPECT_EQ(kh.slot[0], (key / kBuckets) % kSlotsPerBucket);
  }
}

TEST(KeyLocationTest, IdentityBucketsFollowIntegerKeys) {
  for (uint64_t i = 0; i < 1000; i++) {
    const uint64_t be = __builtin_bswap64(i);
    const KeyLocation kh = LocateUserKey(
        Slice(reinterpret_cast<const char*>(&be), 8), true, 100, 0);
    EXPECT_EQ(kh.bucket1, i % 100);
    EXPECT_EQ(kh.slot[0], i / 100 % kSlotsPerBucket);
    EXPECT_NE(kh.slot[1], kh.slot[0]);
    EXPECT_LT(kh.slot[1], kSlotsPerBucket);
    EXPECT_NE(kh.bucket2, kh.bucket1);
    EXPECT_NE(kh.fingerprint, 0);
  }
}

TEST(KeyLocationTest, BucketsSpreadEvenly) {
  const uint64_t buckets = 1000;
  std::vector<int> count(buckets, 0);
  for (int i = 0; i < 100000; i++) {
    const std::string key = "user" + std::to_string(i);
    count[LocateUserKey(key, false, buckets, 0).bucket1]++;
  }
  for (int c : count) {
    EXPECT_GT(c, 50);  // mean 100; a fair hash stays far from these bounds
    EXPECT_LT(c, 160);
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
