#include "table/cuckoo_placement.h"

#include <algorithm>
#include <utility>

#include "table/cuckoo_hash_table_format.h"

namespace rocksdb_cuckoo {
namespace {

class Placer {
 public:
  Placer(const std::vector<BucketChoice>& keys, uint32_t num_buckets)
      : keys_(keys), counts_(num_buckets, 0) {
    result_.slots.assign(uint64_t{num_buckets} * kSlotsPerBucket,
                         Placement::kEmpty);
  }

  // Never lowers a bucket's count (an eviction puts the homeless key in
  // the evicted one's slot). So a key that goes to its second bucket, or
  // the stash, found its first bucket full, and that bucket stays full:
  // the invariant the reader's misses rely on holds without a pass after.
  void Insert(uint32_t key, uint32_t max_search_depth) {
    const BucketChoice& choice = keys_[key];
    if (TryPut(key, choice.first) || TryPut(key, choice.second)) return;
    uint32_t homeless = key;
    uint32_t bucket = (NextRandom() & 1) ? choice.first : choice.second;
    for (uint32_t depth = 0; depth < max_search_depth; depth++) {
      uint32_t& slot =
          result_.slots[SlotIndex(bucket, NextRandom() % kSlotsPerBucket)];
      std::swap(homeless, slot);
      bucket = Other(homeless, bucket);
      if (TryPut(homeless, bucket)) return;
    }
    result_.stash.push_back(homeless);
  }

  Placement Finish() {
    for (uint32_t b = 0; b < counts_.size(); b++) {
      for (uint32_t s = 0; s < counts_[b]; s++) {
        const BucketChoice& choice = keys_[result_.slots[SlotIndex(b, s)]];
        result_.in_second_bucket += (b != choice.first);
      }
      ArrangeBucket(b);
    }
    return std::move(result_);
  }

 private:
  static uint64_t SlotIndex(uint32_t bucket, uint32_t slot) {
    return uint64_t{bucket} * kSlotsPerBucket + slot;
  }
  uint32_t Other(uint32_t key, uint32_t bucket) const {
    return keys_[key].first == bucket ? keys_[key].second : keys_[key].first;
  }
  bool TryPut(uint32_t key, uint32_t bucket) {
    if (counts_[bucket] == kSlotsPerBucket) return false;
    result_.slots[SlotIndex(bucket, counts_[bucket]++)] = key;
    return true;
  }
  // Seats the bucket's keys in preferred slots by augmenting paths (Kuhn's
  // algorithm: at most 8 keys and 8 slots), then the rest in free slots.
  void ArrangeBucket(uint32_t bucket) {
    uint32_t keys[kSlotsPerBucket];
    const uint32_t count = counts_[bucket];
    uint32_t* slots = &result_.slots[SlotIndex(bucket, 0)];
    std::copy(slots, slots + count, keys);
    std::fill(slots, slots + kSlotsPerBucket, Placement::kEmpty);
    uint32_t unseated = 0;
    for (uint32_t i = 0; i < count; i++) {
      uint32_t visited = 0;
      if (!Seat(keys[i], slots, &visited)) keys[unseated++] = keys[i];
    }
    for (uint32_t s = 0, i = 0; i < unseated; s++) {
      if (slots[s] == Placement::kEmpty) slots[s] = keys[i++];
    }
  }
  // Puts `key` in a preferred slot, moving the holder to its other
  // preferred slot if that frees one; slots in *visited are not retried.
  bool Seat(uint32_t key, uint32_t* slots, uint32_t* visited) const {
    for (const uint8_t s : keys_[key].slot) {
      if (*visited & (1u << s)) continue;
      *visited |= 1u << s;
      if (slots[s] == Placement::kEmpty || Seat(slots[s], slots, visited)) {
        slots[s] = key;
        return true;
      }
    }
    return false;
  }
  // xorshift64: deterministic, so a file's layout depends only on its keys.
  uint64_t NextRandom() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }

  const std::vector<BucketChoice>& keys_;
  std::vector<uint8_t> counts_;
  Placement result_;
  uint64_t rng_ = 0x2545f4914f6cdd1dULL;
};

}  // namespace

Placement PlaceKeys(const std::vector<BucketChoice>& keys, uint32_t num_buckets,
                    uint32_t max_search_depth) {
  Placer placer(keys, num_buckets);
  for (uint32_t key = 0; key < keys.size(); key++) {
    placer.Insert(key, max_search_depth);
  }
  return placer.Finish();
}

}  // namespace rocksdb_cuckoo
