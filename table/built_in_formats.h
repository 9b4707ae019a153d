// Files of RocksDB's own table formats in a column family whose table
// factory is CuckooHashTable: a DB that switched to it keeps its old files,
// and SstFileWriter writes BlockBasedTable unless told otherwise, so such
// files get ingested. RocksDB's readers serve them, with default options,
// until compactions rewrite them in this format.
#pragma once

#include <cstdint>

#include "file/random_access_file_reader.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"

namespace rocksdb_cuckoo {

// The file's magic number: its last 8 bytes.
ROCKSDB_NAMESPACE::Status ReadMagicNumber(
    ROCKSDB_NAMESPACE::RandomAccessFileReader* file,
    const ROCKSDB_NAMESPACE::ReadOptions& read_options, uint64_t file_size,
    uint64_t* magic);

enum class BuiltInFormat { kNone, kBlockBasedTable, kPlainTable, kCuckooTable };

// Which of RocksDB's formats a file ending in `magic` is (current or legacy
// magic number), if any.
BuiltInFormat BuiltInFormatOf(uint64_t magic);

// RocksDB's factory, with default options, for files ending in `magic`, or
// nullptr.
const ROCKSDB_NAMESPACE::TableFactory* BuiltInFactoryFor(uint64_t magic);

}  // namespace rocksdb_cuckoo
