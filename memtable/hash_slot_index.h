// The striped_hash memtable's hash index: an open-addressing array of 64-bit
// slots, one per user key, each pointing at the newest HashNode of that key.
//
//   slot = tag (16 high bits of the hash) << 48 | node address (48 bits)
//
// A lookup hashes the user key, starts at slot (hash & mask) and probes
// linearly; the tag skips foreign keys without touching their nodes, so a
// miss usually reads one cache line of slots and a hit one more for the node.
// Slots only ever go from empty to a key, and then only to newer heads of
// the same key, so readers need no locks.
//
// Inserts claim an empty slot or link into the key's version chain with
// compare-and-swap, from any number of threads; sequentially consistent
// ones, which InsertLog relies on (on x86 every compare-and-swap is). When the
// share of used slots passes max_load_factor the array doubles: the growing
// thread pauses writers (ResizeGate), rehashes into a new array, publishes it,
// and frees the old one after a grace period for readers. The writers it pauses
// clear the new array and rehash beside it, a chunk of slots at a time,
// rather than wait, since with many writers one thread doing it all while
// the rest spin would stall every insert for the whole doubling.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "memtable/hash_node.h"
#include "memtable/insert_log.h"
#include "memtable/resize_gate.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "util/key_hash.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

class HashSlotIndex {
 public:
  // Every entry inserted that is its user key's first is recorded in `log`
  // (if not null) after it is linked and before it is counted. The sorted
  // view orders user keys; the newer versions of a key it holds are found
  // from its head, which says when it has been superseded (hash_node.h).
  HashSlotIndex(uint64_t initial_slots, double max_load_factor,
                InsertLog* log = nullptr);
  ~HashSlotIndex();
  HashSlotIndex(const HashSlotIndex&) = delete;
  HashSlotIndex& operator=(const HashSlotIndex&) = delete;

  struct InsertResult {
    bool inserted = false;  // false: this key and sequence are already in
    bool new_key = false;   // the entry is its user key's first
    bool grew = false;      // this insert doubled the index
    uint32_t probes = 0;    // slots inspected
  };
  // `key` is node's decoded key. Safe to call from several threads at once.
  // `cpu`: the operation's CPU, for the striped counters it updates (see
  // StripedCounters::IndexFor).
  InsertResult Insert(HashNode* node, const EntryKey& key, int cpu);

  struct FindResult {
    HashNode* head = nullptr;  // newest entry of the user key, or null
    uint32_t probes = 0;       // slots inspected
    uint32_t tag_collisions = 0;
    // FindChecked only: the node of a slot on the probe path whose tag is
    // the user key's but whose own key hashes to another tag. A slot's tag
    // comes from its key's hash, so only damaged memory (the key's bytes, or
    // the slot) makes one; the damaged key may be the one looked up.
    HashNode* misplaced = nullptr;
  };
  // Safe to call concurrently with anything.
  FindResult Find(const ROCKSDB_NAMESPACE::Slice& user_key, int cpu) {
    return Find(user_key, Hash(user_key), cpu);
  }
  // Find with the user key's Hash() already computed.
  FindResult Find(const ROCKSDB_NAMESPACE::Slice& user_key, uint64_t hash,
                  int cpu) {
    return Probe<false>(user_key, hash, cpu);
  }
  // Find that also rehashes the key of every slot whose tag matches but
  // whose key does not, and stops at the first misplaced one (FindResult).
  // For the memtable's integrity checks; a plain Find reads no foreign key
  // twice.
  FindResult FindChecked(const ROCKSDB_NAMESPACE::Slice& user_key,
                         uint64_t hash, int cpu) {
    return Probe<true>(user_key, hash, cpu);
  }
  static uint64_t Hash(const ROCKSDB_NAMESPACE::Slice& user_key) {
    return HashKey(user_key.data(), user_key.size());
  }
  // Starts fetching the first slot each of hashes[0, n) probes, so that a
  // batch of lookups waits for its misses together rather than one by one.
  void Prefetch(const uint64_t* hashes, size_t n, int cpu);

  // Writes the newest entry of every user key, in slot order, to out[0,
  // capacity) and returns how many there are (more than capacity: the rest
  // were not written).
  size_t CollectHeads(HashNode** out, size_t capacity);

  // Entries inserted so far. With acquire ordering, every entry counted was
  // fully linked before the count was read.
  uint64_t NumEntries() const {
    return counts_.Sum(kEntries, std::memory_order_acquire);
  }
  // User keys inserted so far; as NumEntries, every key counted was linked
  // (and logged) before the count was read.
  uint64_t NumKeys() const {
    return counts_.Sum(kKeys, std::memory_order_acquire);
  }
  size_t NumSlots() const { return slots_.load(std::memory_order_relaxed); }
  // Slot array and counter memory (nodes live in the memtable's arena).
  size_t MemoryUsage() const {
    return NumSlots() * sizeof(uint64_t) + counts_.MemoryUsage() +
           gate_.MemoryUsage();
  }

 private:
  struct SlotArray;
  struct Migration;
  enum Count : size_t { kKeys, kEntries, kNumCounts };

  template <bool kCheckTags>
  FindResult Probe(const ROCKSDB_NAMESPACE::Slice& user_key, uint64_t hash,
                   int cpu);
  // The slots are not cleared yet (ClearSlots).
  SlotArray* NewSlotArray(size_t num_slots) const;
  static void ClearSlots(SlotArray* array, size_t begin, size_t end);
  static void DeleteSlotArray(SlotArray* array);

  // Links node in; false when no slot is free (nothing was changed).
  // REQUIRES: registered with gate_ as a writer, `array` loaded since.
  bool TryInsert(SlotArray* array, HashNode* node, uint64_t hash,
                 const EntryKey& key, InsertResult* result);
  // Links node into the version chain whose head `slot` holds (value
  // `seen`); false if an entry with the same sequence is there. Lock-free.
  // REQUIRES: registered with gate_ as a writer (TryInsert's caller).
  static bool LinkVersion(std::atomic<uint64_t>* slot, uint64_t seen,
                          HashNode* node, uint64_t sequence);
  // Doubles `seen` unless another thread already replaced it; true if this
  // call did. Waits for every writer to leave gate_, so a writer that calls
  // it must have left first.
  // REQUIRES: grow_mutex_ not held (it takes it), not registered with
  // gate_.
  bool Grow(SlotArray* seen);
  // A writer paused by a doubling takes tasks of it while there are any.
  // Lock-free: counted in helpers_ while it reads migration_.
  void HelpGrow();
  // Does tasks of `migration` until none is left unclaimed.
  // REQUIRES: `migration` is alive: the caller holds grow_mutex_ (the
  // growing thread), or is counted in helpers_ and saw it in migration_.
  static void DoTasks(Migration* migration);
  // Rehashes one chunk of the old array's slots into the new array (other
  // threads move other chunks at the same time); returns the keys moved.
  // REQUIRES: the chunk's task claimed by the caller, every clearing task
  // done.
  static uint64_t MoveChunk(const SlotArray& from, SlotArray* to, size_t chunk);

  const double max_load_factor_;
  InsertLog* const log_;
  // Loaded only while registered with gate_; replaced (and the old array
  // freed after gate_.WaitForReaders) only under grow_mutex_, within
  // gate_'s exclusive section.
  std::atomic<SlotArray*> array_;
  std::atomic<size_t> slots_{0};
  // Held by the one growing thread from its check that the array is still
  // `seen` until the old array is freed: serializes doublings, and so
  // gate_'s exclusive sections; migration_ is set and cleared only under it.
  std::mutex grow_mutex_;
  ResizeGate gate_;
  // The doubling in progress, for paused writers to help with; the growing
  // thread frees it only once no helper is left (helpers_).
  std::atomic<Migration*> migration_{nullptr};
  std::atomic<int> helpers_{0};
  // Per-CPU counts of user keys in the current array and of all entries.
  StripedCounters counts_;
};

// What FindChecked's answer `found` for `user_key` says about memory damage:
// Corruption when it met a misplaced slot, or when `entry` (if not null), an
// entry with that user key, is not on the version chain found, as when its
// key's bytes changed after it was indexed; else OK. Keys are named only if
// allow_data_in_errors.
ROCKSDB_NAMESPACE::Status CheckFound(const ROCKSDB_NAMESPACE::Slice& user_key,
                                     const HashSlotIndex::FindResult& found,
                                     const HashNode* entry,
                                     bool allow_data_in_errors);

}  // namespace rocksdb_cuckoo
