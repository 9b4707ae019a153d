// The striped_hash memtable's statistics counters: their indices in the
// factory's StripedCounters, and how they are read into the public struct.
#pragma once

#include <cstddef>

#include "memtable/striped_hash_memtable.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

enum StatsCounter : size_t {
  kStatMemtables,
  kStatInserts,
  kStatInsertBytes,
  kStatDeletes,
  kStatMerges,
  kStatNewKeys,
  kStatDuplicates,
  kStatInsertProbes,
  kStatHits,
  kStatMisses,
  kStatLookupProbes,
  kStatTagCollisions,
  kStatResizes,
  kStatSorts,
  kNumStatsCounters,
};

StripeMode ToStripeMode(StatsStripeMode mode);

StripedHashMemTableStats ReadStats(const StripedCounters& counters);

}  // namespace rocksdb_cuckoo
