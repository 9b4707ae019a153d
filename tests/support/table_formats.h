// The table formats a DB test can compare: ours, read through mmap or
// loaded, and RocksDB's BlockBasedTable as the reference for what RocksDB
// itself does with the same operations.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"

namespace rocksdb_cuckoo::testing {

enum class TableFormat { kCuckooMmap, kCuckooPread, kBlockBased };

inline const auto kTableFormats =
    ::testing::Values(TableFormat::kBlockBased, TableFormat::kCuckooMmap,
                      TableFormat::kCuckooPread);

// For INSTANTIATE_TEST_SUITE_P's name generator.
inline std::string TableFormatName(
    const ::testing::TestParamInfo<TableFormat>& info) {
  switch (info.param) {
    case TableFormat::kCuckooMmap:
      return "CuckooMmap";
    case TableFormat::kCuckooPread:
      return "CuckooPread";
    case TableFormat::kBlockBased:
      return "BlockBased";
  }
  return "";
}

// Our formats come with the striped_hash memtable, as users run them.
inline void UseTableFormat(TableFormat format,
                           ROCKSDB_NAMESPACE::Options* options) {
  if (format == TableFormat::kBlockBased) {
    options->table_factory.reset(
        ROCKSDB_NAMESPACE::NewBlockBasedTableFactory());
    return;
  }
  options->allow_mmap_reads = format == TableFormat::kCuckooMmap;
  options->memtable_factory = NewStripedHashMemTableFactory();
  options->table_factory = NewCuckooHashTableFactory();
}

}  // namespace rocksdb_cuckoo::testing
