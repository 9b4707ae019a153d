#include "table/cuckoo_hash_table_factory.h"

#include <cstddef>
#include <unordered_map>

#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/utilities/options_type.h"
#include "table/built_in_formats.h"
#include "table/cuckoo_hash_table_builder.h"
#include "table/cuckoo_hash_table_checks.h"
#include "table/cuckoo_hash_table_reader.h"
#include "util/checksum.h"
#include "util/option_checks.h"
#include "util/plugin_usage.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

// Names follow BlockBasedTableOptions::checksum so users type what they know.
const std::unordered_map<std::string, ChecksumType> kChecksumNames = {
    {"kNoChecksum", kNoChecksum},
    {"kCRC32c", kCRC32c},
    {"kXXH3", kXXH3},
};

const std::unordered_map<std::string, OptionTypeInfo> kOptionTypeInfo = {
    {"hash_table_ratio",
     CheckedOption<double>(offsetof(CuckooHashTableOptions, hash_table_ratio),
                           OptionType::kDouble, CheckHashTableRatio)},
    {"identity_as_first_hash",
     {offsetof(CuckooHashTableOptions, identity_as_first_hash),
      OptionType::kBoolean}},
    {"slot_ordered",
     {offsetof(CuckooHashTableOptions, slot_ordered), OptionType::kBoolean}},
    {"max_search_depth",
     CheckedOption<uint32_t>(offsetof(CuckooHashTableOptions, max_search_depth),
                             OptionType::kUInt32T, CheckMaxSearchDepth)},
    {"load_in_background",
     {offsetof(CuckooHashTableOptions, load_in_background),
      OptionType::kBoolean}},
    {"checksum",
     Checked<ChecksumType>(
         OptionTypeInfo::Enum<ChecksumType>(
             offsetof(CuckooHashTableOptions, checksum), &kChecksumNames),
         CheckChecksumType)},
};

}  // namespace

CuckooHashTableFactory::CuckooHashTableFactory(
    const CuckooHashTableOptions& options)
    : options_(options) {
  RegisterOptions(&options_, &kOptionTypeInfo);
}

Status CuckooHashTableFactory::ValidateOptions(
    const DBOptions& db_options, const ColumnFamilyOptions& cf_options) const {
  const Status s = CheckComparator(cf_options.comparator);
  return s.ok() ? TableFactory::ValidateOptions(db_options, cf_options) : s;
}

Status CuckooHashTableFactory::NewTableReader(
    const ReadOptions& read_options, const TableReaderOptions& reader_options,
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    std::unique_ptr<TableReader>* table,
    bool prefetch_index_and_filter_in_cache) const {
  uint64_t magic = 0;
  const Status s = ReadMagicNumber(file.get(), read_options, file_size, &magic);
  if (!s.ok()) return s;
  if (magic != kCuckooHashTableMagicNumber) {
    const TableFactory* built_in = BuiltInFactoryFor(magic);
    if (built_in != nullptr) {
      return built_in->NewTableReader(read_options, reader_options,
                                      std::move(file), file_size, table,
                                      prefetch_index_and_filter_in_cache);
    }
  }
  const Status opened = CuckooHashTableReader::Open(
      read_options, reader_options, std::move(file), file_size,
      options_.load_in_background, table);
  if (opened.ok()) CountPluginUse(PluginUse::kTableOpened);
  return opened;
}

TableBuilder* CuckooHashTableFactory::NewTableBuilder(
    const TableBuilderOptions& builder_options,
    WritableFileWriter* file) const {
  CountPluginUse(PluginUse::kTableBuilt);
  return new CuckooHashTableBuilder(builder_options, options_, file);
}

std::string CuckooHashTableFactory::GetPrintableOptions() const {
  char buf[256];
  snprintf(buf, sizeof(buf),
           "  hash_table_ratio: %g\n  identity_as_first_hash: %d\n"
           "  max_search_depth: %u\n  slot_ordered: %d\n  checksum: %s\n"
           "  load_in_background: %d\n",
           options_.hash_table_ratio, options_.identity_as_first_hash,
           options_.max_search_depth, options_.slot_ordered,
           ChecksumName(options_.checksum), options_.load_in_background);
  return buf;
}

std::shared_ptr<TableFactory> NewCuckooHashTableFactory(
    const CuckooHashTableOptions& options) {
  return std::make_shared<CuckooHashTableFactory>(options);
}

}  // namespace rocksdb_cuckoo
