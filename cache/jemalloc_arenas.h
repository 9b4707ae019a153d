// Dedicated jemalloc arenas for JemallocArenaAllocator: creation, the
// MADV_DONTDUMP extent hooks, reuse, and per-arena statistics.
//
// jemalloc may destroy an arena only once nothing is left in it, and a cached
// block can outlive the allocator that made it (RocksDB frees it through a
// raw pointer), so an allocator's arenas are never destroyed: when it goes,
// they are purged and kept for the next allocator with the same hooks. The
// number of arenas a process creates is then bounded by the most allocators
// alive at one time.
#pragma once

#include <cstdint>
#include <vector>

#include "cache/jemalloc_arena_allocator.h"
#include "cache/jemalloc_runtime.h"
#include "rocksdb/status.h"

namespace rocksdb_cuckoo {

// An arena of our own; with `dontdump`, every extent it maps is marked
// MADV_DONTDUMP, so its memory stays out of core dumps.
ROCKSDB_NAMESPACE::Status AcquireArena(const JemallocApi& je, bool dontdump,
                                       unsigned* arena);

// Returns the arena's unused pages to the system and keeps it for reuse.
void ReleaseArena(const JemallocApi& je, unsigned arena, bool dontdump);

// Sums the statistics of `arenas` as of the last RefreshJemallocStats.
ROCKSDB_NAMESPACE::Status ReadArenaStats(const JemallocApi& je,
                                         const std::vector<unsigned>& arenas,
                                         JemallocArenaStats* stats);

}  // namespace rocksdb_cuckoo
