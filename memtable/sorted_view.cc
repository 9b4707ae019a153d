#include "memtable/sorted_view.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

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
constexpr size_t kPrefetchDistance = 8;

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

// LSD radix sort on the prefix, one pass per byte that varies at all (keys
// sharing leading bytes, as integer keys do, skip those passes).
void RadixSortByPrefix(std::vector<Item>* items) {
  const size_t n = items->size();
  uint64_t varying = 0;
  size_t counts[8][256] = {};
  for (const Item& item : *items) {
    varying |= item.prefix ^ (*items)[0].prefix;
    for (int byte = 0; byte < 8; ++byte) {
      ++counts[byte][(item.prefix >> (8 * byte)) & 0xff];
    }
  }
  std::vector<Item> buffer(n);
  Item* from = items->data();
  Item* to = buffer.data();
  for (int byte = 0; byte < 8; ++byte) {
    if (((varying >> (8 * byte)) & 0xff) == 0) continue;
    size_t offsets[256];
    size_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      offsets[b] = sum;
      sum += counts[byte][b];
    }
    for (size_t i = 0; i < n; ++i) {
      to[offsets[(from[i].prefix >> (8 * byte)) & 0xff]++] = from[i];
    }
    std::swap(from, to);
  }
  if (from != items->data()) std::copy(from, from + n, items->data());
}

}  // namespace

SortedView::SortedView(std::vector<HashNode*> heads,
                       const KeyComparator& comparator, KeyOrder order)
    : comparator_(comparator) {
  auto less = [&comparator](const HashNode* a, const HashNode* b) {
    return comparator(a->entry(), b->entry()) < 0;
  };
  if (order == KeyOrder::kOther) {
    std::sort(heads.begin(), heads.end(), less);
    heads_ = std::move(heads);
    return;
  }

  std::vector<Item> items(heads.size());
  for (size_t i = 0; i < heads.size(); ++i) {
    if (i + kPrefetchDistance < heads.size()) {
      __builtin_prefetch(heads[i + kPrefetchDistance]);
    }
    items[i] = {OrderedPrefix(heads[i], order), heads[i]};
  }
  RadixSortByPrefix(&items);

  heads_ = std::move(heads);
  size_t run_start = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    heads_[i] = items[i].node;
    // Keys equal in their first 8 bytes: finish the run with the comparator.
    if (i + 1 == items.size() || items[i + 1].prefix != items[i].prefix) {
      if (i > run_start) {
        std::sort(heads_.begin() + run_start, heads_.begin() + i + 1, less);
      }
      run_start = i + 1;
    }
  }
}

size_t SortedView::LowerBound(const char* memtable_key) const {
  return static_cast<size_t>(
      std::partition_point(heads_.begin(), heads_.end(),
                           [&](const HashNode* head) {
                             return comparator_(head->entry(), memtable_key) <
                                    0;
                           }) -
      heads_.begin());
}

size_t SortedView::UpperBound(const char* memtable_key) const {
  return static_cast<size_t>(
      std::partition_point(heads_.begin(), heads_.end(),
                           [&](const HashNode* head) {
                             return comparator_(head->entry(), memtable_key) <=
                                    0;
                           }) -
      heads_.begin());
}

}  // namespace rocksdb_cuckoo
