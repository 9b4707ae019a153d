// Cuckoo placement: which bucket slot each key takes.
//
// Kept apart from file writing so it can be tested on its own. Keys are
// inserted in order; a key whose two buckets are full evicts a random
// occupant, which moves to its other bucket, and so on for at most
// max_search_depth steps. Whoever is left without a slot goes to the stash,
// so placement never fails. Inserting this way keeps the invariant the
// reader relies on for one-cache-line misses: a key is in its second bucket
// or the stash only if its first bucket is full. Last, with preferred_slots,
// each bucket's keys are arranged so that as many as possible sit in one of
// their two preferred slots (a maximum matching of keys to slots): only a
// slot-ordered file, whose entries sit where their slots say, gains from it.
#pragma once

#include <cstdint>
#include <vector>

namespace rocksdb_cuckoo {

struct BucketChoice {
  uint32_t first;
  uint32_t second;
  uint8_t slot[2];  // preferred slots in either bucket, below kSlotsPerBucket
};

struct Placement {
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // num_buckets * kSlotsPerBucket key indexes (kEmpty for a free slot).
  std::vector<uint32_t> slots;
  std::vector<uint32_t> stash;  // key indexes placed in no bucket
  uint64_t in_second_bucket = 0;
};

// keys[i] holds key i's two bucket choices, each below num_buckets.
Placement PlaceKeys(const std::vector<BucketChoice>& keys, uint32_t num_buckets,
                    uint32_t max_search_depth, bool preferred_slots);

}  // namespace rocksdb_cuckoo
