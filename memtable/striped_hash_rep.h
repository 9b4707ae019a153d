// The striped_hash MemTableRep: entries live in the memtable's arena as
// HashNodes, a HashSlotIndex finds a user key's version chain for Get,
// Contains and the work RocksDB does on one key (iterator seeks that carry
// the memtable key), and other iterators (flush included) walk a SortedView
// built on demand and shared until the next insert, then renewed from the
// InsertLog.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "memtable/entry_slabs.h"
#include "memtable/hash_slot_index.h"
#include "memtable/insert_log.h"
#include "memtable/memtable_rep_compat.h"
#include "memtable/sorted_view.h"
#include "memtable/striped_hash_iterator.h"
#include "memtable/striped_hash_memtable.h"
#include "rocksdb/memtablerep.h"
#include "util/cpu_topology.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

class StripedHashRep : public ValidatingMemTableRep<StripedHashRep>,
                       public SortedViewSource,
                       public KeyVersionsSource {
 public:
  StripedHashRep(const KeyComparator& comparator,
                 ROCKSDB_NAMESPACE::Allocator* allocator,
                 const StripedHashMemTableOptions& options,
                 std::shared_ptr<StripedCounters> stats);

  ROCKSDB_NAMESPACE::KeyHandle Allocate(const size_t len, char** buf) override;

  // All insert flavours are one operation: the index is safe for concurrent
  // writers, and hints do not apply to a hash index (RocksDB's defaults send
  // the hinted void flavours here too; the bool ones must report
  // duplicates).
  void Insert(ROCKSDB_NAMESPACE::KeyHandle handle) override {
    InsertEntry(handle);
  }
  bool InsertKey(ROCKSDB_NAMESPACE::KeyHandle handle) override {
    return InsertEntry(handle);
  }
  bool InsertKeyWithHint(ROCKSDB_NAMESPACE::KeyHandle handle,
                         void** /*hint*/) override {
    return InsertEntry(handle);
  }
  void InsertConcurrently(ROCKSDB_NAMESPACE::KeyHandle handle) override {
    InsertEntry(handle);
  }
  bool InsertKeyConcurrently(ROCKSDB_NAMESPACE::KeyHandle handle) override {
    return InsertEntry(handle);
  }
  bool InsertKeyWithHintConcurrently(ROCKSDB_NAMESPACE::KeyHandle handle,
                                     void** /*hint*/) override {
    return InsertEntry(handle);
  }

  bool Contains(const char* key) const override;
  void Get(const ROCKSDB_NAMESPACE::LookupKey& key, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override;
  // Get that also checks the versions it visits: all of the looked-up user
  // key, newest first. Corruption (naming the key only if
  // allow_data_in_errors) when memory was damaged, or the first failure of
  // `validate_entry` (if not empty), which sees every version visited.
  ROCKSDB_NAMESPACE::Status GetChecked(
      const ROCKSDB_NAMESPACE::LookupKey& key, void* callback_args,
      bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors, const EntryValidator& validate_entry);
  // Get for each of keys[0, num_keys) (memtable keys) with callback_args[i],
  // the batch's index slots fetched together first. With
  // detect_key_out_of_order or a non-empty validate_entry, each lookup is
  // GetChecked's instead, and the first failure ends the batch.
  ROCKSDB_NAMESPACE::Status MultiGetEntries(
      size_t num_keys, const char* const* keys, void** callback_args,
      bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors, bool detect_key_out_of_order,
      const EntryValidator& validate_entry);

  uint64_t ApproximateNumEntries(
      const ROCKSDB_NAMESPACE::Slice& start_ikey,
      const ROCKSDB_NAMESPACE::Slice& end_ikey) override;
  void UniqueRandomSample(const uint64_t num_entries,
                          const uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override;
  // What inserts allocated outside the arena (the index's growth not
  // charged to it), so it changes only while the memtable takes writes:
  // RocksDB's immutable memtable list subtracts on release exactly what it
  // added, and 11.x's MemPurge adds a memtable without marking it read-only.
  // The sorted view and the insert log, rebuilt for readers at any time
  // (a flush's iterator among them), are not counted.
  size_t ApproximateMemoryUsage() override;
  // The flushed memtable may live on for readers; the view is rebuilt if
  // one of them iterates.
  void MarkFlushed() override;

  Iterator* GetIterator(ROCKSDB_NAMESPACE::Arena* arena = nullptr) override;
  // A StripedHashIterator whose seeks given the memtable key (RocksDB's work
  // on one key) go through the hash index; its prefix seeks go through the
  // sorted view.
  Iterator* GetDynamicPrefixIterator(
      ROCKSDB_NAMESPACE::Arena* arena = nullptr) override;

 private:
  bool InsertEntry(ROCKSDB_NAMESPACE::KeyHandle handle);
  // The newest version of user_key (its chain follows), or null; counts the
  // lookup in the stats.
  HashNode* FindVersions(const ROCKSDB_NAMESPACE::Slice& user_key) const {
    return FindVersions(user_key, HashSlotIndex::Hash(user_key), CurrentCpu(),
                        /*checked=*/false)
        .head;
  }
  // The index's answer (FindChecked's if `checked`), counted in the stats.
  HashSlotIndex::FindResult FindVersions(
      const ROCKSDB_NAMESPACE::Slice& user_key, uint64_t hash, int cpu,
      bool checked) const;
  // Get's walk along the versions from `head`, the newest of target's user
  // key.
  static void GetFrom(HashNode* head, const EntryKey& target,
                      void* callback_args,
                      bool (*callback_func)(void* arg, const char* entry));
  // GetChecked's, from the index's checked answer for target's user key.
  static ROCKSDB_NAMESPACE::Status GetCheckedFrom(
      const HashSlotIndex::FindResult& found, const EntryKey& target,
      void* callback_args, bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors, const EntryValidator& validate_entry);
  // The sorted view of everything inserted so far (cached).
  // REQUIRES: view_mutex_ not held (it takes it).
  std::shared_ptr<const SortedView> CurrentView();
  // REQUIRES: view_mutex_ not held.
  std::shared_ptr<const SortedView> Renewed(
      std::shared_ptr<const SortedView> view) override;
  HashNode* CurrentHead(
      const ROCKSDB_NAMESPACE::Slice& user_key) const override;
  HashSlotIndex::FindResult FindChecked(
      const ROCKSDB_NAMESPACE::Slice& user_key) const override;
  HashNode* NewestVersion(
      const ROCKSDB_NAMESPACE::Slice& user_key) const override {
    return FindVersions(user_key);
  }
  // RocksDB's WriteBufferManager counts only what a memtable takes from its
  // arena; the index lives outside it (each doubling frees the array it
  // replaces). So every growth of the index is charged by taking as many
  // bytes from the arena, which RocksDB counts and frees with the memtable;
  // nothing writes them, so they cost address space, not memory.
  // ApproximateMemoryUsage() leaves the charged bytes out: the memtable's
  // total is unchanged. Lock-free, from any writer: the one whose
  // compare-and-swap raises index_charged_ takes the difference.
  void ChargeIndexToArena();

  const KeyComparator& comparator_;
  const KeyOrder order_;
  const std::shared_ptr<StripedCounters> stats_;
  EntrySlabs entries_;
  InsertLog log_;  // before index_, which records into it
  // Find() registers with the index's gate, so lookups mutate counters even
  // through the const Contains().
  mutable HashSlotIndex index_;
  std::atomic<size_t> index_charged_{0};

  // An iterator positioned after new user keys arrived renews the view: it
  // merges the keys logged since into the last one (sorted_view.h) while
  // they are at most a quarter of its keys (or kMinLogLimit), and sorts the
  // whole memtable otherwise. Merging that many still costs less than a sort; a
  // low limit would make the writes during one sort overflow the log and
  // force the next.
  static constexpr size_t kLogShare = 4;
  static constexpr size_t kMinLogLimit = 65536;
  // Guards view_, and serializes log_'s Restart, Take and Stop.
  std::mutex view_mutex_;
  std::shared_ptr<const SortedView> view_;  // guarded by view_mutex_
};

}  // namespace rocksdb_cuckoo
