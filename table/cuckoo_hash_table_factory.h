// The TableFactory behind the id "CuckooHashTable": typed, registered options
// (parsing, printing, OPTIONS files and validation come from RocksDB's
// Configurable) and the entry points that create builders and readers.
#pragma once

#include <string>

#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "table/table_factory_compat.h"
#include "util/option_checks.h"

namespace rocksdb_cuckoo {

class CuckooHashTableFactory
    : public RefusesUnknownOptions<
          CopyableTableFactory<CuckooHashTableFactory>> {
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

  // The options' own checks (declared with them) and the comparator's.
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override;

  std::string GetPrintableOptions() const override;

  const CuckooHashTableOptions& options() const { return options_; }

 private:
  CuckooHashTableOptions options_;
};

}  // namespace rocksdb_cuckoo
