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

uint64_t OrderedPrefix(const HashNode* node, KeyOrder order) {
  const ROCKSDB_NAMESPACE::Slice user_key =
      DecodeEntryKey(node->entry()).user_key;
  uint64_t raw = 0;
  memcpy(&raw, user_key.data(), std::min<size_t>(8, user_key.size()));
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
  raw = __builtin_bswap64(raw);
#endif
  return order == KeyOrder::kReverseBytewise ? ~raw : raw;
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

}  // namespace

SortedView::SortedView(HashSlotIndex* index, const KeyComparator& comparator,
                       KeyOrder order)
    : covered_entries_(index->NumEntries()), comparator_(comparator) {
  // Room for the keys counted now and some that concurrent writers add while
  // the index is scanned; a scan that finds more starts again with more.
  for (size_t capacity = index->NumKeys() * 17 / 16 + 64;; capacity *= 2) {
    storage_ = std::make_unique<LargeBuffer>(capacity * sizeof(HashNode*));
    heads_ = static_cast<HashNode**>(storage_->data());
    size_ = index->CollectHeads(heads_, capacity);
    if (size_ <= capacity) break;
  }
  const size_t n = size_;
  auto less = [&comparator](const HashNode* a, const HashNode* b) {
    return comparator(a->entry(), b->entry()) < 0;
  };
  if (order == KeyOrder::kOther) {
    std::sort(heads_, heads_ + n, less);
    return;
  }

  // Items and the radix pass's scratch: written before read, and large, so
  // in a LargeBuffer (no zeroing, huge pages where the kernel allows).
  LargeBuffer buffer(2 * n * sizeof(Item));
  Item* items = static_cast<Item*>(buffer.data());
  Item* scratch = items + n;
  uint64_t varying = 0;
  const uint64_t first = n > 0 ? OrderedPrefix(heads_[0], order) : 0;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) {
      __builtin_prefetch(heads_[i + kPrefetchDistance]);
    }
    const uint64_t prefix = OrderedPrefix(heads_[i], order);
    items[i] = {prefix, heads_[i]};
    varying |= prefix ^ first;
  }
  const Item* sorted = RadixSortByPrefix(items, scratch, n, varying);

  size_t run_start = 0;
  for (size_t i = 0; i < n; ++i) {
    heads_[i] = sorted[i].node;
    // Keys equal in their first 8 bytes: finish the run with the comparator.
    if (i + 1 == n || sorted[i + 1].prefix != sorted[i].prefix) {
      if (i > run_start) {
        std::sort(heads_ + run_start, heads_ + i + 1, less);
      }
      run_start = i + 1;
    }
  }
}

size_t SortedView::LowerBound(const char* memtable_key) const {
  return static_cast<size_t>(
      std::partition_point(heads_, heads_ + size_,
                           [&](const HashNode* head) {
                             return comparator_(head->entry(), memtable_key) <
                                    0;
                           }) -
      heads_);
}

size_t SortedView::UpperBound(const char* memtable_key) const {
  return static_cast<size_t>(
      std::partition_point(heads_, heads_ + size_,
                           [&](const HashNode* head) {
                             return comparator_(head->entry(), memtable_key) <=
                                    0;
                           }) -
      heads_);
}

}  // namespace rocksdb_cuckoo
