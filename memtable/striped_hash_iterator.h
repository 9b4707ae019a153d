// MemTableRep::Iterator over a SortedView: heads in user-key order, each
// followed by its older versions along the chain. The view's runs are
// merged: the iterator keeps, per run, the position of its first head past
// the current user key, and takes the least of those next (of one user key
// in several runs, the newest head, whose chain holds every version). A head
// that newer versions have superseded since the view was built is replaced
// by its key's current head from the hash index as the iterator lands on
// it. Seek and SeekForPrev binary-search each run, then walk one chain; Prev
// steps back in each run without searching.
//
// The same iterator serves GetDynamicPrefixIterator, which RocksDB uses two
// ways:
//   - for work on one key (with max_successive_merges, counting a key's
//     newest merge operands on every Merge; in-place updates): these seek
//     with the memtable key in hand and stop at the first other user key;
//   - with a prefix extractor, for prefix seeks (MemTableIterator), which
//     seek with the internal key only and need every key of the prefix, in
//     order.
// Made with a KeyVersionsSource, a Seek or SeekForPrev given the memtable
// key places the iterator on the target user key's versions alone, found
// through the hash index, and Next and Prev leaving them invalidate it:
// the sorted view would sort the whole memtable again after every write.
// Any other positioning uses the view. (RocksDB 7.8.3, 9.10.0 and 9.11.2 pass
// the memtable key from exactly those single-key operations: MemTable::Update,
// UpdateCallback, CountSuccessiveMergeEntries and MemTableRep::Get.)
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "memtable/hash_node.h"
#include "memtable/memtable_rep_compat.h"
#include "memtable/sorted_view.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/slice.h"

namespace rocksdb_cuckoo {

// Finds one user key's versions without the sorted view.
class KeyVersionsSource {
 public:
  virtual ~KeyVersionsSource() = default;
  // The newest version of `user_key` (older ones follow on its chain), or
  // null.
  virtual HashNode* NewestVersion(
      const ROCKSDB_NAMESPACE::Slice& user_key) const = 0;
};

class StripedHashIterator
    : public ValidatingMemTableIterator<StripedHashIterator> {
 public:
  using KeyComparator = ROCKSDB_NAMESPACE::MemTableRep::KeyComparator;

  // A null `view`: the iterator takes the current one when first positioned.
  // A non-null `versions`: seeks given the memtable key stay on its user
  // key (above).
  StripedHashIterator(SortedViewSource* source,
                      std::shared_ptr<const SortedView> view,
                      const KeyComparator& comparator,
                      const KeyVersionsSource* versions = nullptr);

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

  // Moves that also check the order of what they pass, and that the hash
  // index finds what they land on under its own key: Corruption (naming
  // keys only if allow_data_in_errors) and an invalid iterator where memory
  // damage left keys out of order or changed a key after it was indexed.
  // The first checked move over a view checks every head of it that way
  // (SortedView::checked): a view sorted after a key was damaged holds it
  // in its wrong place, where no move between its neighbours would pass it.
  ROCKSDB_NAMESPACE::Status NextChecked(bool allow_data_in_errors);
  ROCKSDB_NAMESPACE::Status PrevChecked(bool allow_data_in_errors);
  // Also hands `validate_entry` (if not empty) the entries the seek reads,
  // as a skip list's seek does those on its search path: the versions of
  // the user key it stops in, from the newest down to where it stops (all
  // of them in one-key mode when it stops past them), and the entry before
  // the one found, which the order check reads. The view's binary search
  // compares prefixes it keeps itself; the order check covers its result.
  // The target's own slot in the index is checked too, which finds the
  // target's entry if damage changed its key. The first failure is
  // returned, and the iterator is invalid.
  ROCKSDB_NAMESPACE::Status SeekChecked(
      const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key,
      bool allow_data_in_errors, const EntryValidator& validate_entry);

 private:
  // Where the iterator stands in the view's runs.
  struct Position {
    HashNode* head = nullptr;  // newest version of the current user key
    // Runs whose head before next[r] holds the current user key (bit r):
    // kept rather than compared again, so that a step back moves back in
    // every run even where memory damage changed a key.
    uint32_t on_key = 0;
    // Per run: its first head whose user key sorts after head's (with
    // head null: where the next move starts).
    size_t next[SortedView::kMaxRuns] = {};
  };

  // Called by every positioning move, the first included: the memtable as
  // it is now (the same view if nothing was added since). A tailing
  // iterator (ForwardIterator) or a refreshed one keeps this iterator and
  // positions it after later writes, and must see them.
  void BeforePositioning();
  // Takes the memtable's current view if entries were added since this
  // one; whether it did.
  bool RenewView();
  // The head at position `index` (< size) of run `run`, and its prefix.
  HashNode* HeadAt(size_t run, size_t index) const {
    return view_->run(run).head(index);
  }
  uint64_t PrefixAt(size_t run, size_t index) const {
    return view_->run(run).prefix(index);
  }
  // `head`, or the newest version of its user key when a newer one has
  // superseded it since the view was built (null stays null).
  HashNode* Current(HashNode* head) const;
  // Whether run `run`'s head at `index` holds `user_key`, whose ordered
  // prefix is `prefix`: the prefix rules most heads out unread.
  bool HoldsUserKey(size_t run, size_t index,
                    const ROCKSDB_NAMESPACE::Slice& user_key, uint64_t prefix);
  // Positions on the least user key at or after pos_.next, and moves every
  // run past it; invalid when none is left.
  void ToNextKey();
  // Positions on the last version of the greatest user key before the
  // current one (before pos_.next, without pos_.on_key's heads), and moves
  // every run just past it; invalid when none is left.
  void ToPrevKey();
  // Starts loading the heads a scan of run `run` from `index` needs next.
  void PrefetchAhead(size_t run, size_t index);
  // Seek and SeekForPrev: searches every run for `target` (its first head
  // >= it, or > it when `upper`), sets pos_.next past the target's user key
  // in each, and returns that user key's newest head, or null if no run
  // holds it.
  HashNode* PassTargetKey(const char* target, bool upper);
  const char* Target(const ROCKSDB_NAMESPACE::Slice& internal_key,
                     const char* memtable_key);
  // For Seek and SeekForPrev: whether this one stays on the target's user
  // key (else BeforePositioning leaves one-key mode).
  bool StaysOnOneKey(const char* memtable_key) const {
    return versions_ != nullptr && memtable_key != nullptr;
  }
  // Enters one-key mode on the target's user key (key_head_ its newest
  // version); returns the target's sequence number.
  uint64_t ToOneKey(const char* memtable_key);
  // validate_entry on each version from `from` through `to` (to the chain's
  // end when `to` is null); invalidates on failure.
  ROCKSDB_NAMESPACE::Status ValidateVersions(
      const HashNode* from, const HashNode* to, bool allow_data_in_errors,
      const EntryValidator& validate_entry);
  // Corruption unless the index finds `node` under its own key.
  ROCKSDB_NAMESPACE::Status CheckIndexed(const HashNode* node,
                                         bool allow_data_in_errors) const;
  // After a checked move: every head of the view, the first time, then the
  // entry landed on; invalidates on failure.
  ROCKSDB_NAMESPACE::Status CheckLanding(bool allow_data_in_errors);
  // OK if `before` sorts before `after`, else Corruption; invalidates.
  ROCKSDB_NAMESPACE::Status CheckOrder(const char* before, const char* after,
                                       bool allow_data_in_errors);

  SortedViewSource* const source_;
  const KeyVersionsSource* const versions_;
  // Positioned on one user key's versions (key_head_ the newest), not in
  // the view.
  bool on_one_key_ = false;
  HashNode* key_head_ = nullptr;
  std::shared_ptr<const SortedView> view_;
  const KeyComparator& comparator_;
  Position pos_;
  HashNode* node_ = nullptr;  // current entry; null when invalid
  size_t steps_ = 0;          // ToNextKey calls since the last positioning
  std::string scratch_;       // encoded seek target
};

}  // namespace rocksdb_cuckoo
