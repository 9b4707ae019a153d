// An ordered view of a striped_hash memtable for iterators and flush: the
// newest entry of every user key, sorted by user key. Older versions hang off
// each head in their chain, already in internal-key order, so only one entry
// per user key is sorted.
//
// Built on demand from the hash index, or from the previous view and the
// entries inserted since (InsertLog); iterators share it, and the memtable
// reuses it until an insert arrives. Entries inserted after the build are not
// in it unless they joined a chain in the view: they carry sequence numbers
// above the reader the view was made for. A reader whose sequence number
// grows later (Iterator::Refresh, tailing iterators) asks its
// SortedViewSource for a view again.
#pragma once

#include <cstddef>
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

class SortedView {
 public:
  using KeyComparator = ROCKSDB_NAMESPACE::MemTableRep::KeyComparator;

  // Takes the newest entry of each user key from the index and sorts them.
  // With a bytewise order the keys' first 8 bytes are radix-sorted and only
  // ties go through the comparator.
  SortedView(HashSlotIndex* index, const KeyComparator& comparator,
             KeyOrder order);
  // `base` with `added` merged in: entries inserted since base was built
  // (in any order, several of a user key, some in base already), each
  // linked into the index before it was logged. Sorts only `added`; each
  // user key keeps its newest head. `covered_entries`: the index's entry
  // count before the log was taken. `recycled`: memory of a view no longer
  // read, used if large enough.
  SortedView(const SortedView& base, std::vector<HashNode*> added,
             uint64_t covered_entries, std::unique_ptr<LargeBuffer> recycled);

  size_t size() const { return size_; }
  // The index's entry count when the build started: all of them are in it.
  uint64_t covered_entries() const { return covered_entries_; }
  HashNode* head(size_t i) const { return heads_[i]; }

  // First position whose head is >= / > a length-prefixed internal key.
  size_t LowerBound(const char* memtable_key) const {
    return Search(0, memtable_key, /*upper=*/false);
  }
  size_t UpperBound(const char* memtable_key) const {
    return Search(0, memtable_key, /*upper=*/true);
  }

  size_t MemoryUsage() const {
    return sizeof(*this) + (storage_ != nullptr ? storage_->size() : 0);
  }
  // Hands over the view's memory for another view to reuse; the view is
  // empty afterwards. Only for a view nothing else reads.
  std::unique_ptr<LargeBuffer> TakeMemory();

 private:
  // Room for at least `needed` heads and, with a bytewise order, their
  // prefixes: `recycled` if it is large enough, else new memory for
  // `wanted`.
  void Allocate(size_t needed, size_t wanted,
                std::unique_ptr<LargeBuffer> recycled);
  // First position at or after `from` whose head is > (upper) or >=
  // memtable_key.
  size_t Search(size_t from, const char* memtable_key, bool upper) const;

  std::unique_ptr<LargeBuffer> storage_;  // holds heads_ and prefixes_
  HashNode** heads_ = nullptr;
  // The first 8 bytes of each head's user key as an integer that orders
  // like the keys (null for KeyOrder::kOther): searches compare these and
  // go to the nodes only for keys that share them.
  uint64_t* prefixes_ = nullptr;
  size_t size_ = 0;
  uint64_t covered_entries_;
  const KeyComparator& comparator_;
  const KeyOrder order_;
};

// Hands an iterator a view again before it repositions. A DB iterator keeps
// its memtable iterator across Iterator::Refresh() while the memtable stays,
// and a tailing iterator keeps it across seeks; both then read at a newer
// sequence number, which the entries inserted since must serve.
class SortedViewSource {
 public:
  virtual ~SortedViewSource() = default;
  // `view` while nothing was inserted since it was built, else (or if null)
  // the current one.
  virtual std::shared_ptr<const SortedView> Renewed(
      std::shared_ptr<const SortedView> view) = 0;
};

}  // namespace rocksdb_cuckoo
