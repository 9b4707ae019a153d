#include "cache/jemalloc_arenas.h"

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Status;

namespace {

// jemalloc's extent_hooks_t (jemalloc.h, stable since 5.0): a table of nine
// functions. We replace `alloc` and pass the other eight through unchanged.
struct ExtentHooks;
using ExtentAllocFn = void* (*)(ExtentHooks* hooks, void* new_addr, size_t size,
                                size_t alignment, bool* zero, bool* commit,
                                unsigned arena);
using OpaqueFn = void (*)();
struct ExtentHooks {
  ExtentAllocFn alloc;
  OpaqueFn rest[8];  // dalloc destroy commit decommit purge_lazy
                     // purge_forced split merge
};

}  // namespace
}  // namespace rocksdb_cuckoo

#if __has_include(<jemalloc/jemalloc.h>)
#include <jemalloc/jemalloc.h>
static_assert(sizeof(rocksdb_cuckoo::ExtentHooks) == sizeof(extent_hooks_t));
static_assert(offsetof(rocksdb_cuckoo::ExtentHooks, alloc) ==
              offsetof(extent_hooks_t, alloc));
#endif

namespace rocksdb_cuckoo {
namespace {

// jemalloc's default hooks, which ours call to map memory.
std::atomic<ExtentHooks*> default_hooks{nullptr};

void* DontDumpAlloc(ExtentHooks* /*hooks*/, void* new_addr, size_t size,
                    size_t alignment, bool* zero, bool* commit,
                    unsigned arena) {
  ExtentHooks* base = default_hooks.load(std::memory_order_acquire);
  void* memory =
      base->alloc(base, new_addr, size, alignment, zero, commit, arena);
  // Best effort: should the kernel refuse, the memory is merely dumped.
  if (memory != nullptr) madvise(memory, size, MADV_DONTDUMP);
  return memory;
}

struct Registry {
  std::mutex mu;
  std::vector<unsigned> reusable[2];  // index: dontdump
  ExtentHooks dontdump_hooks{};
  bool hooks_ready = false;
};

// Never destroyed: arenas, and the hooks they point to, outlive every static.
Registry& GetRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

// Builds the DONTDUMP hooks from arena 0's (jemalloc's defaults unless the
// application installed its own). Called with the registry's mutex held.
Status PrepareDontDumpHooks(const JemallocApi& je, Registry* registry) {
  if (registry->hooks_ready) return Status::OK();
  ExtentHooks* base = nullptr;
  Status s = MallctlRead(je, "arena.0.extent_hooks", &base);
  if (!s.ok()) return s;
  if (base == nullptr || base->alloc == nullptr) {
    return Status::NotSupported("jemalloc reports no extent hooks on arena 0");
  }
  default_hooks.store(base, std::memory_order_release);
  registry->dontdump_hooks = *base;
  registry->dontdump_hooks.alloc = DontDumpAlloc;
  registry->hooks_ready = true;
  return Status::OK();
}

std::string ArenaKey(unsigned arena, const char* field) {
  return "stats.arenas." + std::to_string(arena) + "." + field;
}

}  // namespace

Status AcquireArena(const JemallocApi& je, bool dontdump, unsigned* arena) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<unsigned>& reusable = registry.reusable[dontdump ? 1 : 0];
  if (!reusable.empty()) {
    *arena = reusable.back();
    reusable.pop_back();
    return Status::OK();
  }
  ExtentHooks* hooks = nullptr;
  if (dontdump) {
    Status s = PrepareDontDumpHooks(je, &registry);
    if (!s.ok()) return s;
    hooks = &registry.dontdump_hooks;
  }
  unsigned index = 0;
  size_t size = sizeof(index);
  const int err =
      je.mallctl("arenas.create", &index, &size, dontdump ? &hooks : nullptr,
                 dontdump ? sizeof(hooks) : 0);
  if (err != 0) {
    return Status::Aborted("jemalloc could not create an arena: " +
                           std::string(strerror(err)));
  }
  *arena = index;
  return Status::OK();
}

void ReleaseArena(const JemallocApi& je, unsigned arena, bool dontdump) {
  const std::string purge = "arena." + std::to_string(arena) + ".purge";
  je.mallctl(purge.c_str(), nullptr, nullptr, nullptr, 0);
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.reusable[dontdump ? 1 : 0].push_back(arena);
}

Status ReadArenaStats(const JemallocApi& je,
                      const std::vector<unsigned>& arenas,
                      JemallocArenaStats* stats) {
  *stats = JemallocArenaStats();
  size_t page = 0;
  Status s = MallctlRead(je, "arenas.page", &page);
  for (unsigned arena : arenas) {
    size_t small = 0, large = 0, pactive = 0, mapped = 0, resident = 0;
    uint64_t small_n = 0, large_n = 0, small_d = 0, large_d = 0;
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "small.allocated"), &small);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "large.allocated"), &large);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "pactive"), &pactive);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "mapped"), &mapped);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "resident"), &resident);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "small.nmalloc"), &small_n);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "large.nmalloc"), &large_n);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "small.ndalloc"), &small_d);
    if (s.ok()) s = MallctlRead(je, ArenaKey(arena, "large.ndalloc"), &large_d);
    if (!s.ok()) {
      return Status::NotSupported(
          "jemalloc arena statistics are unavailable (jemalloc built "
          "without --enable-stats?)",
          s.getState());
    }
    stats->allocated += small + large;
    stats->active += uint64_t{pactive} * page;
    stats->mapped += mapped;
    stats->resident += resident;
    stats->allocations += small_n + large_n;
    stats->deallocations += small_d + large_d;
  }
  return s;
}

}  // namespace rocksdb_cuckoo
