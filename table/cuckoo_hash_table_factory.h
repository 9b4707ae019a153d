// The TableFactory behind the id "CuckooHashTable": typed, registered options
// (parsing, printing, OPTIONS files and validation come from RocksDB's
// Configurable) and the entry points that create builders and readers.
#pragma once

#include <string>
#include <unordered_map>

#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "table/table_factory_compat.h"

namespace rocksdb_cuckoo {

class CuckooHashTableFactory
    : public CopyableTableFactory<CuckooHashTableFactory> {
 public:
  explicit CuckooHashTableFactory(
      const CuckooHashTableOptions& options = CuckooHashTableOptions());

  static const char* kClassName() { return kCuckooHashTableName; }
  const char* Name() const override { return kClassName(); }

  using ROCKSDB_NAMESPACE::TableFactory::NewTableReader;
  ROCKSDB_NAMESPACE::Status NewTableReader(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const ROCKSDB_NAMESPACE::TableReaderOptions& reader_options,
      std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader>&& file,
      uint64_t file_size,
      std::unique_ptr<ROCKSDB_NAMESPACE::TableReader>* table,
      bool prefetch_index_and_filter_in_cache) const override;

  ROCKSDB_NAMESPACE::TableBuilder* NewTableBuilder(
      const ROCKSDB_NAMESPACE::TableBuilderOptions& builder_options,
      ROCKSDB_NAMESPACE::WritableFileWriter* file) const override;

  bool IsDeleteRangeSupported() const override { return true; }

  // Range checks, run by CreateFromString and at DB open.
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override;

  std::string GetPrintableOptions() const override;

  const CuckooHashTableOptions& options() const { return options_; }

 protected:
  // RocksDB reports an unknown option name as NotFound; to a user it is an
  // invalid argument, so say that (the message still names the option).
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& options_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  CuckooHashTableOptions options_;
};

// InvalidArgument naming the first option out of range, else OK.
ROCKSDB_NAMESPACE::Status CheckOptions(const CuckooHashTableOptions& options);

// The user comparator must treat keys as equal only when their bytes are
// equal, since lookups hash the bytes; and user timestamps are not stored.
ROCKSDB_NAMESPACE::Status CheckComparator(
    const ROCKSDB_NAMESPACE::Comparator* user_comparator);

}  // namespace rocksdb_cuckoo
