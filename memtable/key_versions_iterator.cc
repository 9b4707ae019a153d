#include "memtable/key_versions_iterator.h"

namespace rocksdb_cuckoo {

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
  // The first version at or below the target's sequence number (Target
  // loads head_ first).
  const uint64_t sequence = Target(internal_key, memtable_key).sequence();
  node_ = FirstAtOrBelow(head_, sequence);
}

void KeyVersionsIterator::SeekForPrev(
    const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key) {
  // The last version at or above the target's sequence number.
  const uint64_t sequence = Target(internal_key, memtable_key).sequence();
  node_ = LastAtOrAbove(head_, sequence);
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
  node_ = VersionBefore(head_, node_);
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
