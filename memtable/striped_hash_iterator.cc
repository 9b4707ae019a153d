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

// A memtable key for `user_key` with the trailer `packed`: with 0 it sorts
// after every version of the user key.
const char* EncodeUserKeyBound(const Slice& user_key, uint64_t packed,
                               std::string* scratch) {
  scratch->clear();
  ROCKSDB_NAMESPACE::PutVarint32(scratch,
                                 static_cast<uint32_t>(user_key.size() + 8));
  scratch->append(user_key.data(), user_key.size());
  ROCKSDB_NAMESPACE::PutFixed64(scratch, packed);
  return scratch->data();
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
  steps_ = 0;
  RenewView();
}

bool StripedHashIterator::RenewView() {
  std::shared_ptr<const SortedView> view = source_->Renewed(view_);
  if (view == view_) return false;
  view_ = std::move(view);
  return true;
}

HashNode* StripedHashIterator::Current(HashNode* head) const {
  if (head == nullptr || !IsSuperseded(head)) return head;
  // Still on the chain (newer versions link in front of it): without an
  // answer from the index, as when memory was damaged, the chain from here
  // is what there is.
  HashNode* current =
      source_->CurrentHead(DecodeEntryKey(head->entry()).user_key);
  return current != nullptr ? current : head;
}

bool StripedHashIterator::HoldsUserKey(size_t run, size_t index,
                                       const Slice& user_key, uint64_t prefix) {
  if (PrefixAt(run, index) != prefix) return false;
  return DecodeEntryKey(HeadAt(run, index)->entry()).user_key == user_key;
}

void StripedHashIterator::PrefetchAhead(size_t run, size_t index) {
  const SortedRun& heads = view_->run(run);
  if (index + kPrefetchDistance >= heads.size()) return;
  const char* ahead =
      reinterpret_cast<const char*>(heads.head(index + kPrefetchDistance));
  __builtin_prefetch(ahead);
  __builtin_prefetch(ahead + 64);
  // Older versions hang off the heads. Once a scan has gone on a while,
  // the head half as far ahead has arrived, so its chain's next entry can be
  // fetched too; right after a seek it has not, and reading its link would
  // wait for memory.
  if (steps_ <= kPrefetchDistance) return;
  const HashNode* nearer = heads.head(index + kPrefetchDistance / 2);
  __builtin_prefetch(NodeAt(nearer->next.load(std::memory_order_relaxed)));
}

void StripedHashIterator::ToNextKey() {
  const size_t runs = view_->num_runs();
  // The least head at the runs' next positions; prefixes settle most
  // comparisons unread (all of them are 0 without prefixes).
  size_t best = runs;
  HashNode* best_head = nullptr;
  uint64_t best_prefix = 0;
  for (size_t r = 0; r < runs; ++r) {
    const size_t i = pos_.next[r];
    if (i >= view_->run(r).size()) continue;
    const uint64_t prefix = PrefixAt(r, i);
    if (best != runs) {
      if (prefix != best_prefix) {
        if (prefix > best_prefix) continue;
      } else if (comparator_(HeadAt(r, i)->entry(), best_head->entry()) >= 0) {
        continue;
      }
    }
    best = r;
    best_head = HeadAt(r, i);
    best_prefix = prefix;
  }
  pos_.on_key = 0;
  if (best == runs) {
    pos_.head = nullptr;
    node_ = nullptr;
    return;
  }
  const size_t at = pos_.next[best];
  const Slice user_key = DecodeEntryKey(best_head->entry()).user_key;
  for (size_t r = 0; r < runs; ++r) {
    const size_t i = pos_.next[r];
    if (r == best || (i < view_->run(r).size() &&
                      HoldsUserKey(r, i, user_key, best_prefix))) {
      pos_.next[r] = i + 1;
      pos_.on_key |= 1u << r;
    }
  }
  pos_.head = Current(best_head);
  node_ = pos_.head;
  ++steps_;
  PrefetchAhead(best, at);
}

void StripedHashIterator::ToPrevKey() {
  const size_t runs = view_->num_runs();
  // Per run, its heads before the current user key: the greatest of their
  // last ones is the previous user key (of one user key, the newest head).
  size_t before[SortedView::kMaxRuns];
  size_t best = runs;
  HashNode* best_head = nullptr;
  uint64_t best_prefix = 0;
  for (size_t r = 0; r < runs; ++r) {
    const size_t end = pos_.next[r] - ((pos_.on_key >> r) & 1);
    before[r] = end;
    if (end == 0) continue;
    const uint64_t prefix = PrefixAt(r, end - 1);
    HashNode* head = HeadAt(r, end - 1);
    if (best != runs) {
      if (prefix != best_prefix) {
        if (prefix < best_prefix) continue;
      } else {
        const int c = comparator_(head->entry(), best_head->entry());
        const bool same = DecodeEntryKey(head->entry()).user_key ==
                          DecodeEntryKey(best_head->entry()).user_key;
        if (same ? c >= 0 : c < 0) continue;
      }
    }
    best = r;
    best_head = head;
    best_prefix = prefix;
  }
  pos_.on_key = 0;
  if (best == runs) {
    pos_.head = nullptr;
    node_ = nullptr;
    return;
  }
  pos_.head = Current(best_head);
  node_ = LastOfChain(pos_.head);
  // Each run's first head past the new user key is the first it had at or
  // after the old one.
  const Slice user_key = DecodeEntryKey(best_head->entry()).user_key;
  for (size_t r = 0; r < runs; ++r) {
    pos_.next[r] = before[r];
    if (before[r] > 0 &&
        (r == best || HoldsUserKey(r, before[r] - 1, user_key, best_prefix))) {
      pos_.on_key |= 1u << r;
    }
  }
}

void StripedHashIterator::Next() {
  HashNode* next = NextOf(node_);
  if (next != nullptr || on_one_key_) {
    node_ = next;
    return;
  }
  HashNode* const head = pos_.head;
  ToNextKey();
  if (node_ != nullptr || !RenewView()) return;
  // Past the view's last key: a tailing iterator (ForwardIterator) steps on
  // after later writes, as over a skip list, so the keys added since that
  // sort after this one come next.
  const char* past = EncodeUserKeyBound(DecodeEntryKey(head->entry()).user_key,
                                        /*packed=*/0, &scratch_);
  for (size_t r = 0; r < view_->num_runs(); ++r) {
    pos_.next[r] = view_->run(r).UpperBound(past);
  }
  ToNextKey();
}

void StripedHashIterator::Prev() {
  if (on_one_key_) {
    node_ = VersionBefore(key_head_, node_);
    return;
  }
  if (node_ != pos_.head) {
    // node_ stays reachable from the head: entries are never unlinked.
    node_ = VersionBefore(pos_.head, node_);
    return;
  }
  ToPrevKey();
}

const char* StripedHashIterator::Target(const Slice& internal_key,
                                        const char* memtable_key) {
  return memtable_key != nullptr ? memtable_key
                                 : EncodeMemtableKey(internal_key, &scratch_);
}

HashNode* StripedHashIterator::PassTargetKey(const char* target, bool upper) {
  const EntryKey key = DecodeEntryKey(target);
  const uint64_t prefix = view_->run(0).PrefixOf(target);
  // A run holds at most one head of the user key: just before its bound
  // or at it.
  HashNode* newest = nullptr;
  pos_.on_key = 0;
  for (size_t r = 0; r < view_->num_runs(); ++r) {
    const SortedRun& run = view_->run(r);
    const size_t i = upper ? run.UpperBound(target) : run.LowerBound(target);
    pos_.next[r] = i;
    HashNode* head;
    if (i > 0 && HoldsUserKey(r, i - 1, key.user_key, prefix)) {
      head = HeadAt(r, i - 1);
    } else if (i < run.size() && HoldsUserKey(r, i, key.user_key, prefix)) {
      head = HeadAt(r, i);
      pos_.next[r] = i + 1;
    } else {
      continue;
    }
    pos_.on_key |= 1u << r;
    if (newest == nullptr || comparator_(head->entry(), newest->entry()) < 0) {
      newest = head;
    }
  }
  return Current(newest);
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
  HashNode* newest = PassTargetKey(target, /*upper=*/false);
  // Within one user key the order is sequence descending: the target's
  // user key may have versions at or after the target.
  HashNode* node =
      newest != nullptr
          ? FirstAtOrBelow(newest, DecodeEntryKey(target).sequence())
          : nullptr;
  if (node != nullptr) {
    pos_.head = newest;
    node_ = node;
    return;
  }
  ToNextKey();
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
  HashNode* newest = PassTargetKey(target, /*upper=*/true);
  HashNode* node =
      newest != nullptr
          ? LastAtOrAbove(newest, DecodeEntryKey(target).sequence())
          : nullptr;
  if (node != nullptr) {
    pos_.head = newest;
    node_ = node;
    return;
  }
  // No version of the target's user key is at or before it: the previous
  // user key's last version is.
  pos_.head = newest;
  ToPrevKey();
}

void StripedHashIterator::SeekToFirst() {
  BeforePositioning();
  pos_.on_key = 0;
  for (size_t r = 0; r < view_->num_runs(); ++r) pos_.next[r] = 0;
  ToNextKey();
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

Status StripedHashIterator::CheckIndexed(const HashNode* node,
                                         bool allow_data_in_errors) const {
  const Slice user_key = DecodeEntryKey(node->entry()).user_key;
  return CheckFound(user_key, source_->FindChecked(user_key), node,
                    allow_data_in_errors);
}

Status StripedHashIterator::CheckLanding(bool allow_data_in_errors) {
  Status s;
  if (!on_one_key_ && view_ != nullptr && !view_->checked()) {
    for (size_t r = 0; r < view_->num_runs() && s.ok(); ++r) {
      const SortedRun& run = view_->run(r);
      for (size_t i = 0; i < run.size() && s.ok(); ++i) {
        s = CheckIndexed(run.head(i), allow_data_in_errors);
      }
    }
    if (s.ok()) view_->MarkChecked();
  }
  if (s.ok() && Valid()) s = CheckIndexed(node_, allow_data_in_errors);
  if (!s.ok()) node_ = nullptr;
  return s;
}

Status StripedHashIterator::NextChecked(bool allow_data_in_errors) {
  const char* before = key();
  Next();
  Status s = CheckLanding(allow_data_in_errors);
  if (s.ok() && Valid()) s = CheckOrder(before, key(), allow_data_in_errors);
  return s;
}

Status StripedHashIterator::PrevChecked(bool allow_data_in_errors) {
  const char* after = key();
  Prev();
  Status s = CheckLanding(allow_data_in_errors);
  if (s.ok() && Valid()) s = CheckOrder(key(), after, allow_data_in_errors);
  return s;
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
      on_one_key_ ? key_head_ : (Valid() ? pos_.head : nullptr);
  if (validate_entry) {
    Status s =
        ValidateVersions(newest, node_, allow_data_in_errors, validate_entry);
    if (!s.ok()) return s;
  }
  const char* target = Target(internal_key, memtable_key);
  const Slice target_key = DecodeEntryKey(target).user_key;
  Status checked = CheckFound(target_key, source_->FindChecked(target_key),
                              nullptr, allow_data_in_errors);
  if (checked.ok()) checked = CheckLanding(allow_data_in_errors);
  if (!checked.ok()) {
    node_ = nullptr;
    return checked;
  }
  if (!Valid()) return Status::OK();
  // The entry found is >= the target, and the one before it < the target.
  if (comparator_(key(), target) < 0) {
    return CheckOrder(target, key(), allow_data_in_errors);
  }
  HashNode* const found = node_;
  const Position found_position = pos_;
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
    pos_ = found_position;
    node_ = found;
  } else {
    node_ = nullptr;
  }
  return s;
}

void StripedHashIterator::SeekToLast() {
  BeforePositioning();
  pos_.head = nullptr;
  pos_.on_key = 0;
  for (size_t r = 0; r < view_->num_runs(); ++r) {
    pos_.next[r] = view_->run(r).size();
  }
  ToPrevKey();
}

}  // namespace rocksdb_cuckoo
