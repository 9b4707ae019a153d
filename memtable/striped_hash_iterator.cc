#include "memtable/striped_hash_iterator.h"

#include <utility>

namespace rocksdb_cuckoo {

namespace {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

// A flush or scan visits heads in key order but in random memory order:
// fetch this many heads ahead, both lines of a typical small entry.
constexpr size_t kPrefetchDistance = 6;

HashNode* LastOfChain(HashNode* node) {
  for (HashNode* next = NextOf(node); next != nullptr; next = NextOf(next)) {
    node = next;
  }
  return node;
}

}  // namespace

StripedHashIterator::StripedHashIterator(SortedViewSource* source,
                                         std::shared_ptr<const SortedView> view,
                                         const KeyComparator& comparator,
                                         const KeyVersionsSource* versions)
    : source_(source),
      versions_(versions),
      view_(std::move(view)),
      comparator_(comparator) {}

uint64_t StripedHashIterator::ToOneKey(const char* memtable_key) {
  const EntryKey target = DecodeEntryKey(memtable_key);
  on_one_key_ = true;
  key_head_ = versions_->NewestVersion(target.user_key);
  return target.sequence();
}

void StripedHashIterator::BeforePositioning() {
  on_one_key_ = false;
  RenewView();
}

bool StripedHashIterator::RenewView() {
  std::shared_ptr<const SortedView> view = source_->Renewed(view_);
  if (view == view_) return false;
  view_ = std::move(view);
  span_ = SortedView::Span();
  return true;
}

HashNode* StripedHashIterator::HeadAt(size_t index) {
  if (!span_.Holds(index)) span_ = view_->SpanOf(index);
  return span_.head(index);
}

void StripedHashIterator::ToHead(size_t index) {
  index_ = index;
  if (index >= view_->size()) {
    node_ = nullptr;
    return;
  }
  node_ = HeadAt(index);
  // Within the chunk: the next one's heads are a lookup away.
  if (span_.Holds(index + kPrefetchDistance)) {
    const char* ahead =
        reinterpret_cast<const char*>(span_.head(index + kPrefetchDistance));
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
    // Older versions hang off the heads; by now the head half as far ahead
    // has arrived, so its chain's next entry can be fetched too.
    const HashNode* nearer = span_.head(index + kPrefetchDistance / 2);
    __builtin_prefetch(nearer->next.load(std::memory_order_relaxed));
  }
}

void StripedHashIterator::Next() {
  HashNode* next = NextOf(node_);
  if (next != nullptr || on_one_key_) {
    node_ = next;
    return;
  }
  if (index_ + 1 < view_->size()) {
    ToHead(index_ + 1);
    return;
  }
  // Past the view's last key: a tailing iterator (ForwardIterator) steps on
  // after later writes, as over a skip list, so the keys added since that
  // sort after this one come next.
  const char* current = HeadAt(index_)->entry();
  ToHead(RenewView() ? view_->UpperBound(current) : index_ + 1);
}

void StripedHashIterator::Prev() {
  if (on_one_key_) {
    node_ = VersionBefore(key_head_, node_);
    return;
  }
  HashNode* head = HeadAt(index_);
  if (node_ != head) {
    // node_ stays reachable from the head: entries are never unlinked.
    node_ = VersionBefore(head, node_);
  } else if (index_ == 0) {
    node_ = nullptr;
  } else {
    --index_;
    node_ = LastOfChain(HeadAt(index_));
  }
}

const char* StripedHashIterator::Target(const Slice& internal_key,
                                        const char* memtable_key) {
  return memtable_key != nullptr ? memtable_key
                                 : EncodeMemtableKey(internal_key, &scratch_);
}

void StripedHashIterator::Seek(const Slice& internal_key,
                               const char* memtable_key) {
  if (StaysOnOneKey(memtable_key)) {
    // The first version at or below the target's sequence number.
    node_ = FirstAtOrBelow(key_head_, ToOneKey(memtable_key));
    return;
  }
  BeforePositioning();
  const char* target = Target(internal_key, memtable_key);
  const size_t index = view_->LowerBound(target);
  if (index > 0) {
    // The head before `index` is < target, but when it has the target's
    // user key its older versions may be >= target. Within one user key the
    // order is sequence descending.
    const EntryKey key = DecodeEntryKey(target);
    HashNode* head = HeadAt(index - 1);
    if (DecodeEntryKey(head->entry()).user_key == key.user_key) {
      HashNode* older = FirstAtOrBelow(NextOf(head), key.sequence());
      if (older != nullptr) {
        index_ = index - 1;
        node_ = older;
        return;
      }
    }
  }
  ToHead(index);
}

void StripedHashIterator::SeekForPrev(const Slice& internal_key,
                                      const char* memtable_key) {
  if (StaysOnOneKey(memtable_key)) {
    // The last version at or above the target's sequence number.
    node_ = LastAtOrAbove(key_head_, ToOneKey(memtable_key));
    return;
  }
  BeforePositioning();
  const char* target = Target(internal_key, memtable_key);
  const size_t index = view_->UpperBound(target);
  if (index == 0) {
    index_ = 0;
    node_ = nullptr;
    return;
  }
  // The head at index - 1 is <= target. Its older versions are too unless
  // it has the target's user key; then stop before the first one > target.
  index_ = index - 1;
  HashNode* node = HeadAt(index_);
  const EntryKey key = DecodeEntryKey(target);
  if (DecodeEntryKey(node->entry()).user_key != key.user_key) {
    node_ = LastOfChain(node);
    return;
  }
  HashNode* older = LastAtOrAbove(NextOf(node), key.sequence());
  node_ = older != nullptr ? older : node;
}

void StripedHashIterator::SeekToFirst() {
  BeforePositioning();
  ToHead(0);
}

Status StripedHashIterator::CheckOrder(const char* before, const char* after,
                                       bool allow_data_in_errors) {
  if (comparator_(before, after) < 0) return Status::OK();
  std::string message = "striped_hash: iterator keys out of order";
  if (allow_data_in_errors) {
    message += ": " + DecodeEntryKey(before).user_key.ToString(true) +
               " then " + DecodeEntryKey(after).user_key.ToString(true);
  }
  node_ = nullptr;
  return Status::Corruption(message);
}

Status StripedHashIterator::NextChecked(bool allow_data_in_errors) {
  const char* before = key();
  Next();
  return Valid() ? CheckOrder(before, key(), allow_data_in_errors)
                 : Status::OK();
}

Status StripedHashIterator::PrevChecked(bool allow_data_in_errors) {
  const char* after = key();
  Prev();
  return Valid() ? CheckOrder(key(), after, allow_data_in_errors)
                 : Status::OK();
}

Status StripedHashIterator::ValidateVersions(
    const HashNode* from, const HashNode* to, bool allow_data_in_errors,
    const EntryValidator& validate_entry) {
  for (const HashNode* node = from; node != nullptr; node = NextOf(node)) {
    Status s = validate_entry(node->entry(), allow_data_in_errors);
    if (!s.ok()) {
      node_ = nullptr;
      return s;
    }
    if (node == to) break;
  }
  return Status::OK();
}

Status StripedHashIterator::SeekChecked(const Slice& internal_key,
                                        const char* memtable_key,
                                        bool allow_data_in_errors,
                                        const EntryValidator& validate_entry) {
  Seek(internal_key, memtable_key);
  // The newest version of the user key the seek stopped in.
  const HashNode* const newest =
      on_one_key_ ? key_head_ : (Valid() ? HeadAt(index_) : nullptr);
  if (validate_entry) {
    Status s =
        ValidateVersions(newest, node_, allow_data_in_errors, validate_entry);
    if (!s.ok()) return s;
  }
  if (!Valid()) return Status::OK();
  // The entry found is >= the target, and the one before it < the target.
  const char* target = Target(internal_key, memtable_key);
  if (comparator_(key(), target) < 0) {
    return CheckOrder(target, key(), allow_data_in_errors);
  }
  HashNode* const found = node_;
  const size_t found_index = index_;
  Prev();
  Status s;
  if (Valid()) {
    // Before a newest version lies another user key's entry, which the
    // walk above did not read.
    if (validate_entry && found == newest) {
      s = validate_entry(key(), allow_data_in_errors);
    }
    if (s.ok()) s = CheckOrder(key(), target, allow_data_in_errors);
  }
  if (s.ok()) {
    index_ = found_index;
    node_ = found;
  } else {
    node_ = nullptr;
  }
  return s;
}

void StripedHashIterator::SeekToLast() {
  BeforePositioning();
  if (view_->size() == 0) {
    index_ = 0;
    node_ = nullptr;
    return;
  }
  index_ = view_->size() - 1;
  node_ = LastOfChain(HeadAt(index_));
}

}  // namespace rocksdb_cuckoo
