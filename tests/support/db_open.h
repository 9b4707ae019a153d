// Opening a DB into a raw pointer, as the tests and benchmarks hold it, on
// every supported RocksDB: 11.x opens only into a std::unique_ptr, 7.8 only
// into a raw pointer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/version.h"

namespace rocksdb_cuckoo {

namespace db_open_internal {
// Runs `open` with the pointer type this RocksDB takes and hands the DB
// over as a raw pointer (null on failure, as DB::Open leaves it).
template <typename OpenFn>
ROCKSDB_NAMESPACE::Status Opened(OpenFn open, ROCKSDB_NAMESPACE::DB** db) {
#if ROCKSDB_MAJOR >= 11
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> owned;
  ROCKSDB_NAMESPACE::Status s = open(&owned);
  *db = owned.release();
  return s;
#else
  return open(db);
#endif
}
}  // namespace db_open_internal

inline ROCKSDB_NAMESPACE::Status OpenDB(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& name,
    ROCKSDB_NAMESPACE::DB** db) {
  return db_open_internal::Opened(
      [&](auto* out) {
        return ROCKSDB_NAMESPACE::DB::Open(options, name, out);
      },
      db);
}

inline ROCKSDB_NAMESPACE::Status OpenDB(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& name,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    ROCKSDB_NAMESPACE::DB** db) {
  return db_open_internal::Opened(
      [&](auto* out) {
        return ROCKSDB_NAMESPACE::DB::Open(options, name, families, handles,
                                           out);
      },
      db);
}

inline ROCKSDB_NAMESPACE::Status OpenDBForReadOnly(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& name,
    ROCKSDB_NAMESPACE::DB** db) {
  return db_open_internal::Opened(
      [&](auto* out) {
        return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, name, out);
      },
      db);
}

inline ROCKSDB_NAMESPACE::Status OpenDBAsSecondary(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& name,
    const std::string& secondary_path, ROCKSDB_NAMESPACE::DB** db) {
  return db_open_internal::Opened(
      [&](auto* out) {
        return ROCKSDB_NAMESPACE::DB::OpenAsSecondary(options, name,
                                                      secondary_path, out);
      },
      db);
}

}  // namespace rocksdb_cuckoo
