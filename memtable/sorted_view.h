// An ordered view of a striped_hash memtable for iterators and flush: a few
// sorted runs (sorted_run.h), newest first, that together hold the newest
// entry of every user key. A user key may have a head in several runs; the
// newest of them (first in memtable order) is its head, and its chain holds
// the versions of the others. Iterators merge the runs (StripedHashIterator).
//
// Built on demand from the hash index as one run, then renewed from the
// previous view and the user keys inserted since (InsertLog); iterators
// share it, and the memtable reuses it until a new user key arrives. A
// view's heads may have been superseded by newer versions since (hash_node.h):
// readers take those from the index. Keys inserted after the build are not
// in it: they carry sequence numbers above the reader the view was made for.
// A reader whose sequence number grows later (Iterator::Refresh, tailing
// iterators) asks its SortedViewSource for a view again.
//
// Why runs: merging new entries into one large run copies all of it, and
// with a writer running flat out every new iterator brings dozens of
// entries. A renewal merges them into the newest run, which is small; a run
// that grows past its level's capacity is merged into the next older one,
// whose capacity is kLevelRatio times larger, and the oldest level into the
// base run once it holds 1/kLevelRatio of it. Each entry is thus copied a
// few dozen times over its life, 16 bytes each, and a seek searches at most
// kMaxRuns runs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "memtable/hash_node.h"
#include "memtable/hash_slot_index.h"
#include "memtable/sorted_run.h"

namespace rocksdb_cuckoo {

class SortedView {
 public:
  using KeyComparator = SortedRun::KeyComparator;
  // Levels above the base run, each kLevelRatio times the capacity of the
  // one before; the first holds kFirstLevelHeads.
  static constexpr size_t kLevels = 4;
  static constexpr size_t kFirstLevelHeads = 256;
  static constexpr size_t kLevelRatio = 8;
  static constexpr size_t kMaxRuns = kLevels + 1;

  // One run: every key of the index, sorted.
  SortedView(HashSlotIndex* index, const KeyComparator& comparator,
             KeyOrder order);
  // `base` with `added` merged in: entries inserted since base was built
  // (in any order, several of a user key, some in base already), each
  // linked into the index before it was logged. `covered_keys`: the
  // index's key count before the log was taken.
  SortedView(const SortedView& base, std::vector<HashNode*> added,
             uint64_t covered_keys);

  // Newest first; the last is the base run. Never empty.
  size_t num_runs() const { return runs_.size(); }
  const SortedRun& run(size_t i) const { return *runs_[i]; }
  // Heads over all runs (a user key may count in several).
  size_t size() const;
  // The index's key count when the build started: all of them are in it.
  uint64_t covered_keys() const { return covered_keys_; }
  // Heads over all runs before the first one >= a length-prefixed internal
  // key.
  size_t CountBefore(const char* memtable_key) const;

  // Whether a checked move found every head of this view in the index under
  // its own key; set once, by the first such move that did (the view is
  // shared, and checking it is as costly as building it).
  bool checked() const { return checked_.load(std::memory_order_acquire); }
  void MarkChecked() const { checked_.store(true, std::memory_order_release); }

 private:
  // Merges runs_[level] into the next older run when it outgrows its
  // capacity (into the base once it holds 1/kLevelRatio of it), and on down.
  void Compact();

  // First: read before the base is sorted. Writers may add keys while the
  // index is scanned; counting those as covered would make the memtable
  // reuse this view without them.
  const uint64_t covered_keys_;
  // levels_[i] is the run of level i (newest first), or null.
  std::shared_ptr<const SortedRun> levels_[kLevels];
  std::shared_ptr<const SortedRun> base_;
  // What iterators read: the levels present, newest first, then the base.
  std::vector<const SortedRun*> runs_;
  mutable std::atomic<bool> checked_{false};
};

// What an iterator asks the memtable for beside its view. A DB iterator
// keeps its memtable iterator across Iterator::Refresh() while the memtable
// stays, and a tailing iterator keeps it across seeks; both then read at a
// newer sequence number, which the keys inserted since must serve.
class SortedViewSource {
 public:
  virtual ~SortedViewSource() = default;
  // `view` while no user key was inserted since it was built, else (or if
  // null) the current one.
  virtual std::shared_ptr<const SortedView> Renewed(
      std::shared_ptr<const SortedView> view) = 0;
  // The newest version of a user key the memtable holds: where a view's
  // superseded head now stands.
  virtual HashNode* CurrentHead(
      const ROCKSDB_NAMESPACE::Slice& user_key) const = 0;
  // The index's checked answer for a user key (HashSlotIndex::FindChecked),
  // for checked moves.
  virtual HashSlotIndex::FindResult FindChecked(
      const ROCKSDB_NAMESPACE::Slice& user_key) const = 0;
};

}  // namespace rocksdb_cuckoo
