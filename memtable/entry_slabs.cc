#include "memtable/entry_slabs.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "util/cpu_topology.h"

namespace rocksdb_cuckoo {

namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

// Advises huge pages for the 2 MiB-aligned pages inside [begin, begin+size),
// which belong to the caller alone. A hint: kernels without transparent
// huge pages, or with them off, ignore it or refuse it, and the memory works
// the same.
void AdviseHugePages(char* begin, size_t size) {
  const uintptr_t first =
      (reinterpret_cast<uintptr_t>(begin) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last =
      (reinterpret_cast<uintptr_t>(begin) + size) & ~(kHugePage - 1);
#ifdef MADV_HUGEPAGE
  if (last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#endif
}

}  // namespace

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
