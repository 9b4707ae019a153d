// The iterator the striped_hash memtable hands out for
// GetDynamicPrefixIterator when it has no prefix extractor. RocksDB lets a
// Seek there see only keys with the target's prefix; with no extractor the
// whole user key is the prefix. RocksDB uses it for work on one key: with
// max_successive_merges, counting a key's newest merge operands on every
// Merge. The hash index answers that directly, where the sorted view would
// sort the whole memtable again after every write.
//
// Seek and SeekForPrev place the iterator on the target user key's versions
// (newest first, as in the memtable's order); Next and Prev move along them
// and leaving them invalidates it. SeekToFirst and SeekToLast have no target
// key: they iterate the whole memtable in order.
#pragma once

#include <memory>
#include <string>

#include "memtable/hash_node.h"
#include "memtable/striped_hash_iterator.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/slice.h"

namespace rocksdb_cuckoo {

// What the iterator needs of the memtable.
class KeyVersionsSource {
 public:
  virtual ~KeyVersionsSource() = default;
  // The newest version of `user_key` (older ones follow on its chain), or
  // null.
  virtual HashNode* NewestVersion(
      const ROCKSDB_NAMESPACE::Slice& user_key) const = 0;
  // An iterator over the whole memtable in order.
  virtual std::unique_ptr<StripedHashIterator> NewOrderedIterator() = 0;
};

class KeyVersionsIterator : public ROCKSDB_NAMESPACE::MemTableRep::Iterator {
 public:
  explicit KeyVersionsIterator(KeyVersionsSource* source) : source_(source) {}

  bool Valid() const override {
    return whole_ != nullptr ? whole_->Valid() : node_ != nullptr;
  }
  const char* key() const override {
    return whole_ != nullptr ? whole_->key() : node_->entry();
  }
  void Next() override;
  void Prev() override;
  void Seek(const ROCKSDB_NAMESPACE::Slice& internal_key,
            const char* memtable_key) override;
  void SeekForPrev(const ROCKSDB_NAMESPACE::Slice& internal_key,
                   const char* memtable_key) override;
  void SeekToFirst() override;
  void SeekToLast() override;

 private:
  // The target's user key and sequence number; loads its versions' head.
  EntryKey Target(const ROCKSDB_NAMESPACE::Slice& internal_key,
                  const char* memtable_key);

  KeyVersionsSource* const source_;
  // Set by SeekToFirst and SeekToLast until the next Seek or SeekForPrev.
  std::unique_ptr<StripedHashIterator> whole_;
  HashNode* head_ = nullptr;  // newest version of the target's user key
  HashNode* node_ = nullptr;  // current version; null when invalid
  std::string scratch_;       // encoded target
};

}  // namespace rocksdb_cuckoo
