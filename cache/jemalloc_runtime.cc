#include "cache/jemalloc_runtime.h"

#include <dlfcn.h>

#if __has_include(<jemalloc/jemalloc.h>)
// Only to check the flag values above against jemalloc's own; no symbol of
// it is referenced, so nothing links to jemalloc.
#include <jemalloc/jemalloc.h>
static_assert(MALLOCX_TCACHE_NONE == rocksdb_cuckoo::kMallocxTcacheNone);
static_assert(MALLOCX_ARENA(7) == rocksdb_cuckoo::MallocxArena(7));
#endif

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Status;

namespace {

struct Lookup {
  JemallocApi api{};
  bool found = false;
  std::string why;
};

template <typename Fn>
bool Resolve(const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  if (*fn == nullptr) *missing = name;
  return *fn != nullptr;
}

// The shared object a symbol lives in (its load address), or null.
const void* ObjectOf(const void* symbol) {
  Dl_info info{};
  return symbol != nullptr && dladdr(symbol, &info) != 0 ? info.dli_fbase
                                                         : nullptr;
}

Lookup FindOnce() {
  Lookup lookup;
  std::string missing;
  JemallocApi& api = lookup.api;
  if (!Resolve("mallctl", &api.mallctl, &missing) ||
      !Resolve("mallocx", &api.mallocx, &missing) ||
      !Resolve("dallocx", &api.dallocx, &missing) ||
      !Resolve("sallocx", &api.sallocx, &missing)) {
    lookup.why =
        "this process does not run on jemalloc (no symbol '" + missing +
        "'); start it with LD_PRELOAD=libjemalloc.so.2 or link the program "
        "against jemalloc";
    return lookup;
  }
  const void* jemalloc = ObjectOf(reinterpret_cast<void*>(api.mallctl));
  api.owns_malloc = jemalloc != nullptr &&
                    jemalloc == ObjectOf(dlsym(RTLD_DEFAULT, "malloc"));
  lookup.found = true;
  return lookup;
}

}  // namespace

const JemallocApi* FindJemalloc(std::string* why) {
  static const Lookup lookup = FindOnce();
  if (!lookup.found && why != nullptr) *why = lookup.why;
  return lookup.found ? &lookup.api : nullptr;
}

Status RefreshJemallocStats(const JemallocApi& je) {
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  const int err = je.mallctl("epoch", &epoch, &size, &epoch, sizeof(epoch));
  return err == 0 ? Status::OK()
                  : Status::NotSupported("jemalloc mallctl(\"epoch\") failed");
}

}  // namespace rocksdb_cuckoo
