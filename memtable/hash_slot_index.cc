#include "memtable/hash_slot_index.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

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

inline uint64_t HashUserKey(const Slice& user_key) {
  return HashKey(user_key.data(), user_key.size());
}

inline bool HasUserKey(const HashNode* node, const Slice& user_key) {
  return DecodeEntryKey(node->entry()).user_key == user_key;
}

// Rehashing touches every node once, in slot order: fetch this many ahead so
// the misses overlap.
constexpr size_t kPrefetchDistance = 8;

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

HashSlotIndex::HashSlotIndex(uint64_t initial_slots, double max_load_factor)
    : max_load_factor_(max_load_factor),
      counts_(kNumCounts, StripeMode::kCore) {
  size_t slots = 16;
  while (slots < initial_slots) slots <<= 1;
  array_.store(NewSlotArray(slots), std::memory_order_release);
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
  for (size_t i = 0; i < num_slots; ++i) {
    new (&array->slots[i]) std::atomic<uint64_t>(0);
  }
  return array;
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
  const uint64_t hash = HashUserKey(key.user_key);
  InsertResult result;
  for (;;) {
    SlotArray* array;
    bool done;
    bool grow = false;
    {
      GateScope scope(&gate_, gate_.EnterWrite(cpu));
      array = array_.load(std::memory_order_seq_cst);
      done = TryInsert(array, node, hash, key, &result);
      if (done && result.inserted) {
        const StripedCounters::Stripe stripe = counts_.For(cpu);
        stripe[kEntries].fetch_add(1, std::memory_order_release);
        if (result.new_key) {
          const uint64_t mine =
              stripe[kKeys].fetch_add(1, std::memory_order_relaxed) + 1;
          grow = mine % array->check_every == 0 &&
                 counts_.Sum(kKeys) > array->grow_at;
        }
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
      node->next.store(nullptr, std::memory_order_relaxed);
      if (slot->compare_exchange_strong(seen, MakeSlot(node, tag),
                                        std::memory_order_release,
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
      node->next.store(head, std::memory_order_relaxed);
      if (slot->compare_exchange_weak(seen, MakeSlot(node, SlotTag(seen)),
                                      std::memory_order_release,
                                      std::memory_order_acquire)) {
        return true;
      }
      continue;  // a newer head arrived; `seen` holds it
    }
    // Older than the head (concurrent writers can finish out of sequence
    // order): walk to the first older entry and link in front of it.
    HashNode* prev = head;
    for (;;) {
      HashNode* next = prev->next.load(std::memory_order_acquire);
      if (next != nullptr) {
        const uint64_t next_sequence = SequenceOf(next);
        if (sequence == next_sequence) return false;
        if (sequence < next_sequence) {
          prev = next;
          continue;
        }
      }
      node->next.store(next, std::memory_order_relaxed);
      if (prev->next.compare_exchange_weak(next, node,
                                           std::memory_order_release,
                                           std::memory_order_relaxed)) {
        return true;
      }
    }
  }
}

HashSlotIndex::FindResult HashSlotIndex::Find(const Slice& user_key, int cpu) {
  const uint64_t hash = HashUserKey(user_key);
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
      if (HasUserKey(head, user_key)) {
        result.head = head;
        break;
      }
      ++result.tag_collisions;
    }
  }
  return result;
}

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
  std::lock_guard<std::mutex> lock(grow_mutex_);
  if (array_.load(std::memory_order_acquire) != seen) return false;

  gate_.BeginExclusive();
  // Writers are out; readers may still probe `seen`, which stays unchanged.
  // (Acquire: the nodes were published by other threads' CASes.)
  LargeBuffer used_memory((seen->mask + 1) * sizeof(uint64_t));
  uint64_t* used = static_cast<uint64_t*>(used_memory.data());
  size_t num_used = 0;
  for (size_t i = 0; i <= seen->mask; ++i) {
    const uint64_t value = seen->slots[i].load(std::memory_order_acquire);
    if (value != 0) used[num_used++] = value;
  }
  SlotArray* bigger = NewSlotArray(2 * (seen->mask + 1));
  for (size_t j = 0; j < num_used; ++j) {
    if (j + kPrefetchDistance < num_used) {
      __builtin_prefetch(SlotNode(used[j + kPrefetchDistance]));
    }
    const uint64_t hash =
        HashUserKey(DecodeEntryKey(SlotNode(used[j])->entry()).user_key);
    size_t i = hash & bigger->mask;
    while (bigger->slots[i].load(std::memory_order_relaxed) != 0) {
      i = (i + 1) & bigger->mask;
    }
    bigger->slots[i].store(used[j], std::memory_order_relaxed);
  }
  for (size_t s = 0; s < counts_.num_stripes(); ++s) {
    counts_.At(s)[kKeys].store(s == 0 ? num_used : 0,
                               std::memory_order_relaxed);
  }
  array_.store(bigger, std::memory_order_seq_cst);
  slots_.store(bigger->mask + 1, std::memory_order_relaxed);
  gate_.EndExclusive();

  gate_.WaitForReaders();
  DeleteSlotArray(seen);
  return true;
}

}  // namespace rocksdb_cuckoo
