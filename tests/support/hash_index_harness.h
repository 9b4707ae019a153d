// The striped_hash memtable's parts without the rep around them: entries as
// HashNodes in a HashSlotIndex, views sorted from it, and the two sources a
// StripedHashIterator asks (for the current view, for one key's versions).
// For the tests of SortedRun, SortedView and StripedHashIterator, which
// drive those directly.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "memory/arena.h"
#include "memtable/hash_node.h"
#include "memtable/hash_slot_index.h"
#include "memtable/sorted_view.h"
#include "memtable/striped_hash_iterator.h"
#include "tests/support/memtable_rep_harness.h"

namespace rocksdb_cuckoo::testing {

class IndexHarness : public SortedViewSource, public KeyVersionsSource {
 public:
  // `order` is what the rep would detect for `user` (kOther: comparator
  // only).
  explicit IndexHarness(const Comparator* user = BytewiseComparator(),
                        KeyOrder order = KeyOrder::kBytewise)
      : comparator_(InternalKeyComparator(user)),
        order_(order),
        index_(/*initial_slots=*/16, /*max_load_factor=*/0.75) {}

  // Lays the entry out as the memtable does (a HashNode, then the entry as
  // MemTable::Add encodes it) and links it into the index: its node, or
  // null when the index already holds that key and sequence.
  HashNode* Add(const Entry& entry) {
    const std::string encoded = entry.Encoded();
    char* memory = arena_.AllocateAligned(sizeof(HashNode) + encoded.size());
    HashNode* node = new (memory) HashNode();
    memcpy(node->entry(), encoded.data(), encoded.size());
    const HashSlotIndex::InsertResult result =
        index_.Insert(node, DecodeEntryKey(node->entry()), /*cpu=*/0);
    return result.inserted ? node : nullptr;
  }

  // A run sorted from the whole index.
  std::shared_ptr<const SortedRun> SortRun() {
    ++sorts_;
    return std::make_shared<SortedRun>(&index_, comparator_, order_);
  }

  // A view sorted from the whole index.
  std::shared_ptr<const SortedView> Sort() {
    ++sorts_;
    return std::make_shared<SortedView>(&index_, comparator_, order_);
  }

  // As the rep answers: `view` while no user key was added since it was
  // built, else a full sort.
  std::shared_ptr<const SortedView> Renewed(
      std::shared_ptr<const SortedView> view) override {
    if (view != nullptr &&
        (keep_views_ || view->covered_keys() == index_.NumKeys())) {
      return view;
    }
    return Sort();
  }

  HashNode* CurrentHead(const Slice& user_key) const override {
    return index_.Find(user_key, /*cpu=*/0).head;
  }
  // Links `node` in again under the key it holds now. After damage changed
  // its key the index finds it there too, and only the order of a view
  // sorted before the damage shows it. That view stays current: the index
  // counts a new key, which is not one.
  void Reindex(HashNode* node) {
    index_.Insert(node, DecodeEntryKey(node->entry()), /*cpu=*/0);
    keep_views_ = true;
  }

  HashSlotIndex::FindResult FindChecked(const Slice& user_key) const override {
    return index_.FindChecked(user_key, HashSlotIndex::Hash(user_key),
                              /*cpu=*/0);
  }

  // The harness counts no lookups: both questions get the index's answer.
  HashNode* NewestVersion(const Slice& user_key) const override {
    return CurrentHead(user_key);
  }

  // Memtable keys sorted by the memtable's comparator: the order an
  // iterator must produce.
  std::vector<std::string> SortedMemtableKeys(
      const std::vector<Entry>& entries) const {
    return SortedByComparator(comparator_, entries);
  }

  const MemTableRep::KeyComparator& comparator() const { return comparator_; }
  HashSlotIndex* index() { return &index_; }
  // Full sorts so far (Sort, and Renewed when it had to).
  int sorts() const { return sorts_; }

 private:
  const MemTable::KeyComparator comparator_;
  const KeyOrder order_;
  Arena arena_;
  // Find counts its probes in the index's statistics; the keys it finds
  // are not changed.
  mutable HashSlotIndex index_;
  bool keep_views_ = false;
  int sorts_ = 0;
};

// The run's heads, in its order.
inline std::vector<HashNode*> HeadsOf(const SortedRun& run) {
  std::vector<HashNode*> heads;
  for (size_t i = 0; i < run.size(); ++i) {
    heads.push_back(run.head(i));
  }
  return heads;
}

}  // namespace rocksdb_cuckoo::testing
