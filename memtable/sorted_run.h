// One sorted run of a striped_hash memtable's view (sorted_view.h): the
// newest entry of each of a set of user keys, sorted by user key. Older
// versions hang off each head in their chain, already in internal-key order,
// so only one entry per user key is sorted.
//
// Built from the hash index (every key), from new entries alone, or from an
// older run with new entries or a newer run merged in. Never changed once
// built: views share runs, and runs share their parts.
//
// The heads are kept in chunks of at most kChunkHeads, and the chunks in
// groups of at most kGroupChunks; runs share both. Merging a few heads into
// a run copies only the chunks they land in, the groups holding those, and
// the list of groups: a merge takes a reference to each group and to each
// chunk of the groups it rebuilds, not one to every chunk (each a likely
// cache miss).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "memtable/hash_node.h"
#include "memtable/hash_slot_index.h"
#include "rocksdb/memtablerep.h"

namespace rocksdb_cuckoo {

// What the memtable knows of the user comparator, for the sort's fast path.
enum class KeyOrder {
  kBytewise,         // leveldb.BytewiseComparator
  kReverseBytewise,  // rocksdb.ReverseBytewiseComparator
  kOther,            // anything else: every comparison goes through it
};

class SortedRun {
 public:
  using KeyComparator = ROCKSDB_NAMESPACE::MemTableRep::KeyComparator;
  static constexpr size_t kChunkHeads = 256;
  static constexpr size_t kGroupChunks = 16;

  // An empty run.
  SortedRun(const KeyComparator& comparator, KeyOrder order);
  // Takes the newest entry of each user key from the index and sorts them.
  // With a bytewise order the keys' first 8 bytes are radix-sorted and only
  // ties go through the comparator.
  SortedRun(HashSlotIndex* index, const KeyComparator& comparator,
            KeyOrder order);
  // `base` with `added` merged in: entries inserted since base was built
  // (in any order, several of a user key, some in base already), each
  // linked into the index before it was logged. Sorts only `added`; each
  // user key keeps its newest head.
  SortedRun(const SortedRun& base, std::vector<HashNode*> added);
  // `base` with the heads of `newer`, a run built after it, merged in; each
  // user key keeps its newest head.
  SortedRun(const SortedRun& base, const SortedRun& newer);

  size_t size() const { return size_; }
  KeyOrder order() const { return order_; }
  const KeyComparator& comparator() const { return comparator_; }

  // Positions [begin, end) of the run, whose heads are heads[0, end -
  // begin): the chunk holding a position, for reading its neighbours
  // without another lookup.
  struct Span {
    HashNode* const* heads = nullptr;
    const uint64_t* prefixes = nullptr;  // null with KeyOrder::kOther
    size_t begin = 0;
    size_t end = 0;
    bool Holds(size_t i) const { return i >= begin && i < end; }
    HashNode* head(size_t i) const { return heads[i - begin]; }
    uint64_t prefix(size_t i) const {
      return prefixes != nullptr ? prefixes[i - begin] : 0;
    }
  };
  // Requires i < size().
  Span SpanOf(size_t i) const;

  // First position whose head is >= / > a length-prefixed internal key.
  size_t LowerBound(const char* memtable_key) const {
    return Search(memtable_key, /*upper=*/false);
  }
  size_t UpperBound(const char* memtable_key) const {
    return Search(memtable_key, /*upper=*/true);
  }
  // The ordered prefix of a length-prefixed internal key's user key (0 with
  // KeyOrder::kOther): heads whose prefixes differ hold different user keys.
  uint64_t PrefixOf(const char* memtable_key) const;

 private:
  struct Chunk;
  struct Group;
  using ChunkPtr = std::shared_ptr<const Chunk>;
  using GroupPtr = std::shared_ptr<const Group>;
  // A chunk and its last head's prefix, which a group keeps beside it: a
  // group rebuilt around a few new chunks takes the others' from the group
  // it replaces instead of reading them from the chunks.
  struct ChunkRef {
    ChunkPtr chunk;
    uint64_t last_prefix;
  };
  // A chunk with a copy of heads[0, n) and their prefixes (none for
  // KeyOrder::kOther).
  ChunkPtr NewChunk(HashNode* const* heads, const uint64_t* prefixes,
                    size_t n) const;
  // Appends heads[0, n) to *out as chunks of at most kChunkHeads, evenly
  // filled.
  void MakeChunks(HashNode* const* heads, const uint64_t* prefixes, size_t n,
                  std::vector<ChunkRef>* out) const;
  // Appends `chunks` as groups of at most kGroupChunks, evenly filled.
  void AppendGroups(const std::vector<ChunkRef>& chunks);
  void AppendGroup(GroupPtr group);
  // This run as `base` with sorted heads (one per user key, with their
  // prefixes) merged in.
  void MergeSorted(const SortedRun& base, std::vector<HashNode*> heads,
                   std::vector<uint64_t> prefixes);
  // A run merged from `base` and new heads in three phases:
  // 1. SortNewestPerKey: the added heads sorted, the newest of each user key
  //    kept.
  // 2. RouteToChunks: each added head's target, the first chunk of `base`
  //    whose last head does not sort before it (the last chunk if none); a
  //    head whose user key `base` holds in a newer head is dropped (that
  //    head's chain holds it).
  //    SortNewestPerKey is skipped for a newer run's heads (sorted already).
  // 3. RebuildTargetedGroups: the targeted chunks, and the groups holding
  //    them, rebuilt with their added heads merged in; every other chunk and
  //    group is shared with `base`.
  struct Target {
    size_t group;
    size_t chunk;
  };
  void SortNewestPerKey(std::vector<HashNode*>* added,
                        std::vector<uint64_t>* prefixes) const;
  void RouteToChunks(const SortedRun& base, std::vector<HashNode*>* added,
                     std::vector<uint64_t>* prefixes,
                     std::vector<Target>* targets) const;
  void RebuildTargetedGroups(const SortedRun& base,
                             const std::vector<HashNode*>& added,
                             const std::vector<uint64_t>& prefixes,
                             const std::vector<Target>& targets);
  // Appends to *out what `chunk` becomes with added[begin, end) (sorted,
  // one head per user key, each routed to this chunk) merged in.
  void MergeIntoChunk(const Chunk& chunk, const std::vector<HashNode*>& added,
                      const std::vector<uint64_t>& prefixes, size_t begin,
                      size_t end, std::vector<ChunkRef>* out) const;
  // Whether heads a and b (with their prefixes) hold the same user key;
  // differing prefixes settle it without reading the entries.
  bool SameKey(const HashNode* a, uint64_t a_prefix, const HashNode* b,
               uint64_t b_prefix) const;
  // Whether `head`, whose prefix is `prefix`, sorts before memtable_key
  // (whose prefix is key_prefix), or also when equal (`upper`).
  bool Before(const HashNode* head, uint64_t prefix, const char* memtable_key,
              uint64_t key_prefix, bool upper) const;
  // How a search probes a sorted range: halving it, or galloping (1, 2, 4,
  // ... past its start, then halving the last step). A merge's heads are
  // sorted, so each lands near the one before: galloping from there costs
  // about log(distance) comparisons instead of log(size).
  enum class Probe { kHalving, kGalloping };
  // The first of `count` ordered runs from `from` on whose last head is not
  // Before memtable_key (`count` if none); run i ends with last_head(i),
  // whose prefix is last_prefixes[i]. Heads are read only when prefixes tie.
  template <typename LastHead>
  size_t FirstRunAtOrAfter(size_t from, size_t count,
                           const uint64_t* last_prefixes,
                           const LastHead& last_head, const char* memtable_key,
                           uint64_t key_prefix, bool upper, Probe probe) const;
  size_t FirstGroupAtOrAfter(size_t from, const char* memtable_key,
                             uint64_t key_prefix, bool upper,
                             Probe probe) const;
  size_t FirstChunkAtOrAfter(const Group& group, size_t from,
                             const char* memtable_key, uint64_t key_prefix,
                             bool upper, Probe probe) const;
  // First position whose head is > (upper) or >= memtable_key.
  size_t Search(const char* memtable_key, bool upper) const;
  // First of chunk's positions from `from` on whose head is not Before
  // memtable_key.
  size_t SearchChunk(const Chunk& chunk, size_t from, const char* memtable_key,
                     uint64_t key_prefix, bool upper, Probe probe) const;

  std::vector<GroupPtr> groups_;
  // Per group: the run position of its first head, and its last head's
  // prefix (searches pick the group from these without reading it).
  std::vector<size_t> starts_;
  std::vector<uint64_t> last_prefixes_;
  size_t size_ = 0;
  const KeyComparator& comparator_;
  const KeyOrder order_;
};

}  // namespace rocksdb_cuckoo
