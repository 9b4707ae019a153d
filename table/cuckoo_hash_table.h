// Public interface of the CuckooHashTable SST format.
//
// Load it by name (after register_rocksdb_cuckoo or LD_PRELOAD of the shared
// library):  table_factory={id=CuckooHashTable;hash_table_ratio=0.9}
// or build one in C++ with NewCuckooHashTableFactory().
#pragma once

#include <cstdint>
#include <memory>

#include "rocksdb/table.h"

namespace rocksdb_cuckoo {

struct CuckooHashTableOptions {
  static const char* kName() { return "CuckooHashTableOptions"; }

  // Fraction of hash slots that hold a key, in (0, 1). Lower wastes space but
  // makes placement easier; placement never fails either way.
  double hash_table_ratio = 0.9;
  // Use the user key's first 8 bytes, read big-endian (the order in which
  // integer keys encoded for RocksDB sort), as the first bucket choice.
  // Sequential integer keys then land in sequential buckets.
  bool identity_as_first_hash = false;
  // Longest eviction chain tried while placing one key before it goes to the
  // overflow stash (or the table grows).
  uint32_t max_search_depth = 128;
  // When every entry of a file has the same size and its own user key (the
  // usual bottommost file), store entries in hash-slot order: a lookup then
  // loads its bucket and the entries it may point to in one round trip to
  // memory instead of two. Costs (1/hash_table_ratio - 1) of the data size
  // in empty slots, and the builder holds the file's data in memory until
  // it finishes (files over 1 GiB fall back to key order).
  bool slot_ordered = true;
  // Checksum of the file: kXXH3 (default), kCRC32c or kNoChecksum. Small
  // regions are verified when the file is opened; the data, order index and
  // buckets per 64 KiB chunk, the first time a read touches the chunk
  // (reads with ReadOptions::verify_checksums=false skip the check on
  // mapped files); everything by VerifyChecksum(). With allow_mmap_reads
  // false, that first touch is also when the chunk is read from the file:
  // opening a file reads only its small regions.
  ROCKSDB_NAMESPACE::ChecksumType checksum = ROCKSDB_NAMESPACE::kXXH3;
  // With allow_mmap_reads false: once lookups (Get, MultiGet) reach a file,
  // a background thread (one per process) reads the rest of it, in file
  // order, so that later lookups do not stop to read chunks. Off: chunks
  // are read only when a read reaches them, and files never looked up in
  // are never read whole.
  bool load_in_background = true;
};

// The TableFactory id users type in options strings.
inline constexpr const char* kCuckooHashTableName = "CuckooHashTable";

std::shared_ptr<ROCKSDB_NAMESPACE::TableFactory> NewCuckooHashTableFactory(
    const CuckooHashTableOptions& options = CuckooHashTableOptions());

}  // namespace rocksdb_cuckoo
