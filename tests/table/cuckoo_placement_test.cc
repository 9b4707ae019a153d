// The cuckoo placement algorithm on its own: every key placed exactly once,
// never failing, the first-bucket invariant the reader's misses rely on, and
// preferred slots its hits rely on.
#include "table/cuckoo_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "table/cuckoo_hash_table_format.h"

namespace rocksdb_cuckoo {
namespace {

// Whether `slot` (a position in a bucket) is one the key prefers.
bool Prefers(const BucketChoice& key, uint32_t slot) {
  return key.slot[0] == slot || key.slot[1] == slot;
}

// Checks the result against the contract in cuckoo_placement.h.
void CheckPlacement(const std::vector<BucketChoice>& keys, uint32_t buckets,
                    const Placement& p) {
  std::vector<int> seen(keys.size(), 0);
  std::vector<uint32_t> count(buckets, 0);
  for (uint32_t b = 0; b < buckets; b++) {
    const uint32_t* slots = &p.slots[b * kSlotsPerBucket];
    for (uint32_t s = 0; s < kSlotsPerBucket; s++) {
      const uint32_t key = slots[s];
      if (key == Placement::kEmpty) continue;
      ASSERT_TRUE(keys[key].first == b || keys[key].second == b);
      // Out of its preferred slots only if both are taken (else the
      // matching would not be maximal).
      if (!Prefers(keys[key], s)) {
        ASSERT_NE(slots[keys[key].slot[0]], Placement::kEmpty) << b;
        ASSERT_NE(slots[keys[key].slot[1]], Placement::kEmpty) << b;
      }
      seen[key]++;
      count[b]++;
    }
  }
  for (uint32_t key : p.stash) seen[key]++;
  for (size_t k = 0; k < keys.size(); k++) ASSERT_EQ(seen[k], 1) << k;
  // A key outside its first bucket implies that bucket is full; the count
  // of such keys (a file property) is theirs.
  uint64_t in_second_bucket = 0;
  for (uint32_t b = 0; b < buckets; b++) {
    for (uint32_t s = 0; s < kSlotsPerBucket; s++) {
      const uint32_t key = p.slots[b * kSlotsPerBucket + s];
      if (key != Placement::kEmpty && keys[key].first != b) {
        ASSERT_EQ(count[keys[key].first], kSlotsPerBucket);
        in_second_bucket++;
      }
    }
  }
  EXPECT_EQ(p.in_second_bucket, in_second_bucket);
  for (uint32_t key : p.stash) {
    ASSERT_EQ(count[keys[key].first], kSlotsPerBucket);
    ASSERT_EQ(count[keys[key].second], kSlotsPerBucket);
  }
}

std::vector<BucketChoice> RandomKeys(size_t n, uint32_t buckets,
                                     uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<BucketChoice> keys(n);
  for (auto& k : keys) {
    k.first = static_cast<uint32_t>(rng() % buckets);
    k.second = static_cast<uint32_t>(rng() % buckets);
    k.slot[0] = static_cast<uint8_t>(rng() % kSlotsPerBucket);
    k.slot[1] = k.slot[0] ^ static_cast<uint8_t>(1 + rng() % 7);
  }
  return keys;
}

TEST(CuckooPlacementTest, HighLoadPlacesEverythingWithoutStash) {
  const uint32_t buckets = 10000;
  const auto keys =
      RandomKeys(buckets * kSlotsPerBucket * 95 / 100, buckets, 1);
  const Placement p = PlaceKeys(keys, buckets, 128, true);
  CheckPlacement(keys, buckets, p);
  EXPECT_TRUE(p.stash.empty()) << p.stash.size();
  EXPECT_GT(p.in_second_bucket, 0u);
}

TEST(CuckooPlacementTest, MostKeysGetAPreferredSlot) {
  // At 90% load a bucket holds about 7 keys, each with two random preferred
  // slots: the share of hits that cost one round trip.
  const uint32_t buckets = 10000;
  const auto keys =
      RandomKeys(buckets * kSlotsPerBucket * 90 / 100, buckets, 3);
  const Placement p = PlaceKeys(keys, buckets, 128, true);
  CheckPlacement(keys, buckets, p);
  uint64_t preferred = 0;
  for (uint64_t i = 0; i < p.slots.size(); i++) {
    const uint32_t key = p.slots[i];
    preferred +=
        key != Placement::kEmpty && Prefers(keys[key], i % kSlotsPerBucket);
  }
  EXPECT_GT(preferred, keys.size() * 85 / 100);
}

// The most keys of one bucket that can sit in a preferred slot each, by
// trying every set of slots: what the placement must reach.
int MaximumPreferredInBucket(const std::vector<BucketChoice>& keys,
                             const uint32_t* slots) {
  std::vector<int> best(1 << kSlotsPerBucket, 0);  // over used-slot sets
  for (uint32_t s = 0; s < kSlotsPerBucket; s++) {
    const uint32_t key = slots[s];
    if (key == Placement::kEmpty) continue;
    std::vector<int> next = best;
    for (uint32_t used = 0; used < best.size(); used++) {
      for (const uint8_t want : keys[key].slot) {
        if (used & (1u << want)) continue;
        const uint32_t now = used | (1u << want);
        next[now] = std::max(next[now], best[used] + 1);
      }
    }
    best = next;
  }
  return *std::max_element(best.begin(), best.end());
}

TEST(CuckooPlacementTest, PreferredSlotsAreAMaximumMatchingInEveryBucket) {
  // Maximal is not enough: a key seated greedily can block two others.
  const uint32_t buckets = 3000;
  for (const uint64_t seed : {5, 6, 7}) {
    const auto keys =
        RandomKeys(buckets * kSlotsPerBucket * 92 / 100, buckets, seed);
    const Placement p = PlaceKeys(keys, buckets, 128, true);
    CheckPlacement(keys, buckets, p);
    for (uint32_t b = 0; b < buckets; b++) {
      const uint32_t* slots = &p.slots[b * kSlotsPerBucket];
      int preferred = 0;
      for (uint32_t s = 0; s < kSlotsPerBucket; s++) {
        preferred +=
            slots[s] != Placement::kEmpty && Prefers(keys[slots[s]], s);
      }
      ASSERT_EQ(preferred, MaximumPreferredInBucket(keys, slots))
          << "bucket " << b << ", seed " << seed;
    }
  }
}

// A bucket's worth of keys for bucket 1, as dense integer keys under
// identity hashing: each prefers a slot of its own there (key k slot 7 - k),
// and all second choices collide on slot 0 of bucket 0.
std::vector<BucketChoice> KeysPreferringDistinctSlots() {
  std::vector<BucketChoice> keys;
  for (uint8_t s = 0; s < kSlotsPerBucket; s++) {
    keys.push_back(BucketChoice{1, 0, {static_cast<uint8_t>(7 - s), 0}});
  }
  return keys;
}

TEST(CuckooPlacementTest, DistinctPreferencesAreAllMet) {
  const auto keys = KeysPreferringDistinctSlots();
  const Placement p = PlaceKeys(keys, 2, 10, true);
  CheckPlacement(keys, 2, p);
  for (uint32_t k = 0; k < keys.size(); k++) {
    EXPECT_EQ(p.slots[kSlotsPerBucket + keys[k].slot[0]], k);
  }
}

TEST(CuckooPlacementTest, WithoutPreferredSlotsKeysKeepTheirPlaces) {
  // For a file that does not store entries in slot order: a bucket's keys
  // fill it from its first slot, in the order they came.
  const auto keys = KeysPreferringDistinctSlots();
  const Placement p = PlaceKeys(keys, 2, 10, false);
  CheckPlacement(keys, 2, p);
  for (uint32_t k = 0; k < keys.size(); k++) {
    EXPECT_EQ(p.slots[kSlotsPerBucket + k], k);
  }
}

TEST(CuckooPlacementTest, OverfullTableStashesInsteadOfFailing) {
  const uint32_t buckets = 100;
  const auto keys = RandomKeys(buckets * kSlotsPerBucket + 50, buckets, 2);
  const Placement p = PlaceKeys(keys, buckets, 16, true);
  CheckPlacement(keys, buckets, p);
  EXPECT_GE(p.stash.size(), 50u);
}

TEST(CuckooPlacementTest, IdenticalChoicesForManyKeys) {
  // 20 keys that all want buckets 3 and 4: 16 fit, 4 go to the stash.
  std::vector<BucketChoice> keys(20, BucketChoice{3, 4, {0, 0}});
  const Placement p = PlaceKeys(keys, 8, 50, true);
  CheckPlacement(keys, 8, p);
  EXPECT_EQ(p.stash.size(), 4u);
}

TEST(CuckooPlacementTest, SingleBucketTable) {
  std::vector<BucketChoice> keys(5, BucketChoice{0, 0, {0, 0}});
  const Placement p = PlaceKeys(keys, 1, 10, true);
  CheckPlacement(keys, 1, p);
  EXPECT_TRUE(p.stash.empty());
}

}  // namespace
}  // namespace rocksdb_cuckoo
