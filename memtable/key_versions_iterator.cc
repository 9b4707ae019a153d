#include "memtable/key_versions_iterator.h"

namespace rocksdb_cuckoo {

namespace {

HashNode* NextOf(const HashNode* node) {
  return node->next.load(std::memory_order_acquire);
}

}  // namespace

EntryKey KeyVersionsIterator::Target(
    const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key) {
  whole_.reset();
  const EntryKey target = DecodeEntryKey(
      memtable_key != nullptr ? memtable_key
                              : EncodeMemtableKey(internal_key, &scratch_));
  head_ = source_->NewestVersion(target.user_key);
  return target;
}

void KeyVersionsIterator::Seek(const ROCKSDB_NAMESPACE::Slice& internal_key,
                               const char* memtable_key) {
  // The first version at or below the target's sequence number.
  const EntryKey target = Target(internal_key, memtable_key);
  node_ = head_;
  while (node_ != nullptr && SequenceOf(node_) > target.sequence()) {
    node_ = NextOf(node_);
  }
}

void KeyVersionsIterator::SeekForPrev(
    const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key) {
  // The last version at or above the target's sequence number.
  const EntryKey target = Target(internal_key, memtable_key);
  node_ = nullptr;
  for (HashNode* node = head_;
       node != nullptr && SequenceOf(node) >= target.sequence();
       node = NextOf(node)) {
    node_ = node;
  }
}

void KeyVersionsIterator::Next() {
  if (whole_ != nullptr) {
    whole_->Next();
  } else {
    node_ = NextOf(node_);
  }
}

void KeyVersionsIterator::Prev() {
  if (whole_ != nullptr) {
    whole_->Prev();
    return;
  }
  // Chains are singly linked and short: find the predecessor from the head.
  HashNode* prev = nullptr;
  for (HashNode* node = head_; node != node_; node = NextOf(node)) {
    prev = node;
  }
  node_ = prev;
}

void KeyVersionsIterator::SeekToFirst() {
  whole_ = source_->NewOrderedIterator();
  whole_->SeekToFirst();
}

void KeyVersionsIterator::SeekToLast() {
  whole_ = source_->NewOrderedIterator();
  whole_->SeekToLast();
}

}  // namespace rocksdb_cuckoo
