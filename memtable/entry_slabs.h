// Where the striped_hash memtable puts its entries (option entry_slab_size):
// either straight from the memtable's arena, or in slabs it takes from that
// arena, whose 2 MiB-aligned middle is advised to use transparent huge
// pages. Either way RocksDB owns, counts and frees the memory (write buffer
// manager included).
//
// Why slabs: a Get is two dependent cache misses, the index slot and then
// the entry. The slot array is on huge pages already; the entries, on the
// arena's 4 KiB pages, add a TLB miss (a page walk) to the second one.
// Why not always: RocksDB's arena hands out memory in blocks of at most
// 1 MiB, and the slab being filled counts as allocated before it is used,
// so a memtable flushes up to one slab early; large write buffers make that
// small.
//
// Concurrent inserts allocate at once: each CPU fills a chunk of its own,
// carved from the current slab under a mutex once per kChunkBytes. Entries
// over kMaxChunkEntry bytes come from the arena directly.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

#include "memory/allocator.h"

namespace rocksdb_cuckoo {

class EntrySlabs {
 public:
  static constexpr size_t kChunkBytes = 64u << 10;
  static constexpr size_t kMaxChunkEntry = kChunkBytes / 4;

  // slab_bytes 0: every entry from the arena; else at least 4 MiB.
  EntrySlabs(ROCKSDB_NAMESPACE::Allocator* arena, size_t slab_bytes);

  // `bytes` of memory aligned to 8, for the life of the arena. Thread-safe.
  char* Allocate(size_t bytes);
  bool uses_slabs() const { return shards_ != nullptr; }

 private:
  struct alignas(64) Shard {
    std::mutex mu;
    char* next = nullptr;  // guarded by mu
    size_t left = 0;       // guarded by mu
  };
  // A new chunk for `shard`, carved from the current slab. Lock order: a
  // shard's mu, then mu_.
  // REQUIRES: shard->mu held, mu_ not held.
  void Refill(Shard* shard);

  ROCKSDB_NAMESPACE::Allocator* const arena_;
  const size_t slab_bytes_;
  size_t num_shards_ = 0;
  std::unique_ptr<Shard[]> shards_;
  std::mutex mu_;
  char* slab_next_ = nullptr;  // guarded by mu_
  size_t slab_left_ = 0;       // guarded by mu_
};

}  // namespace rocksdb_cuckoo
