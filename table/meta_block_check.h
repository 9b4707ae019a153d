// Structural checks of the RocksDB blocks that end a CuckooHashTable file
// (the properties block and the metaindex block), done before RocksDB's own
// parser reads them. A file written with checksum=kNoChecksum, or a crafted
// one, can carry any bytes there, and RocksDB's block reader asserts (and so
// aborts the process) on malformed blocks instead of returning a Status.
#pragma once

#include <cstdint>
#include <functional>

#include "rocksdb/slice.h"

namespace rocksdb_cuckoo {

// One entry of a block: its whole key, and where its value lies in the block.
struct BlockEntry {
  const std::string& key;
  uint64_t value_offset;
  uint32_t value_size;
};

// Walks every entry of a block written by RocksDB's BlockBuilder (entries
// with shared key prefixes, then the restart array and its count, no hash
// index), checking every bound RocksDB's reader assumes: at least three
// bytes at each entry start, shared prefixes no longer than the previous
// key, each restart point an entry boundary with no shared prefix, the
// entries ending exactly at the restart array. Calls `visit` for each entry
// (return false to stop early). Returns false if the block is malformed.
bool WalkMetaBlock(const ROCKSDB_NAMESPACE::Slice& block,
                   const std::function<bool(const BlockEntry&)>& visit);

}  // namespace rocksdb_cuckoo
