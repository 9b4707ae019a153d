#include "memtable/striped_hash_rep.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/lookup_key.h"
#include "memory/allocator.h"
#include "memory/arena.h"
#include "memtable/memtable_user_comparator.h"
#include "memtable/striped_hash_iterator.h"
#include "memtable/striped_hash_stats.h"
#include "rocksdb/comparator.h"
#include "util/plugin_usage.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

// With a (reverse) bytewise user comparator the view can radix-sort; any
// other order, or a comparator that cannot be seen (kOther), sorts with the
// comparator, which only costs speed.
KeyOrder DetectKeyOrder(const MemTableRep::KeyComparator& comparator) {
  const Comparator* user = UserComparatorOf(comparator);
  if (user == nullptr || user->timestamp_size() != 0) return KeyOrder::kOther;
  if (strcmp(user->Name(), BytewiseComparator()->Name()) == 0) {
    return KeyOrder::kBytewise;
  }
  if (strcmp(user->Name(), ReverseBytewiseComparator()->Name()) == 0) {
    return KeyOrder::kReverseBytewise;
  }
  return KeyOrder::kOther;
}

// RocksDB destroys an iterator it had made in its arena without freeing
// the memory, and deletes one made without an arena.
template <typename IteratorType, typename... Args>
MemTableRep::Iterator* NewIteratorIn(Arena* arena, Args&&... args) {
  void* memory = arena != nullptr ? arena->AllocateAligned(sizeof(IteratorType))
                                  : ::operator new(sizeof(IteratorType));
  return new (memory) IteratorType(std::forward<Args>(args)...);
}

}  // namespace

StripedHashRep::StripedHashRep(const KeyComparator& comparator,
                               Allocator* allocator,
                               const StripedHashMemTableOptions& options,
                               std::shared_ptr<StripedCounters> stats)
    : ValidatingMemTableRep(allocator),
      comparator_(comparator),
      order_(DetectKeyOrder(comparator)),
      stats_(std::move(stats)),
      entries_(allocator, options.entry_slab_size),
      index_(options.bucket_count, options.max_load_factor, &log_) {
  stats_->Add(kStatMemtables, 1);
  CountPluginUse(PluginUse::kMemtableCreated);
  ChargeIndexToArena();
}

void StripedHashRep::ChargeIndexToArena() {
  const size_t usage = index_.MemoryUsage();
  size_t charged = index_charged_.load(std::memory_order_relaxed);
  while (usage > charged) {
    if (index_charged_.compare_exchange_weak(charged, usage,
                                             std::memory_order_relaxed)) {
      allocator_->Allocate(usage - charged);
      return;
    }
  }
}

KeyHandle StripedHashRep::Allocate(const size_t len, char** buf) {
  char* memory = entries_.Allocate(sizeof(HashNode) + len);
  HashNode* node = new (memory) HashNode();
  *buf = node->entry();
  return node;
}

bool StripedHashRep::InsertEntry(KeyHandle handle) {
  HashNode* node = static_cast<HashNode*>(handle);
  const EntryKey key = DecodeEntryKey(node->entry());
  // One CPU lookup picks the stripe of every counter the insert touches.
  const int cpu = CurrentCpu();
  const HashSlotIndex::InsertResult result = index_.Insert(node, key, cpu);

  const StripedCounters::Stripe stripe = stats_->For(cpu);
  stripe.Add(kStatInsertProbes, result.probes);
  if (result.grew) {
    stripe.Add(kStatResizes, 1);
    ChargeIndexToArena();
  }
  if (!result.inserted) {
    stripe.Add(kStatDuplicates, 1);
    return false;
  }
  stripe.Add(kStatInserts, 1);
  stripe.Add(kStatInsertBytes, EntryPayloadBytes(key));
  if (result.new_key) stripe.Add(kStatNewKeys, 1);
  switch (static_cast<ValueType>(key.type())) {
    case kTypeDeletion:
    case kTypeSingleDeletion:
    case kTypeDeletionWithTimestamp:
      stripe.Add(kStatDeletes, 1);
      break;
    case kTypeMerge:
      stripe.Add(kStatMerges, 1);
      break;
    default:
      break;
  }
  return true;
}

HashSlotIndex::FindResult StripedHashRep::FindVersions(const Slice& user_key,
                                                       uint64_t hash, int cpu,
                                                       bool checked) const {
  const HashSlotIndex::FindResult found =
      checked ? index_.FindChecked(user_key, hash, cpu)
              : index_.Find(user_key, hash, cpu);
  const StripedCounters::Stripe stripe = stats_->For(cpu);
  stripe.Add(found.head != nullptr ? kStatHits : kStatMisses, 1);
  if (found.probes > 1) stripe.Add(kStatExtraLookupProbes, found.probes - 1);
  if (found.tag_collisions != 0) {
    stripe.Add(kStatTagCollisions, found.tag_collisions);
  }
  return found;
}

bool StripedHashRep::Contains(const char* key) const {
  const EntryKey target = DecodeEntryKey(key);
  // Versions are newest (largest sequence) first.
  for (const HashNode* node = FindVersions(target.user_key); node != nullptr;
       node = NextOf(node)) {
    const uint64_t sequence = SequenceOf(node);
    if (sequence <= target.sequence()) return sequence == target.sequence();
  }
  return false;
}

void StripedHashRep::Get(const LookupKey& key, void* callback_args,
                         bool (*callback_func)(void* arg, const char* entry)) {
  const EntryKey target = DecodeEntryKey(key.memtable_key().data());
  GetFrom(FindVersions(target.user_key), target, callback_args, callback_func);
}

void StripedHashRep::GetFrom(HashNode* head, const EntryKey& target,
                             void* callback_args,
                             bool (*callback_func)(void* arg,
                                                   const char* entry)) {
  // Like a skip list Seek to the lookup key: skip versions newer than the
  // lookup's sequence, then hand out the rest newest first.
  for (HashNode* node = FirstAtOrBelow(head, target.sequence());
       node != nullptr; node = NextOf(node)) {
    if (!callback_func(callback_args, node->entry())) return;
  }
}

Status StripedHashRep::GetChecked(const LookupKey& key, void* callback_args,
                                  bool (*callback_func)(void* arg,
                                                        const char* entry),
                                  bool allow_data_in_errors,
                                  const EntryValidator& validate_entry) {
  const EntryKey target = DecodeEntryKey(key.memtable_key().data());
  return GetCheckedFrom(
      FindVersions(target.user_key, HashSlotIndex::Hash(target.user_key),
                   CurrentCpu(), /*checked=*/true),
      target, callback_args, callback_func, allow_data_in_errors,
      validate_entry);
}

Status StripedHashRep::GetCheckedFrom(
    const HashSlotIndex::FindResult& found, const EntryKey& target,
    void* callback_args, bool (*callback_func)(void* arg, const char* entry),
    bool allow_data_in_errors, const EntryValidator& validate_entry) {
  if (found.misplaced != nullptr) {
    // The entry's checksum, where kept, says it first (and as RocksDB does).
    if (validate_entry) {
      Status s = validate_entry(found.misplaced->entry(), allow_data_in_errors);
      if (!s.ok()) return s;
    }
    return CheckFound(target.user_key, found, nullptr, allow_data_in_errors);
  }
  auto corruption = [&](const char* what) {
    return Status::Corruption(
        std::string("striped_hash: ") + what +
        (allow_data_in_errors ? " for key " + target.user_key.ToString(true)
                              : std::string()));
  };
  // A chain holds one user key's versions, each older than the one before.
  uint64_t previous = UINT64_MAX;
  bool reporting = true;
  for (HashNode* node = found.head; node != nullptr; node = NextOf(node)) {
    // Validated before it is decoded: a damaged entry's lengths are not to
    // be trusted.
    if (validate_entry) {
      Status s = validate_entry(node->entry(), allow_data_in_errors);
      if (!s.ok()) return s;
    }
    const EntryKey entry = DecodeEntryKey(node->entry());
    if (entry.user_key != target.user_key) {
      return corruption("version chain holds another key");
    }
    if (entry.packed >= previous) {
      return corruption("versions out of order");
    }
    previous = entry.packed;
    if (reporting && entry.sequence() <= target.sequence()) {
      reporting = callback_func(callback_args, node->entry());
    }
  }
  return Status::OK();
}

Status StripedHashRep::MultiGetEntries(
    size_t num_keys, const char* const* keys, void** callback_args,
    bool (*callback_func)(void* arg, const char* entry),
    bool allow_data_in_errors, bool detect_key_out_of_order,
    const EntryValidator& validate_entry) {
  const bool checked = detect_key_out_of_order || validate_entry != nullptr;
  // MemTable::MultiGet passes at most MultiGetContext::MAX_BATCH_SIZE (32)
  // keys; longer batches go in rounds of that many.
  constexpr size_t kRound = 32;
  EntryKey targets[kRound];
  uint64_t hashes[kRound];
  const int cpu = CurrentCpu();
  for (size_t begin = 0; begin < num_keys; begin += kRound) {
    const size_t n = std::min(kRound, num_keys - begin);
    for (size_t i = 0; i < n; ++i) {
      targets[i] = DecodeEntryKey(keys[begin + i]);
      hashes[i] = HashSlotIndex::Hash(targets[i].user_key);
    }
    index_.Prefetch(hashes, n, cpu);
    for (size_t i = 0; i < n; ++i) {
      const HashSlotIndex::FindResult found =
          FindVersions(targets[i].user_key, hashes[i], cpu, checked);
      void* args = callback_args[begin + i];
      if (!checked) {
        GetFrom(found.head, targets[i], args, callback_func);
        continue;
      }
      Status s = GetCheckedFrom(found, targets[i], args, callback_func,
                                allow_data_in_errors, validate_entry);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

std::shared_ptr<const SortedView> StripedHashRep::CurrentView() {
  std::lock_guard<std::mutex> lock(view_mutex_);
  const uint64_t keys = index_.NumKeys();
  if (view_ != nullptr && view_->covered_keys() == keys) return view_;
  std::vector<HashNode*> added;
  if (view_ != nullptr && log_.Take(&added)) {
    view_ = std::make_shared<const SortedView>(*view_, std::move(added), keys);
    stats_->Add(kStatViewRenewals, 1);
  } else {
    log_.Restart(std::max(kMinLogLimit, index_.NumKeys() / kLogShare));
    view_ = std::make_shared<const SortedView>(&index_, comparator_, order_);
    stats_->Add(kStatSorts, 1);
  }
  return view_;
}

MemTableRep::Iterator* StripedHashRep::GetIterator(Arena* arena) {
  return NewIteratorIn<StripedHashIterator>(arena, this, CurrentView(),
                                            comparator_);
}

MemTableRep::Iterator* StripedHashRep::GetDynamicPrefixIterator(Arena* arena) {
  return NewIteratorIn<StripedHashIterator>(arena, this, nullptr, comparator_,
                                            this);
}

std::shared_ptr<const SortedView> StripedHashRep::Renewed(
    std::shared_ptr<const SortedView> view) {
  if (view != nullptr && view->covered_keys() == index_.NumKeys()) {
    return view;
  }
  return CurrentView();
}

HashNode* StripedHashRep::CurrentHead(const Slice& user_key) const {
  // Not counted as a lookup: the statistics count Gets.
  return index_.Find(user_key, HashSlotIndex::Hash(user_key), CurrentCpu())
      .head;
}

HashSlotIndex::FindResult StripedHashRep::FindChecked(
    const Slice& user_key) const {
  // Not counted as a lookup, as CurrentHead.
  return index_.FindChecked(user_key, HashSlotIndex::Hash(user_key),
                            CurrentCpu());
}

uint64_t StripedHashRep::ApproximateNumEntries(const Slice& start_ikey,
                                               const Slice& end_ikey) {
  const std::shared_ptr<const SortedView> view = CurrentView();
  if (view->size() == 0) return 0;
  std::string start;
  std::string end;
  const size_t first = view->CountBefore(EncodeMemtableKey(start_ikey, &start));
  const size_t last = view->CountBefore(EncodeMemtableKey(end_ikey, &end));
  if (last <= first) return 0;
  // The view counts user keys; scale by the average number of versions.
  return (last - first) * index_.NumEntries() / view->size();
}

void StripedHashRep::UniqueRandomSample(
    const uint64_t num_entries, const uint64_t target_sample_size,
    std::unordered_set<const char*>* entries) {
  entries->clear();
  if (num_entries == 0 || target_sample_size == 0) return;
  // Selection sampling over the ordered entries: each is taken with
  // probability needed / remaining, which yields a uniform sample without
  // duplicates in one pass.
  std::mt19937_64 random(static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count()));
  StripedHashIterator iter(this, CurrentView(), comparator_);
  uint64_t seen = 0;
  uint64_t needed = target_sample_size;
  for (iter.SeekToFirst(); iter.Valid() && needed > 0 && seen < num_entries;
       iter.Next(), ++seen) {
    if (random() % (num_entries - seen) < needed) {
      entries->insert(iter.key());
      --needed;
    }
  }
}

size_t StripedHashRep::ApproximateMemoryUsage() {
  const size_t index = index_.MemoryUsage();
  const size_t charged = index_charged_.load(std::memory_order_relaxed);
  return index > charged ? index - charged : 0;
}

void StripedHashRep::MarkFlushed() {
  std::lock_guard<std::mutex> lock(view_mutex_);
  view_.reset();
  log_.Stop();
}

}  // namespace rocksdb_cuckoo
