#include "table/cuckoo_hash_table_factory.h"

#include <cstddef>
#include <unordered_map>

#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/utilities/options_type.h"
#include "table/cuckoo_hash_table_builder.h"
#include "table/cuckoo_hash_table_reader.h"
#include "util/checksum.h"
#include "util/option_status.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

constexpr uint32_t kMaxSearchDepth = 100000;

// Names follow BlockBasedTableOptions::checksum so users type what they know.
const std::unordered_map<std::string, ChecksumType> kChecksumNames = {
    {"kNoChecksum", kNoChecksum},
    {"kCRC32c", kCRC32c},
    {"kXXH3", kXXH3},
};

// Range-checked parsers: a bad value is refused when the options string is
// parsed (naming the option), not later at DB open.
Status ParseRatio(const ConfigOptions&, const std::string& name,
                  const std::string& value, void* addr) {
  char* end = nullptr;
  const double ratio = strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(ratio > 0.0 && ratio < 1.0)) {
    return Status::InvalidArgument("CuckooHashTable: " + name +
                                   " must be a number in (0, 1), got '" +
                                   value + "'");
  }
  *static_cast<double*>(addr) = ratio;
  return Status::OK();
}

Status ParseSearchDepth(const ConfigOptions&, const std::string& name,
                        const std::string& value, void* addr) {
  char* end = nullptr;
  const unsigned long long depth = strtoull(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || *end != '\0' || depth == 0 ||
      depth > kMaxSearchDepth) {
    return Status::InvalidArgument(
        "CuckooHashTable: " + name + " must be an integer in [1, " +
        std::to_string(kMaxSearchDepth) + "], got '" + value + "'");
  }
  *static_cast<uint32_t*>(addr) = static_cast<uint32_t>(depth);
  return Status::OK();
}

const std::unordered_map<std::string, OptionTypeInfo> kOptionTypeInfo = {
    {"hash_table_ratio",
     {offsetof(CuckooHashTableOptions, hash_table_ratio), OptionType::kDouble,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone, ParseRatio}},
    {"identity_as_first_hash",
     {offsetof(CuckooHashTableOptions, identity_as_first_hash),
      OptionType::kBoolean, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"slot_ordered",
     {offsetof(CuckooHashTableOptions, slot_ordered), OptionType::kBoolean,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"max_search_depth",
     {offsetof(CuckooHashTableOptions, max_search_depth), OptionType::kUInt32T,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone,
      ParseSearchDepth}},
    {"checksum",
     OptionTypeInfo::Enum<ChecksumType>(
         offsetof(CuckooHashTableOptions, checksum), &kChecksumNames)},
};

}  // namespace

Status CheckOptions(const CuckooHashTableOptions& options) {
  if (!(options.hash_table_ratio > 0.0 && options.hash_table_ratio < 1.0)) {
    return Status::InvalidArgument(
        "CuckooHashTable: hash_table_ratio must be in (0, 1), got " +
        std::to_string(options.hash_table_ratio));
  }
  if (options.max_search_depth == 0 ||
      options.max_search_depth > kMaxSearchDepth) {
    return Status::InvalidArgument(
        "CuckooHashTable: max_search_depth must be in [1, " +
        std::to_string(kMaxSearchDepth) + "], got " +
        std::to_string(options.max_search_depth));
  }
  if (!IsSupportedChecksum(options.checksum)) {
    return Status::InvalidArgument(
        "CuckooHashTable: checksum must be kNoChecksum, kCRC32c or kXXH3");
  }
  return Status::OK();
}

Status CheckComparator(const Comparator* user_comparator) {
  if (user_comparator->timestamp_size() > 0) {
    return Status::NotSupported(
        "CuckooHashTable does not support user-defined timestamps");
  }
  if (user_comparator->CanKeysWithDifferentByteContentsBeEqual()) {
    return Status::NotSupported(
        std::string("CuckooHashTable hashes key bytes, so it needs a "
                    "comparator under which equal keys have equal bytes; ") +
        user_comparator->Name() + " does not promise that");
  }
  return Status::OK();
}

CuckooHashTableFactory::CuckooHashTableFactory(
    const CuckooHashTableOptions& options)
    : options_(options) {
  RegisterOptions(&options_, &kOptionTypeInfo);
}

Status CuckooHashTableFactory::PrepareOptions(
    const ConfigOptions& config_options) {
  Status s = CheckOptions(options_);
  return s.ok() ? TableFactory::PrepareOptions(config_options) : s;
}

Status CuckooHashTableFactory::ConfigureOptions(
    const ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& options_map,
    std::unordered_map<std::string, std::string>* unused) {
  return UnknownOptionIsInvalidArgument(
      kClassName(),
      TableFactory::ConfigureOptions(config_options, options_map, unused));
}

Status CuckooHashTableFactory::ValidateOptions(
    const DBOptions& db_options, const ColumnFamilyOptions& cf_options) const {
  Status s = CheckOptions(options_);
  if (s.ok()) s = CheckComparator(cf_options.comparator);
  return s.ok() ? TableFactory::ValidateOptions(db_options, cf_options) : s;
}

Status CuckooHashTableFactory::NewTableReader(
    const ReadOptions& read_options, const TableReaderOptions& reader_options,
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    std::unique_ptr<TableReader>* table,
    bool /*prefetch_index_and_filter_in_cache*/) const {
  return CuckooHashTableReader::Open(read_options, reader_options,
                                     std::move(file), file_size, table);
}

TableBuilder* CuckooHashTableFactory::NewTableBuilder(
    const TableBuilderOptions& builder_options,
    WritableFileWriter* file) const {
  return new CuckooHashTableBuilder(builder_options, options_, file);
}

std::string CuckooHashTableFactory::GetPrintableOptions() const {
  char buf[256];
  snprintf(buf, sizeof(buf),
           "  hash_table_ratio: %g\n  identity_as_first_hash: %d\n"
           "  max_search_depth: %u\n  slot_ordered: %d\n  checksum: %s\n",
           options_.hash_table_ratio, options_.identity_as_first_hash,
           options_.max_search_depth, options_.slot_ordered,
           ChecksumName(options_.checksum));
  return buf;
}

std::shared_ptr<TableFactory> NewCuckooHashTableFactory(
    const CuckooHashTableOptions& options) {
  return std::make_shared<CuckooHashTableFactory>(options);
}

}  // namespace rocksdb_cuckoo
