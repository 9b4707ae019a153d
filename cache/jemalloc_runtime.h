// The jemalloc of the running process, found at run time.
//
// librocksdb_cuckoo.so must stay dlopen-able by any RocksDB application, and
// Debian's libjemalloc.so.2 uses static TLS, so it cannot be loaded into a
// process that did not start with it. The library therefore
// never links jemalloc: it looks up jemalloc's entry points among the
// symbols the process already has, which is the case when the program was
// linked against jemalloc or started with LD_PRELOAD=libjemalloc.so.2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rocksdb/status.h"

namespace rocksdb_cuckoo {

struct JemallocApi {
  int (*mallctl)(const char* name, void* oldp, size_t* oldlenp, void* newp,
                 size_t newlen);
  void* (*mallocx)(size_t size, int flags);
  void (*dallocx)(void* ptr, int flags);
  size_t (*sallocx)(const void* ptr, int flags);
  // True when jemalloc also serves malloc(), so that its process-wide stats
  // describe the heap. False when, e.g., ASan intercepts malloc while a
  // linked jemalloc still serves the *allocx calls.
  bool owns_malloc;
};

// The process's jemalloc, or null with the reason in *why (may be null).
const JemallocApi* FindJemalloc(std::string* why);

// mallocx/dallocx flags, jemalloc's stable ABI (MALLOCX_ARENA and
// MALLOCX_TCACHE_NONE in jemalloc.h; checked against it where present).
constexpr int kMallocxTcacheNone = 1 << 8;
constexpr int MallocxArena(unsigned arena) {
  return static_cast<int>((arena + 1) << 20);
}

// Reads a jemalloc control of type T (its size must match the control's).
template <typename T>
ROCKSDB_NAMESPACE::Status MallctlRead(const JemallocApi& je,
                                      const std::string& name, T* value) {
  size_t size = sizeof(T);
  const int err = je.mallctl(name.c_str(), value, &size, nullptr, 0);
  if (err != 0 || size != sizeof(T)) {
    return ROCKSDB_NAMESPACE::Status::NotSupported(
        "jemalloc mallctl(\"" + name + "\") failed with error " +
        std::to_string(err));
  }
  return ROCKSDB_NAMESPACE::Status::OK();
}

// jemalloc caches its statistics; this makes the next reads current.
ROCKSDB_NAMESPACE::Status RefreshJemallocStats(const JemallocApi& je);

}  // namespace rocksdb_cuckoo
