#include "memtable/sorted_run.h"

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

// Below this many heads (a renewal's few new entries, typically) a
// comparison sort beats the radix sort's passes over 256 counters each.
constexpr size_t kRadixSortMinItems = 512;

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
               const SortedRun::KeyComparator& comparator, KeyOrder order) {
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
  const Item* sorted = items;
  if (n < kRadixSortMinItems) {
    std::sort(items, items + n,
              [](const Item& a, const Item& b) { return a.prefix < b.prefix; });
  } else {
    sorted = RadixSortByPrefix(items, scratch, n, varying);
  }

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

// The first i in [lo, hi) for which before(i) is false (hi if none), where
// before holds on a prefix of the range.
template <typename Before>
size_t FirstNotBefore(size_t lo, size_t hi, const Before& before) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (before(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

bool SameUserKey(const HashNode* a, const HashNode* b) {
  return DecodeEntryKey(a->entry()).user_key ==
         DecodeEntryKey(b->entry()).user_key;
}

}  // namespace

SortedRun::SortedRun(const KeyComparator& comparator, KeyOrder order)
    : comparator_(comparator), order_(order) {}

SortedRun::SortedRun(HashSlotIndex* index, const KeyComparator& comparator,
                     KeyOrder order)
    : comparator_(comparator), order_(order) {
  // Room for the keys counted now and some that concurrent writers add while
  // the index is scanned; a scan that finds more starts again with more.
  // The heads are sorted where they were collected, which becomes the run.
  for (size_t capacity = index->NumKeys() * 17 / 16 + 64;; capacity *= 2) {
    Allocate(capacity);
    size_ = index->CollectHeads(heads_, capacity);
    if (size_ <= capacity) break;
  }
  SortHeads(heads_, prefixes_, size_, comparator_, order_);
  SampleEveryStride();
}

SortedRun::SortedRun(const SortedRun& base, std::vector<HashNode*> added)
    : comparator_(base.comparator_), order_(base.order_) {
  std::vector<uint64_t> prefixes;
  SortNewestPerKey(&added, &prefixes);
  Merge(base, added.data(), prefixes.data(), added.size());
}

SortedRun::SortedRun(const SortedRun& base, const SortedRun& newer)
    : comparator_(base.comparator_), order_(base.order_) {
  Merge(base, newer.heads_, newer.prefixes_, newer.size_);
}

void SortedRun::Allocate(size_t capacity) {
  const bool with_prefixes = order_ != KeyOrder::kOther;
  storage_ = std::make_unique<LargeBuffer>(
      capacity * (sizeof(HashNode*) + (with_prefixes ? sizeof(uint64_t) : 0)));
  heads_ = static_cast<HashNode**>(storage_->data());
  prefixes_ =
      with_prefixes ? reinterpret_cast<uint64_t*>(heads_ + capacity) : nullptr;
}

void SortedRun::Merge(const SortedRun& base, HashNode* const* heads,
                      const uint64_t* prefixes, size_t n) {
  const size_t m = base.size_;
  if (m + n == 0) return;
  Allocate(m + n);
  const bool with_prefixes = prefixes_ != nullptr;
  size_t i = 0;  // next of base
  size_t j = 0;  // next of heads
  size_t out = 0;
  auto take = [&](HashNode* head, uint64_t prefix) {
    heads_[out] = head;
    if (with_prefixes) prefixes_[out] = prefix;
    ++out;
  };
  while (i < m && j < n) {
    const uint64_t base_prefix = with_prefixes ? base.prefixes_[i] : 0;
    const uint64_t new_prefix = with_prefixes ? prefixes[j] : 0;
    if (base_prefix < new_prefix) {
      take(base.heads_[i++], base_prefix);
      continue;
    }
    if (new_prefix < base_prefix) {
      take(heads[j++], new_prefix);
      continue;
    }
    // Equal prefixes (always, without them): the entries decide. A user key
    // in both keeps the head that sorts first, its newest version; the
    // other is on that head's chain (or is the same entry).
    HashNode* const a = base.heads_[i];
    HashNode* const b = heads[j];
    const int c = comparator_(a->entry(), b->entry());
    const bool same = c == 0 || SameUserKey(a, b);
    if (c <= 0) {
      take(a, base_prefix);
      ++i;
      j += same ? 1 : 0;
    } else {
      take(b, new_prefix);
      ++j;
      i += same ? 1 : 0;
    }
  }
  // One side is used up: the other's rest follows in one copy.
  auto copy_rest = [&](HashNode* const* from_heads,
                       const uint64_t* from_prefixes, size_t from, size_t to) {
    std::copy(from_heads + from, from_heads + to, heads_ + out);
    if (with_prefixes) {
      std::copy(from_prefixes + from, from_prefixes + to, prefixes_ + out);
    }
    out += to - from;
  };
  copy_rest(base.heads_, base.prefixes_, i, m);
  copy_rest(heads, prefixes, j, n);
  size_ = out;
  SampleEveryStride();
}

void SortedRun::SortNewestPerKey(std::vector<HashNode*>* added,
                                 std::vector<uint64_t>* prefixes) const {
  const bool with_prefixes = order_ != KeyOrder::kOther;
  prefixes->assign(with_prefixes ? added->size() : 0, 0);
  SortHeads(added->data(), prefixes->data(), added->size(), comparator_,
            order_);
  // Newest first within a user key: keep the first of each.
  size_t unique = 0;
  for (size_t j = 0; j < added->size(); ++j) {
    if (unique > 0 &&
        (!with_prefixes || (*prefixes)[unique - 1] == (*prefixes)[j]) &&
        SameUserKey((*added)[unique - 1], (*added)[j])) {
      continue;
    }
    (*added)[unique] = (*added)[j];
    if (with_prefixes) (*prefixes)[unique] = (*prefixes)[j];
    ++unique;
  }
  added->resize(unique);
  prefixes->resize(with_prefixes ? unique : 0);
}

uint64_t SortedRun::PrefixOf(const char* memtable_key) const {
  return order_ != KeyOrder::kOther
             ? OrderedPrefix(DecodeEntryKey(memtable_key).user_key, order_)
             : 0;
}

bool SortedRun::Before(const HashNode* head, uint64_t prefix,
                       const char* memtable_key, uint64_t key_prefix,
                       bool upper) const {
  if (order_ != KeyOrder::kOther && prefix != key_prefix) {
    return prefix < key_prefix;
  }
  const int c = comparator_(head->entry(), memtable_key);
  return upper ? c <= 0 : c < 0;
}

void SortedRun::SampleEveryStride() {
  if (prefixes_ == nullptr || size_ < kMinSampledHeads) return;
  samples_.resize((size_ + kSampleStride - 1) / kSampleStride);
  for (size_t k = 0; k < samples_.size(); ++k) {
    samples_[k] = prefixes_[k * kSampleStride];
  }
}

size_t SortedRun::Search(const char* memtable_key, bool upper) const {
  const uint64_t key_prefix = PrefixOf(memtable_key);
  auto before = [&](size_t i) {
    return Before(heads_[i], prefix(i), memtable_key, key_prefix, upper);
  };
  size_t lo = 0;
  size_t hi = size_;
  if (!samples_.empty()) {
    // The stride holding the answer, from the samples: position k *
    // kSampleStride is before the key for every k below `first`.
    const size_t first = FirstNotBefore(0, samples_.size(), [&](size_t k) {
      return Before(heads_[k * kSampleStride], samples_[k], memtable_key,
                    key_prefix, upper);
    });
    if (first > 0) lo = (first - 1) * kSampleStride + 1;
    if (first < samples_.size()) hi = first * kSampleStride;
  }
  return FirstNotBefore(lo, hi, before);
}

}  // namespace rocksdb_cuckoo
