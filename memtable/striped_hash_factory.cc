// StripedHashMemTableFactory: typed, registered options (parsing, printing,
// OPTIONS files and validation come from RocksDB's Configurable), the
// statistics shared by every memtable it makes, and the memtables.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "memtable/striped_hash_memtable.h"
#include "memtable/striped_hash_rep.h"
#include "memtable/striped_hash_stats.h"
#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/utilities/options_type.h"
#include "util/option_status.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

constexpr uint64_t kMinBucketCount = 16;
constexpr uint64_t kMaxBucketCount = uint64_t{1} << 30;
constexpr double kMinLoadFactor = 0.25;
constexpr double kMaxLoadFactor = 0.9;

// Set in the environment of a process (db_bench, say) to have each factory
// that made a memtable print its summed counters to stderr when destroyed.
constexpr const char* kStatsEnvVar = "ROCKSDB_CUCKOO_MEMTABLE_STATS";

const std::unordered_map<std::string, StatsStripeMode> kStripeModeNames = {
    {"llc", StatsStripeMode::kLlc},
    {"core", StatsStripeMode::kCore},
    {"none", StatsStripeMode::kNone},
    {"auto", StatsStripeMode::kAuto},
};

Status BucketCountError(const std::string& name, const std::string& value) {
  return Status::InvalidArgument(
      std::string(kStripedHashMemTableName) + ": " + name +
      " must be an integer in [" + std::to_string(kMinBucketCount) + ", " +
      std::to_string(kMaxBucketCount) + "], got '" + value + "'");
}

Status LoadFactorError(const std::string& name, const std::string& value) {
  char range[64];
  snprintf(range, sizeof(range), "[%g, %g]", kMinLoadFactor, kMaxLoadFactor);
  return Status::InvalidArgument(std::string(kStripedHashMemTableName) + ": " +
                                 name + " must be a number in " + range +
                                 ", got '" + value + "'");
}

// Range-checked parsers: a bad value is refused when the options string is
// parsed (naming the option), not later at DB open.
Status ParseBucketCount(const ConfigOptions&, const std::string& name,
                        const std::string& value, void* addr) {
  char* end = nullptr;
  const unsigned long long count = strtoull(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || *end != '\0' ||
      count < kMinBucketCount || count > kMaxBucketCount) {
    return BucketCountError(name, value);
  }
  *static_cast<uint64_t*>(addr) = count;
  return Status::OK();
}

Status ParseLoadFactor(const ConfigOptions&, const std::string& name,
                       const std::string& value, void* addr) {
  char* end = nullptr;
  const double factor = strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' ||
      !(factor >= kMinLoadFactor && factor <= kMaxLoadFactor)) {
    return LoadFactorError(name, value);
  }
  *static_cast<double*>(addr) = factor;
  return Status::OK();
}

const std::unordered_map<std::string, OptionTypeInfo> kOptionTypeInfo = {
    {"bucket_count",
     {offsetof(StripedHashMemTableOptions, bucket_count), OptionType::kUInt64T,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone,
      ParseBucketCount}},
    {"max_load_factor",
     {offsetof(StripedHashMemTableOptions, max_load_factor),
      OptionType::kDouble, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone, ParseLoadFactor}},
    {"stripe_mode",
     OptionTypeInfo::Enum<StatsStripeMode>(
         offsetof(StripedHashMemTableOptions, stripe_mode), &kStripeModeNames)},
};

Status CheckOptions(const StripedHashMemTableOptions& options) {
  if (options.bucket_count < kMinBucketCount ||
      options.bucket_count > kMaxBucketCount) {
    return BucketCountError("bucket_count",
                            std::to_string(options.bucket_count));
  }
  if (!(options.max_load_factor >= kMinLoadFactor &&
        options.max_load_factor <= kMaxLoadFactor)) {
    return LoadFactorError("max_load_factor",
                           std::to_string(options.max_load_factor));
  }
  if (kStripeModeNames.size() <= static_cast<size_t>(options.stripe_mode)) {
    return Status::InvalidArgument(
        std::string(kStripedHashMemTableName) +
        ": stripe_mode must be auto, llc, core or none");
  }
  return Status::OK();
}

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
      kStripedHashMemTableName, MemTableRepFactory::ConfigureOptions(
                                    config_options, options_map, unused));
}

Status StripedHashMemTableFactory::PrepareOptions(
    const ConfigOptions& config_options) {
  Status s = CheckOptions(options_);
  if (!s.ok()) return s;
  if (ToStripeMode(options_.stripe_mode) != stats_->mode()) {
    stats_ = NewStats(options_.stripe_mode);
  }
  return MemTableRepFactory::PrepareOptions(config_options);
}

Status StripedHashMemTableFactory::ValidateOptions(
    const DBOptions& db_options, const ColumnFamilyOptions& cf_options) const {
  Status s = CheckOptions(options_);
  if (!s.ok()) return s;
  const Comparator* comparator = cf_options.comparator;
  if (comparator->timestamp_size() > 0) {
    return Status::NotSupported(
        "striped_hash memtable does not support user-defined timestamps");
  }
  if (comparator->CanKeysWithDifferentByteContentsBeEqual()) {
    return Status::NotSupported(
        std::string("striped_hash memtable hashes key bytes, so it needs a "
                    "comparator under which equal keys have equal bytes; ") +
        comparator->Name() + " does not promise that");
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
    const SliceTransform* /*prefix_extractor*/, Logger* /*logger*/) {
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
