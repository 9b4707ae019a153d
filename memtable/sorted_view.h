// An ordered view of a striped_hash memtable for iterators and flush: the
// newest entry of every user key, sorted by user key. Older versions hang off
// each head in their chain, already in internal-key order, so only one entry
// per user key is sorted.
//
// Built on demand from the hash index, or from the previous view and the
// entries inserted since (InsertLog); iterators share it, and the memtable
// reuses it until an insert arrives. Entries inserted after the build are not
// in it unless they joined a chain in the view: they carry sequence numbers
// above the reader the view was made for. A reader whose sequence number
// grows later (Iterator::Refresh, tailing iterators) asks its
// SortedViewSource for a view again.
//
// The heads are kept in chunks of at most kChunkHeads, and the chunks in
// groups of at most kGroupChunks; views share both. Merging a few new
// entries into a view copies only the chunks they land in, the groups
// holding those, and the list of groups: a renewal takes a reference to
// each group and to each chunk of the groups it rebuilds, not one to every
// chunk (each a likely cache miss).
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

class SortedView {
 public:
  using KeyComparator = ROCKSDB_NAMESPACE::MemTableRep::KeyComparator;
  static constexpr size_t kChunkHeads = 256;
  static constexpr size_t kGroupChunks = 16;

  // Takes the newest entry of each user key from the index and sorts them.
  // With a bytewise order the keys' first 8 bytes are radix-sorted and only
  // ties go through the comparator.
  SortedView(HashSlotIndex* index, const KeyComparator& comparator,
             KeyOrder order);
  // `base` with `added` merged in: entries inserted since base was built
  // (in any order, several of a user key, some in base already), each
  // linked into the index before it was logged. Sorts only `added`; each
  // user key keeps its newest head. `covered_entries`: the index's entry
  // count before the log was taken.
  SortedView(const SortedView& base, std::vector<HashNode*> added,
             uint64_t covered_entries);

  size_t size() const { return size_; }
  // The index's entry count when the build started: all of them are in it.
  uint64_t covered_entries() const { return covered_entries_; }

  // Positions [begin, end) of the view, whose heads are heads[0, end -
  // begin): the chunk holding a position, for reading its neighbours
  // without another lookup.
  struct Span {
    HashNode* const* heads = nullptr;
    size_t begin = 0;
    size_t end = 0;
    bool Holds(size_t i) const { return i >= begin && i < end; }
    HashNode* head(size_t i) const { return heads[i - begin]; }
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
  // A view renewed from `base` in three phases:
  // 1. SortNewestPerKey: the added heads sorted, the newest of each user key
  //    kept.
  // 2. RouteToChunks: each added head's target, the first chunk of `base`
  //    whose last head does not sort before it (the last chunk if none); a
  //    head whose user key `base` already holds is dropped, since the view's
  //    head of it is the newer (its chain holds the other).
  // 3. RebuildTargetedGroups: the targeted chunks, and the groups holding
  //    them, rebuilt with their added heads merged in; every other chunk and
  //    group is shared with `base`.
  struct Target {
    size_t group;
    size_t chunk;
  };
  void SortNewestPerKey(std::vector<HashNode*>* added,
                        std::vector<uint64_t>* prefixes) const;
  void RouteToChunks(const SortedView& base, std::vector<HashNode*>* added,
                     std::vector<uint64_t>* prefixes,
                     std::vector<Target>* targets) const;
  void RebuildTargetedGroups(const SortedView& base,
                             const std::vector<HashNode*>& added,
                             const std::vector<uint64_t>& prefixes,
                             const std::vector<Target>& targets);
  // Appends to *out what `chunk` becomes with added[begin, end) (sorted,
  // one head per user key, each routed to this chunk) merged in.
  void MergeIntoChunk(const Chunk& chunk, const std::vector<HashNode*>& added,
                      const std::vector<uint64_t>& prefixes, size_t begin,
                      size_t end, std::vector<ChunkRef>* out) const;
  // The ordered prefix of a length-prefixed internal key's user key.
  uint64_t PrefixOf(const char* memtable_key) const;
  // Whether heads a and b (with their prefixes) hold the same user key;
  // differing prefixes settle it without reading the entries.
  bool SameKey(const HashNode* a, uint64_t a_prefix, const HashNode* b,
               uint64_t b_prefix) const;
  // Whether `head`, whose prefix is `prefix`, sorts before memtable_key
  // (whose prefix is key_prefix), or also when equal (`upper`).
  bool Before(const HashNode* head, uint64_t prefix, const char* memtable_key,
              uint64_t key_prefix, bool upper) const;
  // The first of `count` ordered runs whose last head is not Before
  // memtable_key (`count` if none); run i ends with last_head(i), whose
  // prefix is last_prefixes[i]. Heads are read only when prefixes tie.
  template <typename LastHead>
  size_t FirstRunAtOrAfter(size_t count, const uint64_t* last_prefixes,
                           const LastHead& last_head, const char* memtable_key,
                           uint64_t key_prefix, bool upper) const;
  size_t FirstGroupAtOrAfter(const char* memtable_key, uint64_t key_prefix,
                             bool upper) const;
  size_t FirstChunkAtOrAfter(const Group& group, const char* memtable_key,
                             uint64_t key_prefix, bool upper) const;
  // First position whose head is > (upper) or >= memtable_key.
  size_t Search(const char* memtable_key, bool upper) const;
  // First of chunk's positions from `from` on whose head is not Before
  // memtable_key.
  size_t SearchChunk(const Chunk& chunk, size_t from, const char* memtable_key,
                     uint64_t key_prefix, bool upper) const;

  std::vector<GroupPtr> groups_;
  // Per group: the view position of its first head, and its last head's
  // prefix (searches pick the group from these without reading it).
  std::vector<size_t> starts_;
  std::vector<uint64_t> last_prefixes_;
  size_t size_ = 0;
  uint64_t covered_entries_;
  const KeyComparator& comparator_;
  const KeyOrder order_;
};

// Hands an iterator a view again before it repositions. A DB iterator keeps
// its memtable iterator across Iterator::Refresh() while the memtable stays,
// and a tailing iterator keeps it across seeks; both then read at a newer
// sequence number, which the entries inserted since must serve.
class SortedViewSource {
 public:
  virtual ~SortedViewSource() = default;
  // `view` while nothing was inserted since it was built, else (or if null)
  // the current one.
  virtual std::shared_ptr<const SortedView> Renewed(
      std::shared_ptr<const SortedView> view) = 0;
};

}  // namespace rocksdb_cuckoo
