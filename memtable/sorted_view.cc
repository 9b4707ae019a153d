#include "memtable/sorted_view.h"

#include <utility>

namespace rocksdb_cuckoo {

namespace {

// Level i holds at most this many heads before it is merged on.
constexpr size_t LevelCapacity(size_t level) {
  size_t capacity = SortedView::kFirstLevelHeads;
  for (size_t i = 0; i < level; ++i) capacity *= SortedView::kLevelRatio;
  return capacity;
}

}  // namespace

SortedView::SortedView(HashSlotIndex* index, const KeyComparator& comparator,
                       KeyOrder order)
    : covered_keys_(index->NumKeys()),
      base_(std::make_shared<const SortedRun>(index, comparator, order)),
      runs_{base_.get()} {}

SortedView::SortedView(const SortedView& base, std::vector<HashNode*> added,
                       uint64_t covered_keys)
    : covered_keys_(covered_keys), base_(base.base_) {
  for (size_t i = 0; i < kLevels; ++i) levels_[i] = base.levels_[i];
  const SortedRun empty(base_->comparator(), base_->order());
  levels_[0] = std::make_shared<const SortedRun>(
      levels_[0] != nullptr ? *levels_[0] : empty, std::move(added));
  Compact();
  for (const auto& level : levels_) {
    if (level != nullptr && level->size() > 0) runs_.push_back(level.get());
  }
  runs_.push_back(base_.get());
}

void SortedView::Compact() {
  for (size_t i = 0; i < kLevels; ++i) {
    if (levels_[i] == nullptr) continue;
    const size_t heads = levels_[i]->size();
    const bool full = heads > LevelCapacity(i);
    // A level as large as a share of the base goes into it (merging it there
    // copies each base head once per that many new heads), as does the last
    // level when full; another full level goes into the next.
    if (heads * kLevelRatio >= base_->size() || (full && i + 1 == kLevels)) {
      base_ = std::make_shared<const SortedRun>(*base_, *levels_[i]);
    } else if (!full) {
      continue;
    } else if (levels_[i + 1] == nullptr) {
      levels_[i + 1] = std::move(levels_[i]);
    } else {
      levels_[i + 1] =
          std::make_shared<const SortedRun>(*levels_[i + 1], *levels_[i]);
    }
    levels_[i].reset();
  }
}

size_t SortedView::size() const {
  size_t heads = 0;
  for (const SortedRun* run : runs_) heads += run->size();
  return heads;
}

size_t SortedView::CountBefore(const char* memtable_key) const {
  size_t heads = 0;
  for (const SortedRun* run : runs_) heads += run->LowerBound(memtable_key);
  return heads;
}

}  // namespace rocksdb_cuckoo
