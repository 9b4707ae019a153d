// Matching a fingerprint against a bucket's slots, and the empty slots
// (fingerprint 0) that tell a full bucket.
#include "table/bucket_match.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace rocksdb_cuckoo {
namespace {

std::vector<uint32_t> Slots(SlotMask mask) {
  std::vector<uint32_t> slots;
  for (uint32_t slot : mask) slots.push_back(slot);
  return slots;
}

TEST(BucketMatchTest, FindsEverySlotWithTheFingerprint) {
  Bucket bucket;
  memset(&bucket, 0, sizeof(bucket));
  const Fingerprints& fps = bucket.fingerprints;
  EXPECT_FALSE(IsFull(fps));
  EXPECT_TRUE(MatchFingerprint(fps, 7).empty());
  bucket.Set(2, 7, 0x123456789aull);
  bucket.Set(5, 7, 42);
  bucket.Set(6, 0x0107, 1);  // same low byte: must not match
  EXPECT_EQ(bucket.OffsetAt(2), 0x123456789aull);
  EXPECT_EQ(MatchFingerprint(fps, 7).Lowest(), 2u);
  EXPECT_EQ(Slots(MatchFingerprint(fps, 7)), (std::vector<uint32_t>{2, 5}));
  EXPECT_EQ(Slots(MatchFingerprint(fps, 0x0107)), (std::vector<uint32_t>{6}));
  EXPECT_EQ(Slots(MatchFingerprint(fps, 0)),
            (std::vector<uint32_t>{0, 1, 3, 4, 7}));
}

TEST(BucketMatchTest, FullWhenNoSlotIsEmpty) {
  Fingerprints fps;
  for (uint32_t s = 0; s < kSlotsPerBucket; ++s) {
    fps.fingerprint[s] = static_cast<uint16_t>(0xff00 + s);
  }
  EXPECT_TRUE(IsFull(fps));
  EXPECT_TRUE(MatchFingerprint(fps, 7).empty());
  EXPECT_EQ(Slots(MatchFingerprint(fps, 0xff07)), (std::vector<uint32_t>{7}));
  fps.fingerprint[3] = 0;
  EXPECT_FALSE(IsFull(fps));
}

}  // namespace
}  // namespace rocksdb_cuckoo
