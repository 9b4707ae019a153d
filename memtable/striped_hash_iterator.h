// MemTableRep::Iterator over a SortedView: heads in user-key order, each
// followed by its older versions along the chain. Seek and SeekForPrev
// binary-search the heads, then walk one chain.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "memtable/memtable_rep_compat.h"
#include "memtable/sorted_view.h"
#include "rocksdb/memtablerep.h"

namespace rocksdb_cuckoo {

class StripedHashIterator
    : public ValidatingMemTableIterator<StripedHashIterator> {
 public:
  using KeyComparator = ROCKSDB_NAMESPACE::MemTableRep::KeyComparator;

  StripedHashIterator(SortedViewSource* source,
                      std::shared_ptr<const SortedView> view,
                      const KeyComparator& comparator);

  bool Valid() const override { return node_ != nullptr; }
  const char* key() const override { return node_->entry(); }
  void Next() override;
  void Prev() override;
  void Seek(const ROCKSDB_NAMESPACE::Slice& internal_key,
            const char* memtable_key) override;
  void SeekForPrev(const ROCKSDB_NAMESPACE::Slice& internal_key,
                   const char* memtable_key) override;
  void SeekToFirst() override;
  void SeekToLast() override;

  // Moves that also check the order of what they pass: Corruption (naming
  // keys only if allow_data_in_errors) and an invalid iterator when keys are
  // out of order, as memory damage would leave them.
  ROCKSDB_NAMESPACE::Status NextChecked(bool allow_data_in_errors);
  ROCKSDB_NAMESPACE::Status PrevChecked(bool allow_data_in_errors);
  ROCKSDB_NAMESPACE::Status SeekChecked(
      const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key,
      bool allow_data_in_errors);

 private:
  // Called by every positioning move. The view the iterator was made with
  // serves the reader that made it; a later positioning may come from a
  // reader at a newer sequence number, so it takes a renewed view.
  void BeforePositioning();
  // Positions on head `index` (invalid past the end) and prefetches the
  // heads a scan will need next.
  void ToHead(size_t index);
  const char* Target(const ROCKSDB_NAMESPACE::Slice& internal_key,
                     const char* memtable_key);
  // OK if `before` sorts before `after`, else Corruption; invalidates.
  ROCKSDB_NAMESPACE::Status CheckOrder(const char* before, const char* after,
                                       bool allow_data_in_errors);

  SortedViewSource* const source_;
  std::shared_ptr<const SortedView> view_;
  const KeyComparator& comparator_;
  bool positioned_ = false;
  size_t index_ = 0;          // view position of node_'s user key
  HashNode* node_ = nullptr;  // current entry; null when invalid
  std::string scratch_;       // encoded seek target
};

}  // namespace rocksdb_cuckoo
