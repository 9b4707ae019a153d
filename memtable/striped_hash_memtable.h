// Public interface of the striped_hash memtable: a hash-indexed MemTableRep
// for point-lookup-heavy, in-memory workloads, with statistics counters
// striped per last-level cache (or per CPU) so that writer and reader threads
// do not share a cache line to count.
//
// Load it by name (after register_rocksdb_cuckoo or LD_PRELOAD of the shared
// library):
//   memtable_factory=striped_hash
//   memtable_factory={id=striped_hash;bucket_count=65536;stripe_mode=core}
//   db_bench --memtablerep=striped_hash
// or build one in C++ with NewStripedHashMemTableFactory(). Read the counters
// with GetStats() on the factory (see StripedHashMemTableStats); with
// ROCKSDB_CUCKOO_MEMTABLE_STATS set in the environment, a factory also prints
// them to stderr when it is destroyed (how db_bench_ext gets them out of the
// stock db_bench).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"

namespace rocksdb_cuckoo {

class StripedCounters;

// The id users type in options strings and db_bench's --memtablerep.
inline constexpr const char* kStripedHashMemTableName = "striped_hash";

// How the statistics counters are spread over cache lines.
enum class StatsStripeMode : uint8_t {
  kLlc,   // "llc": one stripe per last-level cache, from sysfs; one stripe
          // when sysfs does not describe the caches
  kCore,  // "core": one stripe per logical CPU
  kNone,  // "none": a single shared atomic per counter (the baseline)
  kAuto,  // "auto": llc where sysfs shows several last-level caches, else
          // core
};

struct StripedHashMemTableOptions {
  static const char* kName() { return "StripedHashMemTableOptions"; }

  // Hash slots each new memtable starts with, rounded up to a power of two,
  // in [16, 2^30]. The index doubles whenever it passes max_load_factor, so
  // this only saves the first few doublings; 8 bytes per slot. (Named
  // bucket_count as RocksDB's hash memtables name theirs, and kept since
  // OPTIONS files carry it; the code calls them slots, since in table/ a
  // bucket is a cache line of 8 slots.)
  uint64_t bucket_count = 1024;
  // Fraction of slots holding a user key before the index doubles, in
  // [0.25, 0.9]. Lower means shorter probes and more memory.
  double max_load_factor = 0.75;
  // Striping of the statistics counters. Changing it resets the counters.
  // A stripe is 128 bytes, so even one per CPU costs 32 KiB per factory on
  // a 256-CPU machine.
  StatsStripeMode stripe_mode = StatsStripeMode::kAuto;
  // 0: entries come from the memtable's arena (4 KiB pages). Otherwise, in
  // [4 MiB, 1 GiB]: entries go into slabs of this size taken from the arena,
  // advised to use transparent huge pages, which makes a Get of a large
  // memtable faster (one TLB miss fewer). A memtable then flushes up to one
  // slab early, so DB::Open refuses a size above write_buffer_size / 8.
  uint64_t entry_slab_size = 0;
};

// Counters summed over all memtables a factory created, since the factory
// was made. Each is exact once its updaters are idle; under load each lies
// between its values at the start and the end of GetStats().
struct StripedHashMemTableStats {
  uint64_t memtables = 0;       // memtables created
  uint64_t inserts = 0;         // entries added
  uint64_t insert_bytes = 0;    // key and value bytes of those entries
  uint64_t deletes = 0;         // of which Delete / SingleDelete markers
  uint64_t merges = 0;          // of which Merge operands
  uint64_t new_keys = 0;        // of which the first entry of a user key
  uint64_t duplicates = 0;      // inserts refused: same key and sequence
  uint64_t insert_probes = 0;   // hash slots inspected by inserts
  uint64_t hits = 0;            // Get/Contains that found the user key
  uint64_t misses = 0;          // Get/Contains that did not
  uint64_t lookup_probes = 0;   // hash slots inspected by Get/Contains
  uint64_t tag_collisions = 0;  // slots whose tag matched but key did not
  uint64_t resizes = 0;         // index doublings
  uint64_t sorts = 0;           // views sorted from the whole index
  // Views renewed by merging the entries inserted since the last one into
  // it (instead of a sort of the whole memtable).
  uint64_t view_renewals = 0;
  uint64_t stripes = 0;  // stripes each counter is spread over
  // The striping in effect: auto is reported as the mode it chose.
  StatsStripeMode stripe_mode = StatsStripeMode::kAuto;

  uint64_t lookups() const { return hits + misses; }
  // One line, "name=value" pairs separated by spaces.
  std::string ToString() const;
};

class StripedHashMemTableFactory
    : public ROCKSDB_NAMESPACE::MemTableRepFactory {
 public:
  explicit StripedHashMemTableFactory(
      const StripedHashMemTableOptions& options = StripedHashMemTableOptions());
  ~StripedHashMemTableFactory() override;

  static const char* kClassName() { return kStripedHashMemTableName; }
  const char* Name() const override { return kClassName(); }

  using MemTableRepFactory::CreateMemTableRep;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& comparator,
      ROCKSDB_NAMESPACE::Allocator* allocator,
      const ROCKSDB_NAMESPACE::SliceTransform* prefix_extractor,
      ROCKSDB_NAMESPACE::Logger* logger) override;

  bool IsInsertConcurrentlySupported() const override { return true; }
  bool CanHandleDuplicatedKey() const override { return true; }

  // Runs the options' checks, then sets up the statistics' striping.
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;
  // Refuses what a byte-hashed index cannot serve: comparators that may
  // call different bytes equal, user timestamps, in-place updates.
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override;

  const StripedHashMemTableOptions& options() const { return options_; }
  StripedHashMemTableStats GetStats() const;

 protected:
  // An unknown option name is an invalid argument, as for every object of
  // this plugin.
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& options_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  StripedHashMemTableOptions options_;
  // Shared with every memtable made, so counts survive either side.
  std::shared_ptr<StripedCounters> stats_;
};

std::shared_ptr<StripedHashMemTableFactory> NewStripedHashMemTableFactory(
    const StripedHashMemTableOptions& options = StripedHashMemTableOptions());

}  // namespace rocksdb_cuckoo
