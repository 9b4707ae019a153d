// What a CuckooHashTable requires of its options and of the column family's
// comparator. The factory declares each option with its check (so options
// strings, OPTIONS files and DB open refuse a bad value, naming it); the
// builder checks again, since options set in C++ reach it unparsed.
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/comparator.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"

namespace rocksdb_cuckoo {

// Each: OK, or InvalidArgument naming the option (`name`) and its range.
ROCKSDB_NAMESPACE::Status CheckHashTableRatio(const std::string& name,
                                              const double& ratio);
ROCKSDB_NAMESPACE::Status CheckMaxSearchDepth(const std::string& name,
                                              const uint32_t& depth);
ROCKSDB_NAMESPACE::Status CheckChecksumType(
    const std::string& name, const ROCKSDB_NAMESPACE::ChecksumType& type);

// All of the above: InvalidArgument naming the first option out of range.
ROCKSDB_NAMESPACE::Status CheckOptions(const CuckooHashTableOptions& options);

// Lookups hash key bytes: keys that compare equal must have equal bytes, and
// user timestamps are not stored.
ROCKSDB_NAMESPACE::Status CheckComparator(
    const ROCKSDB_NAMESPACE::Comparator* user_comparator);

}  // namespace rocksdb_cuckoo
