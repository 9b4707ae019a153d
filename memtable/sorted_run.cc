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

// The first i in [from, end) for which before(i) is false (end if none),
// where before holds on a prefix of the range.
template <typename Before>
size_t FirstNotBefore(size_t from, size_t end, bool gallop,
                      const Before& before) {
  size_t lo = from;
  size_t hi = end;
  if (gallop) {
    // Probes from, from + 1, from + 3, from + 7, ... until one is not
    // before; the answer lies between the last two probes.
    size_t step = 1;
    size_t probe = from;
    while (probe < end && before(probe)) {
      lo = probe + 1;
      probe = lo + step;
      step *= 2;
    }
    hi = probe < end ? probe : end;
  }
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

// Sized to what it holds: chunks are never added to, only replaced.
struct SortedRun::Chunk {
  Chunk(size_t capacity, bool with_prefixes)
      : heads(new HashNode*[capacity]),
        prefixes(with_prefixes ? new uint64_t[capacity] : nullptr),
        capacity(capacity) {}
  const HashNode* last_head() const { return heads[size - 1]; }

  const std::unique_ptr<HashNode*[]> heads;
  const std::unique_ptr<uint64_t[]> prefixes;  // null with KeyOrder::kOther
  const size_t capacity;
  size_t size = 0;
};

// A run of chunks; like them, never changed once built.
struct SortedRun::Group {
  const HashNode* last_head() const { return chunks.back()->last_head(); }

  std::vector<ChunkPtr> chunks;
  // Per chunk: the group position of its first head, and its last head's
  // prefix.
  std::vector<size_t> starts;
  std::vector<uint64_t> last_prefixes;
  size_t size = 0;
};

SortedRun::SortedRun(const KeyComparator& comparator, KeyOrder order)
    : comparator_(comparator), order_(order) {}

SortedRun::SortedRun(HashSlotIndex* index, const KeyComparator& comparator,
                     KeyOrder order)
    : comparator_(comparator), order_(order) {
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
  std::vector<ChunkRef> chunks;
  MakeChunks(heads, prefixes, n, &chunks);
  AppendGroups(chunks);
}

SortedRun::SortedRun(const SortedRun& base, std::vector<HashNode*> added)
    : comparator_(base.comparator_), order_(base.order_) {
  std::vector<uint64_t> prefixes;
  SortNewestPerKey(&added, &prefixes);
  MergeSorted(base, std::move(added), std::move(prefixes));
}

SortedRun::SortedRun(const SortedRun& base, const SortedRun& newer)
    : comparator_(base.comparator_), order_(base.order_) {
  std::vector<HashNode*> heads;
  std::vector<uint64_t> prefixes;
  heads.reserve(newer.size_);
  if (order_ != KeyOrder::kOther) prefixes.reserve(newer.size_);
  for (const GroupPtr& group : newer.groups_) {
    for (const ChunkPtr& chunk : group->chunks) {
      heads.insert(heads.end(), chunk->heads.get(),
                   chunk->heads.get() + chunk->size);
      if (chunk->prefixes != nullptr) {
        prefixes.insert(prefixes.end(), chunk->prefixes.get(),
                        chunk->prefixes.get() + chunk->size);
      }
    }
  }
  MergeSorted(base, std::move(heads), std::move(prefixes));
}

void SortedRun::MergeSorted(const SortedRun& base, std::vector<HashNode*> heads,
                            std::vector<uint64_t> prefixes) {
  if (base.groups_.empty()) {
    std::vector<ChunkRef> chunks;
    MakeChunks(heads.data(), prefixes.data(), heads.size(), &chunks);
    AppendGroups(chunks);
    return;
  }
  std::vector<Target> targets;
  RouteToChunks(base, &heads, &prefixes, &targets);
  RebuildTargetedGroups(base, heads, prefixes, targets);
}

void SortedRun::SortNewestPerKey(std::vector<HashNode*>* added,
                                 std::vector<uint64_t>* prefixes) const {
  const bool with_prefixes = order_ != KeyOrder::kOther;
  prefixes->assign(with_prefixes ? added->size() : 0, 0);
  SortHeads(added->data(), prefixes->data(), added->size(), comparator_,
            order_);
  auto prefix_of = [&](size_t j) { return with_prefixes ? (*prefixes)[j] : 0; };
  // Newest first within a user key: keep the first of each.
  size_t unique = 0;
  for (size_t j = 0; j < added->size(); ++j) {
    if (unique > 0 && SameKey((*added)[unique - 1], prefix_of(unique - 1),
                              (*added)[j], prefix_of(j))) {
      continue;
    }
    (*added)[unique] = (*added)[j];
    if (with_prefixes) (*prefixes)[unique] = (*prefixes)[j];
    ++unique;
  }
  added->resize(unique);
  prefixes->resize(with_prefixes ? unique : 0);
}

void SortedRun::RouteToChunks(const SortedRun& base,
                              std::vector<HashNode*>* added,
                              std::vector<uint64_t>* prefixes,
                              std::vector<Target>* targets) const {
  const bool with_prefixes = order_ != KeyOrder::kOther;
  const size_t num_groups = base.groups_.size();
  targets->resize(added->size());
  size_t kept = 0;
  // The previous head's target: this one's is the same or after it.
  size_t from_group = 0;
  size_t from_chunk = 0;
  for (size_t j = 0; j < added->size(); ++j) {
    const uint64_t prefix = with_prefixes ? (*prefixes)[j] : 0;
    const char* key = (*added)[j]->entry();
    Target target;
    // The chunk before the target, which ends before this head.
    const Group* previous_group = nullptr;
    size_t previous_chunk = 0;
    const size_t g =
        base.FirstGroupAtOrAfter(from_group, key, prefix,
                                 /*upper=*/false, Probe::kGalloping);
    if (g != from_group) from_chunk = 0;
    from_group = g;
    if (g == num_groups) {
      previous_group = base.groups_.back().get();
      previous_chunk = previous_group->chunks.size() - 1;
      target = {g - 1, previous_chunk};
    } else {
      const Group& group = *base.groups_[g];
      from_chunk = base.FirstChunkAtOrAfter(group, from_chunk, key, prefix,
                                            /*upper=*/false, Probe::kGalloping);
      target = {g, from_chunk};
      if (target.chunk > 0) {
        previous_group = &group;
        previous_chunk = target.chunk - 1;
      } else if (g > 0) {
        previous_group = base.groups_[g - 1].get();
        previous_chunk = previous_group->chunks.size() - 1;
      }
    }
    // If it holds the same user key, the base's head of it is newer. As in
    // SameKey, but its prefix is compared before its head is read (two cache
    // misses), which it rules out in all but rare cases.
    if (previous_group != nullptr &&
        (!with_prefixes ||
         previous_group->last_prefixes[previous_chunk] == prefix) &&
        SameUserKey(previous_group->chunks[previous_chunk]->last_head(),
                    (*added)[j])) {
      continue;
    }
    (*added)[kept] = (*added)[j];
    if (with_prefixes) (*prefixes)[kept] = prefix;
    (*targets)[kept] = target;
    ++kept;
  }
  added->resize(kept);
  prefixes->resize(with_prefixes ? kept : 0);
  targets->resize(kept);
}

void SortedRun::RebuildTargetedGroups(const SortedRun& base,
                                      const std::vector<HashNode*>& added,
                                      const std::vector<uint64_t>& prefixes,
                                      const std::vector<Target>& targets) {
  const size_t num_groups = base.groups_.size();
  const size_t kept = added.size();
  groups_.reserve(num_groups + 1);
  std::vector<ChunkRef> chunks;
  size_t next_group = 0;  // the first base group not in this run yet
  for (size_t j = 0; j < kept;) {
    const size_t g = targets[j].group;
    for (; next_group < g; ++next_group) AppendGroup(base.groups_[next_group]);
    const Group& group = *base.groups_[g];
    chunks.clear();
    size_t next_chunk = 0;  // the group's first chunk not in `chunks` yet
    while (j < kept && targets[j].group == g) {
      const size_t c = targets[j].chunk;
      size_t end = j;
      while (end < kept && targets[end].group == g && targets[end].chunk == c) {
        ++end;
      }
      for (; next_chunk < c; ++next_chunk) {
        chunks.push_back(
            {group.chunks[next_chunk], group.last_prefixes[next_chunk]});
      }
      MergeIntoChunk(*group.chunks[c], added, prefixes, j, end, &chunks);
      next_chunk = c + 1;
      j = end;
    }
    for (; next_chunk < group.chunks.size(); ++next_chunk) {
      chunks.push_back(
          {group.chunks[next_chunk], group.last_prefixes[next_chunk]});
    }
    AppendGroups(chunks);
    next_group = g + 1;
  }
  for (; next_group < num_groups; ++next_group) {
    AppendGroup(base.groups_[next_group]);
  }
}

void SortedRun::MergeIntoChunk(const Chunk& chunk,
                               const std::vector<HashNode*>& added,
                               const std::vector<uint64_t>& prefixes,
                               size_t begin, size_t end,
                               std::vector<ChunkRef>* out) const {
  const bool with_prefixes = order_ != KeyOrder::kOther;
  auto prefix_of_added = [&](size_t j) {
    return with_prefixes ? prefixes[j] : 0;
  };
  // Straight into a new chunk when everything fits, else through scratch
  // space split into several.
  const size_t most = chunk.size + (end - begin);
  std::shared_ptr<Chunk> fits;
  std::vector<HashNode*> scratch_heads;
  std::vector<uint64_t> scratch_prefixes;
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
  for (size_t j = begin; j < end; ++j) {
    const uint64_t prefix = prefix_of_added(j);
    const size_t at = SearchChunk(chunk, from, added[j]->entry(), prefix,
                                  /*upper=*/false, Probe::kGalloping);
    copy_chunk(from, at);
    from = at;
    // The chunk's head of the same user key, if any, is just before it
    // (newer: keep that one) or just after it (older: replace it).
    if (n > 0 && SameKey(heads[n - 1], with_prefixes ? out_prefixes[n - 1] : 0,
                         added[j], prefix)) {
      continue;
    }
    if (from < chunk.size &&
        SameKey(chunk.heads[from], with_prefixes ? chunk.prefixes[from] : 0,
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
    out->push_back({std::move(fits), with_prefixes ? out_prefixes[n - 1] : 0});
  } else {
    MakeChunks(heads, out_prefixes, n, out);
  }
}

SortedRun::ChunkPtr SortedRun::NewChunk(HashNode* const* heads,
                                        const uint64_t* prefixes,
                                        size_t n) const {
  auto chunk = std::make_shared<Chunk>(n, order_ != KeyOrder::kOther);
  chunk->size = n;
  std::copy(heads, heads + n, chunk->heads.get());
  if (chunk->prefixes != nullptr) {
    std::copy(prefixes, prefixes + n, chunk->prefixes.get());
  }
  return chunk;
}

namespace {

// Sizes of `count` parts of `n` items, even to within one: part i's.
size_t EvenPart(size_t n, size_t count, size_t i) {
  return n / count + (i < n % count ? 1 : 0);
}

}  // namespace

void SortedRun::MakeChunks(HashNode* const* heads, const uint64_t* prefixes,
                           size_t n, std::vector<ChunkRef>* out) const {
  // Evenly filled, so that merges have room before chunks split again.
  const size_t count = (n + kChunkHeads - 1) / kChunkHeads;
  size_t done = 0;
  for (size_t c = 0; c < count; ++c) {
    const size_t take = EvenPart(n, count, c);
    out->push_back(
        {NewChunk(heads + done, prefixes + done, take),
         order_ != KeyOrder::kOther ? prefixes[done + take - 1] : 0});
    done += take;
  }
}

void SortedRun::AppendGroups(const std::vector<ChunkRef>& chunks) {
  const size_t count = (chunks.size() + kGroupChunks - 1) / kGroupChunks;
  size_t done = 0;
  for (size_t g = 0; g < count; ++g) {
    const size_t take = EvenPart(chunks.size(), count, g);
    auto group = std::make_shared<Group>();
    group->chunks.reserve(take);
    group->starts.reserve(take);
    group->last_prefixes.reserve(take);
    for (size_t c = done; c < done + take; ++c) {
      const Chunk& chunk = *chunks[c].chunk;
      group->starts.push_back(group->size);
      group->last_prefixes.push_back(chunks[c].last_prefix);
      group->size += chunk.size;
      group->chunks.push_back(chunks[c].chunk);
    }
    AppendGroup(std::move(group));
    done += take;
  }
}

void SortedRun::AppendGroup(GroupPtr group) {
  starts_.push_back(size_);
  last_prefixes_.push_back(group->last_prefixes.back());
  size_ += group->size;
  groups_.push_back(std::move(group));
}

SortedRun::Span SortedRun::SpanOf(size_t i) const {
  const size_t g =
      static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), i) -
                          starts_.begin() - 1);
  const Group& group = *groups_[g];
  const size_t c =
      static_cast<size_t>(std::upper_bound(group.starts.begin(),
                                           group.starts.end(), i - starts_[g]) -
                          group.starts.begin() - 1);
  const Chunk& chunk = *group.chunks[c];
  const size_t begin = starts_[g] + group.starts[c];
  return Span{chunk.heads.get(), chunk.prefixes.get(), begin,
              begin + chunk.size};
}

uint64_t SortedRun::PrefixOf(const char* memtable_key) const {
  return order_ != KeyOrder::kOther
             ? OrderedPrefix(DecodeEntryKey(memtable_key).user_key, order_)
             : 0;
}

bool SortedRun::SameKey(const HashNode* a, uint64_t a_prefix, const HashNode* b,
                        uint64_t b_prefix) const {
  return (order_ == KeyOrder::kOther || a_prefix == b_prefix) &&
         SameUserKey(a, b);
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

template <typename LastHead>
size_t SortedRun::FirstRunAtOrAfter(size_t from, size_t count,
                                    const uint64_t* last_prefixes,
                                    const LastHead& last_head,
                                    const char* memtable_key,
                                    uint64_t key_prefix, bool upper,
                                    Probe probe) const {
  return FirstNotBefore(from, count, probe == Probe::kGalloping, [&](size_t i) {
    if (order_ != KeyOrder::kOther && last_prefixes[i] != key_prefix) {
      return last_prefixes[i] < key_prefix;
    }
    return Before(last_head(i), last_prefixes[i], memtable_key, key_prefix,
                  upper);
  });
}

size_t SortedRun::FirstGroupAtOrAfter(size_t from, const char* memtable_key,
                                      uint64_t key_prefix, bool upper,
                                      Probe probe) const {
  return FirstRunAtOrAfter(
      from, groups_.size(), last_prefixes_.data(),
      [this](size_t g) { return groups_[g]->last_head(); }, memtable_key,
      key_prefix, upper, probe);
}

size_t SortedRun::FirstChunkAtOrAfter(const Group& group, size_t from,
                                      const char* memtable_key,
                                      uint64_t key_prefix, bool upper,
                                      Probe probe) const {
  return FirstRunAtOrAfter(
      from, group.chunks.size(), group.last_prefixes.data(),
      [&group](size_t c) { return group.chunks[c]->last_head(); }, memtable_key,
      key_prefix, upper, probe);
}

size_t SortedRun::Search(const char* memtable_key, bool upper) const {
  const uint64_t key_prefix = PrefixOf(memtable_key);
  const size_t g =
      FirstGroupAtOrAfter(0, memtable_key, key_prefix, upper, Probe::kHalving);
  if (g == groups_.size()) return size_;
  // The group's last head is not before the key: one of its chunks holds
  // the position.
  const Group& group = *groups_[g];
  const size_t c = FirstChunkAtOrAfter(group, 0, memtable_key, key_prefix,
                                       upper, Probe::kHalving);
  return starts_[g] + group.starts[c] +
         SearchChunk(*group.chunks[c], 0, memtable_key, key_prefix, upper,
                     Probe::kHalving);
}

size_t SortedRun::SearchChunk(const Chunk& chunk, size_t from,
                              const char* memtable_key, uint64_t key_prefix,
                              bool upper, Probe probe) const {
  return FirstNotBefore(
      from, chunk.size, probe == Probe::kGalloping, [&](size_t i) {
        const uint64_t prefix =
            order_ != KeyOrder::kOther ? chunk.prefixes[i] : 0;
        return Before(chunk.heads[i], prefix, memtable_key, key_prefix, upper);
      });
}

}  // namespace rocksdb_cuckoo
