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

// Sized to what it holds: chunks are never added to, only replaced.
struct SortedView::Chunk {
  Chunk(size_t capacity, bool with_prefixes)
      : heads(new HashNode*[capacity]),
        prefixes(with_prefixes ? new uint64_t[capacity] : nullptr),
        capacity(capacity) {}
  size_t MemoryUsage() const {
    return sizeof(*this) +
           capacity * (sizeof(HashNode*) +
                       (prefixes != nullptr ? sizeof(uint64_t) : 0));
  }

  const std::unique_ptr<HashNode*[]> heads;
  const std::unique_ptr<uint64_t[]> prefixes;  // null with KeyOrder::kOther
  const size_t capacity;
  size_t size = 0;
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
  auto prefix_of_added = [&](size_t j) {
    return with_prefixes ? prefixes[j] : 0;
  };
  // Whether two heads, with their prefixes, hold the same user key.
  auto same_key = [&](const HashNode* a, uint64_t pa, const HashNode* b,
                      uint64_t pb) {
    return (!with_prefixes || pa == pb) && SameUserKey(a, b);
  };
  // Newest first within a user key: keep the first of each.
  size_t unique = 0;
  for (size_t j = 0; j < added.size(); ++j) {
    if (unique > 0 && same_key(added[unique - 1], prefix_of_added(unique - 1),
                               added[j], prefix_of_added(j))) {
      continue;
    }
    added[unique] = added[j];
    if (with_prefixes) prefixes[unique] = prefixes[j];
    ++unique;
  }
  added.resize(unique);
  if (base.chunks_.empty()) {
    AppendChunks(added.data(), prefixes.data(), added.size());
    return;
  }

  // Each added head goes to the first chunk whose last head does not sort
  // before it (the last chunk if none): only those chunks are read and
  // rebuilt, the others are shared with `base`. A user key in both keeps
  // the head that sorts first, the newer (its chain holds the other).
  const size_t num_chunks = base.chunks_.size();
  std::vector<size_t> targets(added.size());
  size_t kept = 0;
  for (size_t j = 0; j < added.size(); ++j) {
    const uint64_t prefix = prefix_of_added(j);
    const size_t chunk =
        base.FirstChunkAtOrAfter(added[j]->entry(), prefix, /*upper=*/false);
    if (chunk > 0) {
      // That chunk's predecessor ends before this head: if with the same
      // user key, the view's head of it is newer.
      const Chunk& previous = *base.chunks_[chunk - 1];
      if (same_key(previous.heads[previous.size - 1],
                   base.last_prefixes_[chunk - 1], added[j], prefix)) {
        continue;
      }
    }
    added[kept] = added[j];
    if (with_prefixes) prefixes[kept] = prefix;
    targets[kept] = std::min(chunk, num_chunks - 1);
    ++kept;
  }

  chunks_.reserve(num_chunks + kept / kChunkHeads + 1);
  std::vector<HashNode*> scratch_heads;
  std::vector<uint64_t> scratch_prefixes;
  size_t next_chunk = 0;  // the first base chunk not in this view yet
  for (size_t j = 0; j < kept;) {
    const size_t target = targets[j];
    size_t end = j;
    while (end < kept && targets[end] == target) ++end;
    for (; next_chunk < target; ++next_chunk) {
      AppendChunk(base.chunks_[next_chunk]);
    }
    const Chunk& chunk = *base.chunks_[target];
    // Straight into a new chunk when everything fits, else through scratch
    // space split into several.
    const size_t most = chunk.size + (end - j);
    std::shared_ptr<Chunk> fits;
    HashNode** heads;
    uint64_t* out_prefixes;
    if (most <= kChunkHeads) {
      fits = std::make_shared<Chunk>(most, with_prefixes);
      heads = fits->heads.get();
      out_prefixes = fits->prefixes.get();
    } else {
      scratch_heads.resize(most);
      scratch_prefixes.resize(with_prefixes ? most : 0);
      heads = scratch_heads.data();
      out_prefixes = scratch_prefixes.data();
    }
    size_t n = 0;
    // Copies the chunk's positions [from, to) in one go.
    auto copy_chunk = [&](size_t from, size_t to) {
      std::copy(chunk.heads.get() + from, chunk.heads.get() + to, heads + n);
      if (with_prefixes) {
        std::copy(chunk.prefixes.get() + from, chunk.prefixes.get() + to,
                  out_prefixes + n);
      }
      n += to - from;
    };
    size_t from = 0;
    for (; j < end; ++j) {
      const uint64_t prefix = prefix_of_added(j);
      const size_t at = SearchChunk(chunk, from, added[j]->entry(), prefix,
                                    /*upper=*/false);
      copy_chunk(from, at);
      from = at;
      // The chunk's head of the same user key, if any, is just before it
      // (newer: keep that one) or just after it (older: replace it).
      if (n > 0 &&
          same_key(heads[n - 1], with_prefixes ? out_prefixes[n - 1] : 0,
                   added[j], prefix)) {
        continue;
      }
      if (from < chunk.size &&
          same_key(chunk.heads[from], with_prefixes ? chunk.prefixes[from] : 0,
                   added[j], prefix)) {
        ++from;
      }
      heads[n] = added[j];
      if (with_prefixes) out_prefixes[n] = prefix;
      ++n;
    }
    copy_chunk(from, chunk.size);
    if (fits != nullptr) {
      fits->size = n;
      AppendChunk(std::move(fits));
    } else {
      AppendChunks(heads, out_prefixes, n);
    }
    next_chunk = target + 1;
  }
  for (; next_chunk < num_chunks; ++next_chunk) {
    AppendChunk(base.chunks_[next_chunk]);
  }
}

std::shared_ptr<const SortedView::Chunk> SortedView::NewChunk(
    HashNode* const* heads, const uint64_t* prefixes, size_t n) const {
  auto chunk = std::make_shared<Chunk>(n, order_ != KeyOrder::kOther);
  chunk->size = n;
  std::copy(heads, heads + n, chunk->heads.get());
  if (chunk->prefixes != nullptr) {
    std::copy(prefixes, prefixes + n, chunk->prefixes.get());
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
  chunk_bytes_ += chunk->MemoryUsage();
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
  return Span{chunks_[c]->heads.get(), starts_[c],
              starts_[c] + chunks_[c]->size};
}

size_t SortedView::MemoryUsage() const {
  return sizeof(*this) + chunk_bytes_ +
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

size_t SortedView::FirstChunkAtOrAfter(const char* memtable_key,
                                       uint64_t key_prefix, bool upper) const {
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
  return lo;
}

size_t SortedView::Search(const char* memtable_key, bool upper) const {
  const uint64_t key_prefix = PrefixOf(memtable_key);
  const size_t chunk = FirstChunkAtOrAfter(memtable_key, key_prefix, upper);
  if (chunk == chunks_.size()) return size_;
  return starts_[chunk] +
         SearchChunk(*chunks_[chunk], 0, memtable_key, key_prefix, upper);
}

size_t SortedView::SearchChunk(const Chunk& chunk, size_t from,
                               const char* memtable_key, uint64_t key_prefix,
                               bool upper) const {
  size_t lo = from;
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
