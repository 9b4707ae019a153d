// The user comparator behind the KeyComparator RocksDB hands a memtable rep.
#pragma once

#include "rocksdb/comparator.h"
#include "rocksdb/memtablerep.h"

namespace rocksdb_cuckoo {

// The user comparator of `comparator` when it is RocksDB's own
// MemTable::KeyComparator (what every memtable gets); nullptr otherwise.
const ROCKSDB_NAMESPACE::Comparator* UserComparatorOf(
    const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& comparator);

}  // namespace rocksdb_cuckoo
