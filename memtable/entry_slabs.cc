#include "memtable/entry_slabs.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "util/cpu_topology.h"
#include "util/huge_pages.h"

namespace rocksdb_cuckoo {

EntrySlabs::EntrySlabs(ROCKSDB_NAMESPACE::Allocator* arena, size_t slab_bytes)
    : arena_(arena), slab_bytes_(slab_bytes) {
  if (slab_bytes_ == 0) return;
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);
  num_shards_ = static_cast<size_t>(std::clamp(cpus, 1L, 1024L));
  shards_ = std::make_unique<Shard[]>(num_shards_);
}

char* EntrySlabs::Allocate(size_t bytes) {
  bytes = (bytes + 7) & ~size_t{7};
  if (shards_ == nullptr || bytes > kMaxChunkEntry) {
    return arena_->AllocateAligned(bytes);
  }
  Shard& shard = shards_[static_cast<size_t>(CurrentCpu()) % num_shards_];
  std::lock_guard<std::mutex> lock(shard.mu);
  // What is left of the old chunk (less than one entry) is not reused.
  if (shard.left < bytes) Refill(&shard);
  char* memory = shard.next;
  shard.next += bytes;
  shard.left -= bytes;
  return memory;
}

void EntrySlabs::Refill(Shard* shard) {
  std::lock_guard<std::mutex> lock(mu_);
  // The end of a slab is handed out as a shorter chunk while it can hold
  // any entry that comes here.
  if (slab_left_ < kMaxChunkEntry) {
    slab_next_ = arena_->AllocateAligned(slab_bytes_);
    slab_left_ = slab_bytes_;
    AdviseHugePages(slab_next_, slab_bytes_);
  }
  const size_t chunk = std::min(kChunkBytes, slab_left_);
  shard->next = slab_next_;
  shard->left = chunk;
  slab_next_ += chunk;
  slab_left_ -= chunk;
}

}  // namespace rocksdb_cuckoo
