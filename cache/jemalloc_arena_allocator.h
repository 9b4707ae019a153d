// The MemoryAllocator behind the id "JemallocArenaAllocator": block cache
// memory from jemalloc arenas of its own, apart from the rest of the heap.
//
// By name (after register_rocksdb_cuckoo or LD_PRELOAD of the shared
// library), in a process that runs on jemalloc:
//   ConfigOptions cfg;
//   cfg.ignore_unsupported_options = false;  // else "unavailable" is OK+null
//   std::shared_ptr<MemoryAllocator> allocator;
//   MemoryAllocator::CreateFromString(
//       cfg, "id=JemallocArenaAllocator;num_arenas=1;dontdump=true",
//       &allocator);
//   LRUCacheOptions cache_options;
//   cache_options.memory_allocator = allocator;
// The library never links jemalloc (it must stay dlopen-able anywhere): in a
// process not started on jemalloc, creating the allocator returns
// Status::NotSupported saying so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rocksdb/memory_allocator.h"
#include "util/option_checks.h"

namespace rocksdb_cuckoo {

struct JemallocApi;

struct JemallocArenaAllocatorOptions {
  static const char* kName() { return "JemallocArenaAllocatorOptions"; }

  // Mark the arenas' memory MADV_DONTDUMP, keeping cached blocks out of core
  // dumps (installs extent hooks on the arenas; off: jemalloc's own hooks).
  bool dontdump = false;
  // Arenas to spread threads over, in [1, 64]. Allocations bypass jemalloc's
  // thread caches (which would mix arenas), so several busy threads contend
  // on an arena's locks; more arenas trade that for more retained memory.
  uint32_t num_arenas = 1;
};

// Sums over the allocator's arenas, in bytes, read from jemalloc.
struct JemallocArenaStats {
  uint64_t allocated = 0;  // held by live allocations
  uint64_t active = 0;     // in pages that hold live allocations
  uint64_t mapped = 0;     // mapped from the system
  uint64_t resident = 0;   // physically resident, arena metadata included
  uint64_t allocations = 0;
  uint64_t deallocations = 0;
};

class JemallocArenaAllocator
    : public RefusesUnknownOptions<ROCKSDB_NAMESPACE::MemoryAllocator> {
 public:
  explicit JemallocArenaAllocator(const JemallocArenaAllocatorOptions& options =
                                      JemallocArenaAllocatorOptions());
  ~JemallocArenaAllocator() override;

  static const char* kClassName() { return "JemallocArenaAllocator"; }
  const char* Name() const override { return kClassName(); }

  // Finds jemalloc and takes the arenas: NotSupported when the process does
  // not run on jemalloc, InvalidArgument for an option out of range.
  // CreateFromString and NewJemallocArenaAllocator run it; until it succeeds
  // the allocator is plain malloc/free, so run it before sharing the object.
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;

  void* Allocate(size_t size) override;
  void Deallocate(void* p) override;
  size_t UsableSize(void* p, size_t allocation_size) const override;

  // jemalloc's arena indices, one per num_arenas (empty before Prepare).
  const std::vector<unsigned>& arenas() const { return arenas_; }
  // Current statistics of those arenas.
  ROCKSDB_NAMESPACE::Status GetStats(JemallocArenaStats* stats) const;

  const JemallocArenaAllocatorOptions& options() const { return options_; }

 private:
  unsigned ArenaForThisThread() const;

  JemallocArenaAllocatorOptions options_;
  // Set by a successful PrepareOptions; the jemalloc entry points.
  const JemallocApi* je_ = nullptr;
  std::vector<unsigned> arenas_;
  bool arenas_dontdump_ = false;  // as the arenas were made
};

// A prepared allocator, or NotSupported / InvalidArgument as PrepareOptions.
ROCKSDB_NAMESPACE::Status NewJemallocArenaAllocator(
    const JemallocArenaAllocatorOptions& options,
    std::shared_ptr<ROCKSDB_NAMESPACE::MemoryAllocator>* allocator);

}  // namespace rocksdb_cuckoo
