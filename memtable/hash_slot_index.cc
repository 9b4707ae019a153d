#include "memtable/hash_slot_index.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include "util/key_hash.h"
#include "util/large_buffer.h"

namespace rocksdb_cuckoo {

namespace {

using ROCKSDB_NAMESPACE::Slice;

// Slot layout: the node address in the low 48 bits (user-space addresses on
// x86-64 and AArch64 Linux stay below 2^47 unless a program asks the kernel
// for more), a 16-bit tag from the hash above it. 0 is an empty slot.
constexpr int kTagShift = 48;
constexpr uint64_t kAddressMask = (uint64_t{1} << kTagShift) - 1;

inline uint64_t TagOf(uint64_t hash) { return hash >> kTagShift; }
inline uint64_t SlotTag(uint64_t slot) { return slot >> kTagShift; }
inline HashNode* SlotNode(uint64_t slot) {
  return reinterpret_cast<HashNode*>(slot & kAddressMask);
}
inline uint64_t MakeSlot(HashNode* node, uint64_t tag) {
  return reinterpret_cast<uintptr_t>(node) | (tag << kTagShift);
}

inline bool HasUserKey(const HashNode* node, const Slice& user_key) {
  return DecodeEntryKey(node->entry()).user_key == user_key;
}

// Rehashing touches every node once, in slot order: fetch this many ahead so
// the misses overlap.
constexpr size_t kPrefetchDistance = 8;
// Slots per task of a doubling (clearing the new array, or moving the old
// one's keys): small enough for a chunk's used slots to fit on the stack
// and for the tasks to spread over many threads, large enough that
// claiming one is rare.
constexpr size_t kChunkSlots = 1024;

}  // namespace

struct HashSlotIndex::SlotArray {
  size_t mask;
  // Grow once more user keys than this are in the array ...
  uint64_t grow_at;
  // ... checked by a writer every check_every new keys on its stripe, so
  // that the sum over stripes is read rarely. The overshoot stays below
  // grow_at / 16, and a full array grows regardless.
  uint64_t check_every;
  // Huge pages where the kernel allows: lookups hit random slots, and fewer
  // TLB misses make them cheaper.
  std::unique_ptr<LargeBuffer> memory;
  std::atomic<uint64_t>* slots;
};

// A doubling's work in tasks any thread may claim, in order: first clearing
// the new array a chunk at a time (first-touching it, page faults and all),
// then moving the old array's keys a chunk at a time.
struct HashSlotIndex::Migration {
  Migration(const SlotArray* old_array, SlotArray* new_array)
      : from(old_array),
        to(new_array),
        clear_tasks((new_array->mask + kChunkSlots) / kChunkSlots),
        num_tasks(clear_tasks + (old_array->mask + kChunkSlots) / kChunkSlots) {
  }

  const SlotArray* const from;
  SlotArray* const to;
  const size_t clear_tasks;
  const size_t num_tasks;
  std::atomic<size_t> next_task{0};
  std::atomic<size_t> clears_done{0};
  std::atomic<size_t> tasks_done{0};
  std::atomic<uint64_t> keys{0};
};

HashSlotIndex::HashSlotIndex(uint64_t initial_slots, double max_load_factor,
                             InsertLog* log)
    : max_load_factor_(max_load_factor),
      log_(log),
      counts_(kNumCounts, StripeMode::kCore) {
  size_t slots = 16;
  while (slots < initial_slots) slots <<= 1;
  SlotArray* array = NewSlotArray(slots);
  ClearSlots(array, 0, slots);
  array_.store(array, std::memory_order_release);
  slots_.store(slots, std::memory_order_relaxed);
}

HashSlotIndex::~HashSlotIndex() {
  DeleteSlotArray(array_.load(std::memory_order_acquire));
}

HashSlotIndex::SlotArray* HashSlotIndex::NewSlotArray(size_t num_slots) const {
  SlotArray* array = new SlotArray;
  array->mask = num_slots - 1;
  array->grow_at =
      static_cast<uint64_t>(static_cast<double>(num_slots) * max_load_factor_);
  array->check_every = std::max<uint64_t>(
      1, std::min<uint64_t>(64, array->grow_at / (16 * counts_.num_stripes())));
  array->memory =
      std::make_unique<LargeBuffer>(num_slots * sizeof(std::atomic<uint64_t>));
  array->slots = static_cast<std::atomic<uint64_t>*>(array->memory->data());
  return array;
}

void HashSlotIndex::ClearSlots(SlotArray* array, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    new (&array->slots[i]) std::atomic<uint64_t>(0);
  }
}

void HashSlotIndex::DeleteSlotArray(SlotArray* array) { delete array; }

HashSlotIndex::InsertResult HashSlotIndex::Insert(HashNode* node,
                                                  const EntryKey& key,
                                                  int cpu) {
  if ((reinterpret_cast<uintptr_t>(node) & ~kAddressMask) != 0) {
    // Cannot happen on the supported platforms (see kTagShift); a silent
    // wrong slot would corrupt reads, so stop loudly instead.
    fprintf(stderr, "striped_hash: node address %p above 2^48\n",
            static_cast<void*>(node));
    abort();
  }
  const uint64_t hash = Hash(key.user_key);
  InsertResult result;
  for (;;) {
    SlotArray* array;
    bool done;
    bool grow = false;
    {
      GateScope scope(&gate_, gate_.EnterWrite(cpu, [this] { HelpGrow(); }));
      array = array_.load(std::memory_order_seq_cst);
      done = TryInsert(array, node, hash, key, &result);
      if (done && result.inserted) {
        const StripedCounters::Stripe stripe = counts_.For(cpu);
        if (result.new_key) {
          if (log_ != nullptr) log_->Record(node, cpu);
          const uint64_t mine =
              stripe[kKeys].fetch_add(1, std::memory_order_release) + 1;
          grow = mine % array->check_every == 0 &&
                 counts_.Sum(kKeys) > array->grow_at;
        }
        stripe[kEntries].fetch_add(1, std::memory_order_release);
      }
    }
    // Outside the write scope: growing waits for all writers to leave.
    if ((!done || grow) && Grow(array)) result.grew = true;
    if (done) return result;
  }
}

bool HashSlotIndex::TryInsert(SlotArray* array, HashNode* node, uint64_t hash,
                              const EntryKey& key, InsertResult* result) {
  const uint64_t tag = TagOf(hash);
  const size_t mask = array->mask;
  size_t i = hash & mask;
  for (size_t n = 0; n <= mask; ++n, i = (i + 1) & mask) {
    ++result->probes;
    std::atomic<uint64_t>* slot = &array->slots[i];
    uint64_t seen = slot->load(std::memory_order_acquire);
    if (seen == 0) {
      node->next.store(0, std::memory_order_relaxed);
      if (slot->compare_exchange_strong(seen, MakeSlot(node, tag),
                                        std::memory_order_seq_cst,
                                        std::memory_order_acquire)) {
        result->inserted = true;
        result->new_key = true;
        return true;
      }
      // Lost the race; `seen` is the winner, maybe our own user key.
    }
    if (SlotTag(seen) == tag && HasUserKey(SlotNode(seen), key.user_key)) {
      result->inserted = LinkVersion(slot, seen, node, key.sequence());
      return true;
    }
  }
  return false;
}

bool HashSlotIndex::LinkVersion(std::atomic<uint64_t>* slot, uint64_t seen,
                                HashNode* node, uint64_t sequence) {
  for (;;) {
    HashNode* head = SlotNode(seen);
    const uint64_t head_sequence = SequenceOf(head);
    if (sequence == head_sequence) return false;
    if (sequence > head_sequence) {
      // Newest version: it becomes the head.
      node->next.store(LinkTo(head), std::memory_order_relaxed);
      if (slot->compare_exchange_weak(seen, MakeSlot(node, SlotTag(seen)),
                                      std::memory_order_seq_cst,
                                      std::memory_order_acquire)) {
        // Before the insert returns, so before RocksDB publishes its
        // sequence number: a reader that may see the new version finds the
        // old head marked.
        head->next.fetch_or(kSupersededBit, std::memory_order_release);
        return true;
      }
      continue;  // a newer head arrived; `seen` holds it
    }
    // Older than the head (concurrent writers can finish out of sequence
    // order): walk to the first older entry and link in front of it.
    HashNode* prev = head;
    for (;;) {
      uintptr_t link = prev->next.load(std::memory_order_acquire);
      HashNode* next = NodeAt(link);
      if (next != nullptr) {
        const uint64_t next_sequence = SequenceOf(next);
        if (sequence == next_sequence) return false;
        if (sequence < next_sequence) {
          prev = next;
          continue;
        }
      }
      node->next.store(LinkTo(next), std::memory_order_relaxed);
      // prev keeps its superseded bit (set meanwhile: the swap fails).
      if (prev->next.compare_exchange_weak(
              link, LinkTo(node) | (link & kSupersededBit),
              std::memory_order_seq_cst, std::memory_order_relaxed)) {
        return true;
      }
    }
  }
}

void HashSlotIndex::Prefetch(const uint64_t* hashes, size_t n, int cpu) {
  // Registered as a reader: a doubling may free the array otherwise.
  GateScope scope(&gate_, gate_.EnterRead(cpu));
  const SlotArray* array = array_.load(std::memory_order_seq_cst);
  for (size_t i = 0; i < n; ++i) {
    __builtin_prefetch(&array->slots[hashes[i] & array->mask]);
  }
}

template <bool kCheckTags>
HashSlotIndex::FindResult HashSlotIndex::Probe(const Slice& user_key,
                                               uint64_t hash, int cpu) {
  const uint64_t tag = TagOf(hash);
  FindResult result;
  GateScope scope(&gate_, gate_.EnterRead(cpu));
  const SlotArray* array = array_.load(std::memory_order_seq_cst);
  const size_t mask = array->mask;
  size_t i = hash & mask;
  for (size_t n = 0; n <= mask; ++n, i = (i + 1) & mask) {
    ++result.probes;
    const uint64_t seen = array->slots[i].load(std::memory_order_acquire);
    if (seen == 0) break;
    if (SlotTag(seen) == tag) {
      HashNode* head = SlotNode(seen);
      // A Get copies the found entry's value next: fetch the lines after
      // the key while the key's own line is on its way, one wait not three.
      const char* node_bytes = reinterpret_cast<const char*>(head);
      __builtin_prefetch(node_bytes + 64);
      __builtin_prefetch(node_bytes + 128);
      if (HasUserKey(head, user_key)) {
        result.head = head;
        break;
      }
      ++result.tag_collisions;
      if (kCheckTags &&
          TagOf(Hash(DecodeEntryKey(head->entry()).user_key)) != tag) {
        result.misplaced = head;
        break;
      }
    }
  }
  return result;
}

template HashSlotIndex::FindResult HashSlotIndex::Probe<false>(const Slice&,
                                                               uint64_t, int);
template HashSlotIndex::FindResult HashSlotIndex::Probe<true>(const Slice&,
                                                              uint64_t, int);

size_t HashSlotIndex::CollectHeads(HashNode** out, size_t capacity) {
  GateScope scope(&gate_, gate_.EnterRead(CurrentCpu()));
  const SlotArray* array = array_.load(std::memory_order_seq_cst);
  size_t count = 0;
  for (size_t i = 0; i <= array->mask; ++i) {
    const uint64_t seen = array->slots[i].load(std::memory_order_acquire);
    if (seen != 0) {
      if (count < capacity) out[count] = SlotNode(seen);
      ++count;
    }
  }
  return count;
}

bool HashSlotIndex::Grow(SlotArray* seen) {
  std::unique_lock<std::mutex> lock(grow_mutex_, std::defer_lock);
  while (!lock.try_lock()) {
    // Another thread is doubling (or freeing the array it replaced).
    HelpGrow();
    if (array_.load(std::memory_order_acquire) != seen) return false;
    std::this_thread::yield();
  }
  if (array_.load(std::memory_order_acquire) != seen) return false;

  gate_.BeginExclusive();
  // Writers are out; readers may still probe `seen`, which stays unchanged.
  Migration migration(seen, NewSlotArray(2 * (seen->mask + 1)));
  migration_.store(&migration, std::memory_order_seq_cst);
  DoTasks(&migration);
  while (migration.tasks_done.load(std::memory_order_acquire) <
         migration.num_tasks) {
    std::this_thread::yield();  // a helper is finishing its task
  }
  // Either a helper sees no migration, or this sees it registered.
  migration_.store(nullptr, std::memory_order_seq_cst);
  while (helpers_.load(std::memory_order_seq_cst) != 0) {
    std::this_thread::yield();
  }

  const uint64_t keys = migration.keys.load(std::memory_order_relaxed);
  for (size_t s = 0; s < counts_.num_stripes(); ++s) {
    counts_.At(s)[kKeys].store(s == 0 ? keys : 0, std::memory_order_relaxed);
  }
  array_.store(migration.to, std::memory_order_seq_cst);
  slots_.store(migration.to->mask + 1, std::memory_order_relaxed);
  gate_.EndExclusive();

  gate_.WaitForReaders();
  DeleteSlotArray(seen);
  return true;
}

void HashSlotIndex::HelpGrow() {
  if (migration_.load(std::memory_order_acquire) == nullptr) return;
  helpers_.fetch_add(1, std::memory_order_seq_cst);
  if (Migration* migration = migration_.load(std::memory_order_seq_cst)) {
    DoTasks(migration);
  }
  helpers_.fetch_sub(1, std::memory_order_release);
}

void HashSlotIndex::DoTasks(Migration* migration) {
  for (;;) {
    const size_t task =
        migration->next_task.fetch_add(1, std::memory_order_relaxed);
    if (task >= migration->num_tasks) return;
    if (task < migration->clear_tasks) {
      const size_t begin = task * kChunkSlots;
      ClearSlots(migration->to, begin,
                 std::min(begin + kChunkSlots, migration->to->mask + 1));
      migration->clears_done.fetch_add(1, std::memory_order_release);
    } else {
      // Keys go anywhere in the new array: all of it must be clear. The
      // clearing tasks were all claimed before this one, so this waits
      // only for those still running.
      while (migration->clears_done.load(std::memory_order_acquire) <
             migration->clear_tasks) {
        std::this_thread::yield();
      }
      const uint64_t moved = MoveChunk(*migration->from, migration->to,
                                       task - migration->clear_tasks);
      migration->keys.fetch_add(moved, std::memory_order_relaxed);
    }
    // Release: the growing thread publishes the new array after it has
    // seen every task done, so readers see every slot moved.
    migration->tasks_done.fetch_add(1, std::memory_order_release);
  }
}

uint64_t HashSlotIndex::MoveChunk(const SlotArray& from, SlotArray* to,
                                  size_t chunk) {
  const size_t begin = chunk * kChunkSlots;
  const size_t end = std::min(begin + kChunkSlots, from.mask + 1);
  uint64_t used[kChunkSlots];
  size_t num_used = 0;
  for (size_t i = begin; i < end; ++i) {
    // Acquire: the nodes were published by other threads' CASes.
    const uint64_t value = from.slots[i].load(std::memory_order_acquire);
    if (value != 0) used[num_used++] = value;
  }
  for (size_t j = 0; j < num_used; ++j) {
    if (j + kPrefetchDistance < num_used) {
      __builtin_prefetch(SlotNode(used[j + kPrefetchDistance]));
    }
    const uint64_t hash =
        Hash(DecodeEntryKey(SlotNode(used[j])->entry()).user_key);
    // Other chunks' keys land in the same new array at the same time.
    for (size_t i = hash & to->mask;; i = (i + 1) & to->mask) {
      uint64_t empty = 0;
      if (to->slots[i].compare_exchange_strong(empty, used[j],
                                               std::memory_order_relaxed)) {
        break;
      }
    }
  }
  return num_used;
}

ROCKSDB_NAMESPACE::Status CheckFound(const Slice& user_key,
                                     const HashSlotIndex::FindResult& found,
                                     const HashNode* entry,
                                     bool allow_data_in_errors) {
  using ROCKSDB_NAMESPACE::Status;
  if (found.misplaced != nullptr) {
    std::string message = "striped_hash: a hash slot tagged for a key holds ";
    message +=
        allow_data_in_errors
            ? DecodeEntryKey(found.misplaced->entry()).user_key.ToString(true) +
                  ", which hashes elsewhere (looking up " +
                  user_key.ToString(true) + ")"
            : "another key, which hashes elsewhere";
    return Status::Corruption(message);
  }
  if (entry == nullptr) return Status::OK();
  for (const HashNode* node = found.head; node != nullptr;
       node = NextOf(node)) {
    if (node == entry) return Status::OK();
  }
  return Status::Corruption(
      std::string("striped_hash: an entry is not where the hash index finds "
                  "its key") +
      (allow_data_in_errors ? " " + user_key.ToString(true) : std::string()));
}

}  // namespace rocksdb_cuckoo
