// StripedHashMemTableFactory: typed, registered options (parsing, printing,
// OPTIONS files and validation come from RocksDB's Configurable), the
// statistics shared by every memtable it makes, and the memtables.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "memtable/memtable_user_comparator.h"
#include "memtable/striped_hash_memtable.h"
#include "memtable/striped_hash_rep.h"
#include "memtable/striped_hash_stats.h"
#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/options_type.h"
#include "util/option_checks.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

constexpr uint64_t kMinInitialSlots = 16;
constexpr uint64_t kMaxInitialSlots = uint64_t{1} << 30;
constexpr uint64_t kMinEntrySlab = uint64_t{4} << 20;
constexpr uint64_t kMaxEntrySlab = uint64_t{1} << 30;
constexpr double kMinLoadFactor = 0.25;
constexpr double kMaxLoadFactor = 0.9;

// Set in the environment of a process (db_bench, say) to have each factory
// that made a memtable print its summed counters to stderr when destroyed.
constexpr const char* kStatsEnvVar = "ROCKSDB_CUCKOO_MEMTABLE_STATS";

// By name, for the option parser.
const std::unordered_map<std::string, StatsStripeMode>* StripeModesByName() {
  static const auto* const modes = [] {
    auto* map = new std::unordered_map<std::string, StatsStripeMode>();
    for (size_t m = 0; m < kNumStripeModes; ++m) {
      (*map)[kStripeModeNames[m]] = static_cast<StatsStripeMode>(m);
    }
    return map;
  }();
  return modes;
}

Status CheckInitialSlots(const std::string& name, const uint64_t& count) {
  return CheckInRange<uint64_t>(kStripedHashMemTableName, name, count,
                                kMinInitialSlots, kMaxInitialSlots);
}

Status CheckLoadFactor(const std::string& name, const double& factor) {
  if (factor >= kMinLoadFactor && factor <= kMaxLoadFactor) {
    return Status::OK();
  }
  char range[64];
  snprintf(range, sizeof(range), " must be in [%g, %g], got %g", kMinLoadFactor,
           kMaxLoadFactor, factor);
  return Status::InvalidArgument(std::string(kStripedHashMemTableName) + ": " +
                                 name + range);
}

Status CheckEntrySlabSize(const std::string& name, const uint64_t& bytes) {
  if (bytes == 0 || (bytes >= kMinEntrySlab && bytes <= kMaxEntrySlab)) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      std::string(kStripedHashMemTableName) + ": " + name +
      " must be 0 or in [" + std::to_string(kMinEntrySlab) + ", " +
      std::to_string(kMaxEntrySlab) + "], got " + std::to_string(bytes));
}

// Lookups hash key bytes: keys that compare equal must have equal bytes.
Status CheckMemTableComparator(const Comparator* comparator) {
  return CheckKeysCompareByBytes("striped_hash memtable", comparator);
}

Status CheckStripeMode(const std::string& name, const StatsStripeMode& mode) {
  if (static_cast<size_t>(mode) < kNumStripeModes) return Status::OK();
  std::string names;
  for (const char* mode_name : kStripeModeNames) {
    names += names.empty() ? "" : ", ";
    names += mode_name;
  }
  return Status::InvalidArgument(std::string(kStripedHashMemTableName) + ": " +
                                 name + " must be one of " + names);
}

const std::unordered_map<std::string, OptionTypeInfo> kOptionTypeInfo = {
    // Counts hash slots; the name stays, as users' OPTIONS files carry it.
    {"bucket_count",
     CheckedOption<uint64_t>(offsetof(StripedHashMemTableOptions, bucket_count),
                             OptionType::kUInt64T, CheckInitialSlots)},
    {"max_load_factor",
     CheckedOption<double>(
         offsetof(StripedHashMemTableOptions, max_load_factor),
         OptionType::kDouble, CheckLoadFactor)},
    {"stripe_mode", Checked<StatsStripeMode>(
                        OptionTypeInfo::Enum<StatsStripeMode>(
                            offsetof(StripedHashMemTableOptions, stripe_mode),
                            StripeModesByName()),
                        CheckStripeMode)},
    {"entry_slab_size",
     CheckedOption<uint64_t>(
         offsetof(StripedHashMemTableOptions, entry_slab_size),
         OptionType::kUInt64T, CheckEntrySlabSize)},
};

std::shared_ptr<StripedCounters> NewStats(StatsStripeMode mode) {
  return std::make_shared<StripedCounters>(kNumStatsCounters,
                                           ToStripeMode(mode));
}

}  // namespace

StripedHashMemTableFactory::StripedHashMemTableFactory(
    const StripedHashMemTableOptions& options)
    : options_(options), stats_(NewStats(options.stripe_mode)) {
  RegisterOptions(&options_, &kOptionTypeInfo);
}

StripedHashMemTableFactory::~StripedHashMemTableFactory() {
  if (getenv(kStatsEnvVar) != nullptr && stats_->Sum(kStatMemtables) > 0) {
    fprintf(stderr, "%s stats: %s\n", kStripedHashMemTableName,
            GetStats().ToString().c_str());
  }
}

Status StripedHashMemTableFactory::ConfigureOptions(
    const ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& options_map,
    std::unordered_map<std::string, std::string>* unused) {
  return UnknownOptionIsInvalidArgument(
      kClassName(), MemTableRepFactory::ConfigureOptions(config_options,
                                                         options_map, unused));
}

Status StripedHashMemTableFactory::PrepareOptions(
    const ConfigOptions& config_options) {
  // First the options' own checks, declared with them.
  const Status s = MemTableRepFactory::PrepareOptions(config_options);
  if (s.ok() && ToStripeMode(options_.stripe_mode) != stats_->mode()) {
    stats_ = NewStats(options_.stripe_mode);
  }
  return s;
}

Status StripedHashMemTableFactory::ValidateOptions(
    const DBOptions& db_options, const ColumnFamilyOptions& cf_options) const {
  const Status s = CheckMemTableComparator(cf_options.comparator);
  if (!s.ok()) return s;
  if (options_.entry_slab_size > cf_options.write_buffer_size / 8) {
    return Status::InvalidArgument(
        std::string(kStripedHashMemTableName) + ": entry_slab_size " +
        std::to_string(options_.entry_slab_size) +
        " is above write_buffer_size / 8 (" +
        std::to_string(cf_options.write_buffer_size / 8) +
        "): memtables would flush up to a slab early");
  }
  if (cf_options.inplace_update_support) {
    return Status::NotSupported(
        "striped_hash memtable does not support inplace_update_support (it "
        "would sort the memtable for every update)");
  }
  return MemTableRepFactory::ValidateOptions(db_options, cf_options);
}

MemTableRep* StripedHashMemTableFactory::CreateMemTableRep(
    const MemTableRep::KeyComparator& comparator, Allocator* allocator,
    const SliceTransform* prefix_extractor, Logger* logger) {
  // DB::Open refuses such a comparator (ValidateOptions), but
  // DB::CreateColumnFamily does not ask this factory: hashing keys that
  // compare equal with different bytes would answer lookups wrongly, so that
  // column family gets the skip list instead.
  const Comparator* user = UserComparatorOf(comparator);
  if (user != nullptr) {
    const Status s = CheckMemTableComparator(user);
    if (!s.ok()) {
      Warn(logger, "%s; this memtable is a skip_list instead",
           s.ToString().c_str());
      return SkipListFactory().CreateMemTableRep(comparator, allocator,
                                                 prefix_extractor, logger);
    }
  }
  return new StripedHashRep(comparator, allocator, options_, stats_);
}

StripedHashMemTableStats StripedHashMemTableFactory::GetStats() const {
  return ReadStats(*stats_);
}

std::shared_ptr<StripedHashMemTableFactory> NewStripedHashMemTableFactory(
    const StripedHashMemTableOptions& options) {
  return std::make_shared<StripedHashMemTableFactory>(options);
}

}  // namespace rocksdb_cuckoo
