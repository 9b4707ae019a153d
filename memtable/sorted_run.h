// One sorted run of a striped_hash memtable's view (sorted_view.h): the
// newest entry of each of a set of user keys, sorted by user key. Older
// versions hang off each head in their chain, already in internal-key order,
// so only one entry per user key is sorted.
//
// Built from the hash index (every key), from new entries alone, or from an
// older run with new entries or a newer run merged in. Never changed once
// built: views share runs.
//
// A run is two flat arrays, its heads and their ordered key prefixes. The
// view merges runs of similar sizes (a level into the next, ratio 8), so a
// merge rewrites most of its base anyway: one linear pass over both arrays,
// comparing prefixes, costs a few nanoseconds per head, where locating each
// new head by a search and sharing the untouched parts of the base cost
// several times that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "memtable/hash_node.h"
#include "memtable/hash_slot_index.h"
#include "rocksdb/memtablerep.h"
#include "util/large_buffer.h"

namespace rocksdb_cuckoo {

// What the memtable knows of the user comparator, for the sort's fast path.
enum class KeyOrder {
  kBytewise,         // leveldb.BytewiseComparator
  kReverseBytewise,  // rocksdb.ReverseBytewiseComparator
  kOther,            // anything else: every comparison goes through it
};

class SortedRun {
 public:
  using KeyComparator = ROCKSDB_NAMESPACE::MemTableRep::KeyComparator;

  // An empty run.
  SortedRun(const KeyComparator& comparator, KeyOrder order);
  // Takes the newest entry of each user key from the index and sorts them.
  // With a bytewise order the keys' first 8 bytes are radix-sorted and only
  // ties go through the comparator.
  SortedRun(HashSlotIndex* index, const KeyComparator& comparator,
            KeyOrder order);
  // `base` with `added` merged in: entries inserted since base was built
  // (in any order, several of a user key, some in base already), each
  // linked into the index before it was logged. Sorts only `added`; each
  // user key keeps its newest head.
  SortedRun(const SortedRun& base, std::vector<HashNode*> added);
  // `base` with the heads of `newer`, a run built after it, merged in; each
  // user key keeps its newest head.
  SortedRun(const SortedRun& base, const SortedRun& newer);

  size_t size() const { return size_; }
  KeyOrder order() const { return order_; }
  const KeyComparator& comparator() const { return comparator_; }

  // Requires i < size().
  HashNode* head(size_t i) const { return heads_[i]; }
  // head(i)'s ordered prefix (0 with KeyOrder::kOther).
  uint64_t prefix(size_t i) const {
    return prefixes_ != nullptr ? prefixes_[i] : 0;
  }

  // First position whose head is >= / > a length-prefixed internal key.
  size_t LowerBound(const char* memtable_key) const {
    return Search(memtable_key, /*upper=*/false);
  }
  size_t UpperBound(const char* memtable_key) const {
    return Search(memtable_key, /*upper=*/true);
  }
  // The ordered prefix of a length-prefixed internal key's user key (0 with
  // KeyOrder::kOther): heads whose prefixes differ hold different user keys.
  uint64_t PrefixOf(const char* memtable_key) const;

 private:
  // Room for `capacity` heads, and their prefixes unless the order has none.
  void Allocate(size_t capacity);
  // This run as `base` with heads[0, n) (sorted, one per user key, with
  // their prefixes unless the order has none) merged in. Of a user key in
  // both, the head that sorts first stays: the newest.
  void Merge(const SortedRun& base, HashNode* const* heads,
             const uint64_t* prefixes, size_t n);
  // Sorts `added` into the memtable's order, keeping the newest entry of
  // each user key, and fills *prefixes with theirs (none for kOther).
  void SortNewestPerKey(std::vector<HashNode*>* added,
                        std::vector<uint64_t>* prefixes) const;
  // Fills samples_ (large runs with prefixes only).
  void SampleEveryStride();
  // Whether `head`, whose prefix is `prefix`, sorts before memtable_key
  // (whose prefix is key_prefix), or also when equal (`upper`).
  bool Before(const HashNode* head, uint64_t prefix, const char* memtable_key,
              uint64_t key_prefix, bool upper) const;
  // First position whose head is > (upper) or >= memtable_key.
  size_t Search(const char* memtable_key, bool upper) const;

  // Holds heads_ and prefixes_ (null while the run is empty). Large runs
  // are mapped with huge pages: a merge writes each page once, and faults
  // in 2 MiB pages cost far less than in 4 KiB ones.
  std::unique_ptr<LargeBuffer> storage_;
  HashNode** heads_ = nullptr;
  uint64_t* prefixes_ = nullptr;  // null with KeyOrder::kOther
  size_t size_ = 0;
  // Every kSampleStride-th prefix of a large run: a search first picks the
  // stride from these, an array small enough to stay in cache, where probing
  // the prefixes of a large run costs a cache miss per step.
  static constexpr size_t kSampleStride = 32;
  static constexpr size_t kMinSampledHeads = 4096;
  std::vector<uint64_t> samples_;
  const KeyComparator& comparator_;
  const KeyOrder order_;
};

}  // namespace rocksdb_cuckoo
