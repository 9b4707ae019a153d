// An ordered view of a striped_hash memtable for iterators and flush: the
// newest entry of every user key, sorted by user key. Older versions hang off
// each head in their chain, already in internal-key order, so only one entry
// per user key is sorted.
//
// Built on demand from the hash index; iterators share it, and the memtable
// reuses it until an insert arrives. Entries inserted after the build are not
// in it unless they joined a chain in the view: they carry sequence numbers
// above any reader that could ask for them.
#pragma once

#include <cstddef>
#include <memory>

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

  size_t size() const { return size_; }
  HashNode* head(size_t i) const { return heads_[i]; }

  // First position whose head is >= / > a length-prefixed internal key.
  size_t LowerBound(const char* memtable_key) const;
  size_t UpperBound(const char* memtable_key) const;

  size_t MemoryUsage() const { return sizeof(*this) + storage_->size(); }

 private:
  std::unique_ptr<LargeBuffer> storage_;  // holds heads_
  HashNode** heads_ = nullptr;
  size_t size_ = 0;
  const KeyComparator& comparator_;
};

}  // namespace rocksdb_cuckoo
