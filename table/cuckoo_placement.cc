#include "table/cuckoo_placement.h"

#include <algorithm>
#include <utility>

#include "table/cuckoo_hash_table_format.h"

namespace rocksdb_cuckoo {
namespace {

class Placer {
 public:
  Placer(const std::vector<BucketChoice>& keys, uint32_t num_buckets,
         bool preferred_slots)
      : keys_(keys),
        counts_(num_buckets, 0),
        preferred_slots_(preferred_slots) {
    result_.slots.assign(uint64_t{num_buckets} * kSlotsPerBucket,
                         Placement::kEmpty);
    if (preferred_slots_) preferences_.resize(result_.slots.size());
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
      const uint64_t slot = SlotIndex(bucket, NextRandom() % kSlotsPerBucket);
      const uint32_t evicted = result_.slots[slot];
      result_.in_second_bucket -= (bucket != keys_[evicted].first);
      Seat(homeless, slot, bucket);
      homeless = evicted;
      bucket = Other(homeless, bucket);
      if (TryPut(homeless, bucket)) return;
    }
    result_.stash.push_back(homeless);
  }

  Placement Finish() {
    if (preferred_slots_) {
      for (uint32_t b = 0; b < counts_.size(); b++) ArrangeBucket(b);
    }
    return std::move(result_);
  }

 private:
  static constexpr uint8_t kNoKey = 0xff;

  static uint64_t SlotIndex(uint32_t bucket, uint32_t slot) {
    return uint64_t{bucket} * kSlotsPerBucket + slot;
  }
  uint32_t Other(uint32_t key, uint32_t bucket) const {
    return keys_[key].first == bucket ? keys_[key].second : keys_[key].first;
  }
  bool TryPut(uint32_t key, uint32_t bucket) {
    if (counts_[bucket] == kSlotsPerBucket) return false;
    Seat(key, SlotIndex(bucket, counts_[bucket]++), bucket);
    return true;
  }
  // Puts `key` in `slot` of `bucket`, keeping beside it what Finish needs
  // of it (its preferred slots), and counts it if `bucket` is its second:
  // Finish then reads no key's choices, each a cache miss at random.
  void Seat(uint32_t key, uint64_t slot, uint32_t bucket) {
    const BucketChoice& choice = keys_[key];
    result_.slots[slot] = key;
    if (preferred_slots_) {
      preferences_[slot] =
          static_cast<uint8_t>(choice.slot[0] | choice.slot[1] << 4);
    }
    result_.in_second_bucket += (bucket != choice.first);
  }
  // Seats the bucket's keys in preferred slots by augmenting paths (Kuhn's
  // algorithm: at most 8 keys and 8 slots), then the rest in free slots.
  // Works on the keys' positions in the bucket (below kSlotsPerBucket).
  // Most keys find a preferred slot free: those are seated first, and only
  // the others search for a path (from that start, Kuhn's algorithm still
  // ends at a maximum matching), which spares most of the search's
  // unpredictable branches.
  void ArrangeBucket(uint32_t bucket) {
    const uint32_t count = counts_[bucket];
    uint32_t* slots = &result_.slots[SlotIndex(bucket, 0)];
    const uint8_t* preferences = &preferences_[SlotIndex(bucket, 0)];
    uint8_t seated[kSlotsPerBucket];  // which key each slot holds
    std::fill(seated, seated + kSlotsPerBucket, kNoKey);
    uint8_t waiting[kSlotsPerBucket];
    uint32_t num_waiting = 0;
    for (uint8_t k = 0; k < count; k++) {
      uint8_t& first = seated[preferences[k] & 15];
      uint8_t& second = seated[preferences[k] >> 4];
      if (first == kNoKey) {
        first = k;
      } else if (second == kNoKey) {
        second = k;
      } else {
        waiting[num_waiting++] = k;
      }
    }
    uint8_t unseated[kSlotsPerBucket];
    uint32_t num_unseated = 0;
    for (uint32_t i = 0; i < num_waiting; i++) {
      uint32_t visited = 0;
      if (!SeatPreferred(waiting[i], preferences, seated, &visited)) {
        unseated[num_unseated++] = waiting[i];
      }
    }
    for (uint32_t s = 0, i = 0; i < num_unseated; s++) {
      if (seated[s] == kNoKey) seated[s] = unseated[i++];
    }
    uint32_t keys[kSlotsPerBucket];
    std::copy(slots, slots + count, keys);
    for (uint32_t s = 0; s < kSlotsPerBucket; s++) {
      slots[s] = seated[s] == kNoKey ? Placement::kEmpty : keys[seated[s]];
    }
  }
  // Puts key `k` in a preferred slot, moving the holder to its other
  // preferred slot if that frees one; slots in *visited are not retried.
  static bool SeatPreferred(uint8_t k, const uint8_t* preferences,
                            uint8_t* seated, uint32_t* visited) {
    for (const uint8_t s : {preferences[k] & 15, preferences[k] >> 4}) {
      if (*visited & (1u << s)) continue;
      *visited |= 1u << s;
      if (seated[s] == kNoKey ||
          SeatPreferred(seated[s], preferences, seated, visited)) {
        seated[s] = k;
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
  const bool preferred_slots_;
  Placement result_;
  // Beside each slot, its key's preferred slots (low and high 4 bits).
  std::vector<uint8_t> preferences_;
  uint64_t rng_ = 0x2545f4914f6cdd1dULL;
};

}  // namespace

Placement PlaceKeys(const std::vector<BucketChoice>& keys, uint32_t num_buckets,
                    uint32_t max_search_depth, bool preferred_slots) {
  Placer placer(keys, num_buckets, preferred_slots);
  for (uint32_t key = 0; key < keys.size(); key++) {
    placer.Insert(key, max_search_depth);
  }
  return placer.Finish();
}

}  // namespace rocksdb_cuckoo
