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

struct SortedView::Chunk {
  size_t size = 0;
  HashNode* heads[kChunkHeads];
  uint64_t prefixes[kChunkHeads];  // unused with KeyOrder::kOther
};

SortedView::SortedView(HashSlotIndex* index, const KeyComparator& comparator,
                       KeyOrder order)
    : covered_entries_(index->NumEntries()),
      comparator_(comparator),
      order_(order) {
  // Room for the keys counted now and some that concurrent writers add while
  // the index is scanned; a scan that finds more starts again with more.
  std::unique_ptr<LargeBuffer> buffer;
  HashNode** heads = nullptr;
  size_t n = 0;
  for (size_t capacity = index->NumKeys() * 17 / 16 + 64;; capacity *= 2) {
    buffer = std::make_unique<LargeBuffer>(
        capacity * (sizeof(HashNode*) + sizeof(uint64_t)));
    heads = static_cast<HashNode**>(buffer->data());
    n = index->CollectHeads(heads, capacity);
    if (n <= capacity) break;
  }
  uint64_t* prefixes = reinterpret_cast<uint64_t*>(heads + n);
  SortHeads(heads, prefixes, n, comparator_, order_);
  AppendChunks(heads, prefixes, n);
}

SortedView::SortedView(const SortedView& base, std::vector<HashNode*> added,
                       uint64_t covered_entries)
    : covered_entries_(covered_entries),
      comparator_(base.comparator_),
      order_(base.order_) {
  const bool with_prefixes = order_ != KeyOrder::kOther;
  std::vector<uint64_t> prefixes(with_prefixes ? added.size() : 0);
  SortHeads(added.data(), prefixes.data(), added.size(), comparator_, order_);
  // Newest first within a user key: keep the first of each.
  size_t kept = 0;
  for (size_t i = 0; i < added.size(); ++i) {
    if (kept > 0 && (!with_prefixes || prefixes[kept - 1] == prefixes[i]) &&
        SameUserKey(added[kept - 1], added[i])) {
      continue;
    }
    added[kept] = added[i];
    if (with_prefixes) prefixes[kept] = prefixes[i];
    ++kept;
  }
  added.resize(kept);
  // Order and identity of two heads, prefixes first.
  auto less = [&](const HashNode* a, uint64_t pa, const HashNode* b,
                  uint64_t pb) {
    if (with_prefixes && pa != pb) return pa < pb;
    return comparator_(a->entry(), b->entry()) < 0;
  };
  auto same_key = [&](const HashNode* a, uint64_t pa, const HashNode* b,
                      uint64_t pb) {
    return (!with_prefixes || pa == pb) && SameUserKey(a, b);
  };
  auto added_prefix = [&](size_t j) { return with_prefixes ? prefixes[j] : 0; };

  chunks_.reserve(base.chunks_.size() + added.size() / kChunkHeads + 1);
  std::vector<HashNode*> merged;
  std::vector<uint64_t> merged_prefixes;
  size_t a = 0;  // next added head
  const size_t num_chunks = base.chunks_.size();
  for (size_t c = 0; c < num_chunks; ++c) {
    const Chunk& chunk = *base.chunks_[c];
    // The added heads that go here: those before the next chunk's first
    // head, but not one of its user key (that one replaces it, there).
    size_t end = added.size();
    if (c + 1 < num_chunks) {
      const Chunk& next = *base.chunks_[c + 1];
      const uint64_t next_prefix = with_prefixes ? next.prefixes[0] : 0;
      end = a;
      while (end < added.size() &&
             less(added[end], added_prefix(end), next.heads[0], next_prefix)) {
        ++end;
      }
      if (end > a && same_key(added[end - 1], added_prefix(end - 1),
                              next.heads[0], next_prefix)) {
        --end;
      }
    }
    if (end == a) {
      AppendChunk(base.chunks_[c]);
      continue;
    }
    // Both runs are sorted with one head per user key, so a user key in
    // both meets itself at the front of each: keep the head that sorts
    // first (the newer; its chain holds the other).
    merged.clear();
    merged_prefixes.clear();
    auto take = [&](HashNode* head, uint64_t prefix) {
      merged.push_back(head);
      if (with_prefixes) merged_prefixes.push_back(prefix);
    };
    size_t i = 0;
    while (i < chunk.size || a < end) {
      const uint64_t pi =
          with_prefixes && i < chunk.size ? chunk.prefixes[i] : 0;
      if (a == end) {
        take(chunk.heads[i++], pi);
        continue;
      }
      const uint64_t pa = added_prefix(a);
      if (i == chunk.size) {
        take(added[a++], pa);
        continue;
      }
      const bool added_first = less(added[a], pa, chunk.heads[i], pi);
      if (same_key(chunk.heads[i], pi, added[a], pa)) {
        take(added_first ? added[a] : chunk.heads[i], pi);
        ++i;
        ++a;
      } else if (added_first) {
        take(added[a++], pa);
      } else {
        take(chunk.heads[i++], pi);
      }
    }
    AppendChunks(merged.data(), merged_prefixes.data(), merged.size());
  }
  if (num_chunks == 0) {
    AppendChunks(added.data(), prefixes.data(), added.size());
  }
}

std::shared_ptr<const SortedView::Chunk> SortedView::NewChunk(
    HashNode* const* heads, const uint64_t* prefixes, size_t n) const {
  auto chunk = std::make_shared<Chunk>();
  chunk->size = n;
  std::copy(heads, heads + n, chunk->heads);
  if (order_ != KeyOrder::kOther) {
    std::copy(prefixes, prefixes + n, chunk->prefixes);
  }
  return chunk;
}

void SortedView::AppendChunks(HashNode* const* heads, const uint64_t* prefixes,
                              size_t n) {
  const size_t count = (n + kChunkHeads - 1) / kChunkHeads;
  size_t done = 0;
  for (size_t c = 0; c < count; ++c) {
    // Evenly filled, so that merges have room before chunks split again.
    const size_t take = n / count + (c < n % count ? 1 : 0);
    AppendChunk(NewChunk(heads + done, prefixes + done, take));
    done += take;
  }
}

void SortedView::AppendChunk(std::shared_ptr<const Chunk> chunk) {
  starts_.push_back(size_);
  last_prefixes_.push_back(
      order_ != KeyOrder::kOther ? chunk->prefixes[chunk->size - 1] : 0);
  size_ += chunk->size;
  chunks_.push_back(std::move(chunk));
}

SortedView::Span SortedView::SpanOf(size_t i) const {
  const size_t c =
      static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), i) -
                          starts_.begin() - 1);
  return Span{chunks_[c]->heads, starts_[c], starts_[c] + chunks_[c]->size};
}

size_t SortedView::MemoryUsage() const {
  return sizeof(*this) + chunks_.size() * sizeof(Chunk) +
         chunks_.capacity() * sizeof(chunks_[0]) +
         starts_.capacity() * sizeof(size_t) +
         last_prefixes_.capacity() * sizeof(uint64_t);
}

uint64_t SortedView::PrefixOf(const char* memtable_key) const {
  return order_ != KeyOrder::kOther
             ? OrderedPrefix(DecodeEntryKey(memtable_key).user_key, order_)
             : 0;
}

bool SortedView::Before(const HashNode* head, uint64_t prefix,
                        const char* memtable_key, uint64_t key_prefix,
                        bool upper) const {
  if (order_ != KeyOrder::kOther && prefix != key_prefix) {
    return prefix < key_prefix;
  }
  const int c = comparator_(head->entry(), memtable_key);
  return upper ? c <= 0 : c < 0;
}

size_t SortedView::Search(const char* memtable_key, bool upper) const {
  const uint64_t key_prefix = PrefixOf(memtable_key);
  // The first chunk whose last head is not before the key.
  size_t lo = 0;
  size_t hi = chunks_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    // Chunks are read only when prefixes tie.
    bool before;
    if (order_ != KeyOrder::kOther && last_prefixes_[mid] != key_prefix) {
      before = last_prefixes_[mid] < key_prefix;
    } else {
      const Chunk& chunk = *chunks_[mid];
      before = Before(chunk.heads[chunk.size - 1], last_prefixes_[mid],
                      memtable_key, key_prefix, upper);
    }
    if (before) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == chunks_.size()) return size_;
  return starts_[lo] +
         SearchChunk(*chunks_[lo], memtable_key, key_prefix, upper);
}

size_t SortedView::SearchChunk(const Chunk& chunk, const char* memtable_key,
                               uint64_t key_prefix, bool upper) const {
  size_t lo = 0;
  size_t hi = chunk.size;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const uint64_t prefix =
        order_ != KeyOrder::kOther ? chunk.prefixes[mid] : 0;
    if (Before(chunk.heads[mid], prefix, memtable_key, key_prefix, upper)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace rocksdb_cuckoo
