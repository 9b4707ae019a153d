#include "memtable/sorted_view.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "util/large_buffer.h"

namespace rocksdb_cuckoo {

namespace {

// A head with the first 8 bytes of its user key as an integer that orders
// like the keys do (zero-padded, so ties need the comparator).
struct Item {
  uint64_t prefix;
  HashNode* node;
};

// Computing prefixes touches every node once in slot (random) order: fetch
// this many ahead so the misses overlap.
constexpr size_t kPrefetchDistance = 16;

uint64_t OrderedPrefix(const ROCKSDB_NAMESPACE::Slice& user_key,
                       KeyOrder order) {
  uint64_t raw = 0;
  memcpy(&raw, user_key.data(), std::min<size_t>(8, user_key.size()));
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
  raw = __builtin_bswap64(raw);
#endif
  return order == KeyOrder::kReverseBytewise ? ~raw : raw;
}

uint64_t OrderedPrefix(const HashNode* node, KeyOrder order) {
  return OrderedPrefix(DecodeEntryKey(node->entry()).user_key, order);
}

// LSD radix sort of items[0, n) by prefix, one pass per byte that varies at
// all (`varying` has those bits set; keys sharing leading bytes, as integer
// keys do, skip those passes). Returns whichever of items and scratch holds
// the result.
Item* RadixSortByPrefix(Item* items, Item* scratch, size_t n,
                        uint64_t varying) {
  int shifts[8];
  int passes = 0;
  for (int shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xff) != 0) shifts[passes++] = shift;
  }
  std::vector<size_t> counts(static_cast<size_t>(passes) * 256, 0);
  for (size_t i = 0; i < n; ++i) {
    for (int p = 0; p < passes; ++p) {
      ++counts[p * 256 + ((items[i].prefix >> shifts[p]) & 0xff)];
    }
  }
  Item* from = items;
  Item* to = scratch;
  for (int p = 0; p < passes; ++p) {
    size_t* offsets = &counts[p * 256];
    size_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      const size_t count = offsets[b];
      offsets[b] = sum;
      sum += count;
    }
    for (size_t i = 0; i < n; ++i) {
      to[offsets[(from[i].prefix >> shifts[p]) & 0xff]++] = from[i];
    }
    std::swap(from, to);
  }
  return from;
}

// Sorts heads[0, n), one per user key, into the memtable's order, and
// writes their ordered prefixes to prefixes[0, n) unless the order has none.
void SortHeads(HashNode** heads, uint64_t* prefixes, size_t n,
               const SortedView::KeyComparator& comparator, KeyOrder order) {
  auto less = [&comparator](const HashNode* a, const HashNode* b) {
    return comparator(a->entry(), b->entry()) < 0;
  };
  if (order == KeyOrder::kOther) {
    std::sort(heads, heads + n, less);
    return;
  }

  // Items and the radix pass's scratch: written before read, and large, so
  // in a LargeBuffer (no zeroing, huge pages where the kernel allows).
  LargeBuffer buffer(2 * n * sizeof(Item));
  Item* items = static_cast<Item*>(buffer.data());
  Item* scratch = items + n;
  uint64_t varying = 0;
  const uint64_t first = n > 0 ? OrderedPrefix(heads[0], order) : 0;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) {
      __builtin_prefetch(heads[i + kPrefetchDistance]);
    }
    const uint64_t prefix = OrderedPrefix(heads[i], order);
    items[i] = {prefix, heads[i]};
    varying |= prefix ^ first;
  }
  const Item* sorted = RadixSortByPrefix(items, scratch, n, varying);

  size_t run_start = 0;
  for (size_t i = 0; i < n; ++i) {
    heads[i] = sorted[i].node;
    prefixes[i] = sorted[i].prefix;
    // Keys equal in their first 8 bytes: finish the run with the comparator.
    if (i + 1 == n || sorted[i + 1].prefix != sorted[i].prefix) {
      if (i > run_start) {
        std::sort(heads + run_start, heads + i + 1, less);
      }
      run_start = i + 1;
    }
  }
}

bool SameUserKey(const HashNode* a, const HashNode* b) {
  return DecodeEntryKey(a->entry()).user_key ==
         DecodeEntryKey(b->entry()).user_key;
}

}  // namespace

SortedView::SortedView(HashSlotIndex* index, const KeyComparator& comparator,
                       KeyOrder order)
    : covered_entries_(index->NumEntries()),
      comparator_(comparator),
      order_(order) {
  // Room for the keys counted now and some that concurrent writers add while
  // the index is scanned; a scan that finds more starts again with more.
  for (size_t capacity = index->NumKeys() * 17 / 16 + 64;; capacity *= 2) {
    Allocate(capacity, capacity, nullptr);
    size_ = index->CollectHeads(heads_, capacity);
    if (size_ <= capacity) break;
  }
  SortHeads(heads_, prefixes_, size_, comparator_, order_);
}

SortedView::SortedView(const SortedView& base, std::vector<HashNode*> added,
                       uint64_t covered_entries,
                       std::unique_ptr<LargeBuffer> recycled)
    : covered_entries_(covered_entries),
      comparator_(base.comparator_),
      order_(base.order_) {
  std::vector<uint64_t> added_prefixes(
      order_ == KeyOrder::kOther ? 0 : added.size());
  SortHeads(added.data(), added_prefixes.data(), added.size(), comparator_,
            order_);
  const size_t needed = base.size_ + added.size();
  // Room to grow: a later renewal may reuse this view's memory.
  Allocate(needed, needed + needed / 8 + 64, std::move(recycled));
  // Whether position `i` of this view and added[j] hold the same user key;
  // different prefixes say no without reading the nodes.
  auto same_key = [&](const HashNode* node, uint64_t prefix, size_t j) {
    if (prefixes_ != nullptr && prefix != added_prefixes[j]) return false;
    return SameUserKey(node, added[j]);
  };
  // Copies base's positions [from, end) to the end of this view.
  auto copy_base = [&](size_t from, size_t end) {
    std::copy(base.heads_ + from, base.heads_ + end, heads_ + size_);
    if (prefixes_ != nullptr) {
      std::copy(base.prefixes_ + from, base.prefixes_ + end, prefixes_ + size_);
    }
    size_ += end - from;
  };
  // Each added head goes where it sorts. Newest first within a user key:
  // the first added head of a key is its newest, and a key in both keeps
  // whichever head sorts first (the chain from it holds the other).
  size_t from = 0;
  for (size_t i = 0; i < added.size(); ++i) {
    HashNode* head = added[i];
    const size_t at = base.Search(from, head->entry(), /*upper=*/false);
    copy_base(from, at);
    from = at;
    if (size_ > 0 &&
        same_key(heads_[size_ - 1],
                 prefixes_ != nullptr ? prefixes_[size_ - 1] : 0, i)) {
      continue;
    }
    if (from < base.size_ &&
        same_key(base.heads_[from],
                 prefixes_ != nullptr ? base.prefixes_[from] : 0, i)) {
      ++from;
    }
    if (prefixes_ != nullptr) prefixes_[size_] = added_prefixes[i];
    heads_[size_++] = head;
  }
  copy_base(from, base.size_);
}

void SortedView::Allocate(size_t needed, size_t wanted,
                          std::unique_ptr<LargeBuffer> recycled) {
  const size_t per_head =
      sizeof(HashNode*) + (order_ == KeyOrder::kOther ? 0 : sizeof(uint64_t));
  if (recycled != nullptr && recycled->size() >= needed * per_head) {
    storage_ = std::move(recycled);
  } else {
    storage_ =
        std::make_unique<LargeBuffer>(std::max<size_t>(1, wanted) * per_head);
  }
  const size_t capacity = storage_->size() / per_head;
  heads_ = static_cast<HashNode**>(storage_->data());
  prefixes_ = order_ == KeyOrder::kOther
                  ? nullptr
                  : reinterpret_cast<uint64_t*>(heads_ + capacity);
}

std::unique_ptr<LargeBuffer> SortedView::TakeMemory() {
  heads_ = nullptr;
  prefixes_ = nullptr;
  size_ = 0;
  return std::move(storage_);
}

size_t SortedView::Search(size_t from, const char* memtable_key,
                          bool upper) const {
  size_t begin = from;
  size_t end = size_;
  if (prefixes_ != nullptr) {
    // Only heads sharing the key's prefix need the comparator.
    const uint64_t prefix =
        OrderedPrefix(DecodeEntryKey(memtable_key).user_key, order_);
    begin = static_cast<size_t>(
        std::lower_bound(prefixes_ + from, prefixes_ + size_, prefix) -
        prefixes_);
    end = static_cast<size_t>(
        std::upper_bound(prefixes_ + begin, prefixes_ + size_, prefix) -
        prefixes_);
  }
  return static_cast<size_t>(
      std::partition_point(heads_ + begin, heads_ + end,
                           [&](const HashNode* head) {
                             const int c =
                                 comparator_(head->entry(), memtable_key);
                             return upper ? c <= 0 : c < 0;
                           }) -
      heads_);
}

}  // namespace rocksdb_cuckoo
