// Registration of every rocksdb-cuckoo factory with RocksDB's ObjectRegistry.
//
// The shared library runs this from a static initializer, so LD_PRELOAD or
// dlopen of librocksdb_cuckoo.so is enough. Programs linking the static
// library call it once:
//   register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/utilities/object_registry.h"

extern "C" int register_rocksdb_cuckoo(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& arg);

namespace rocksdb_cuckoo {

// What this process's rocksdb-cuckoo parts have done so far: a way to tell
// that they are really in use (options parsed leniently leave RocksDB's own
// table and memtable in place of a factory nobody registered, silently).
struct PluginUsage {
  uint64_t tables_opened = 0;      // CuckooHashTable files opened to read
  uint64_t tables_built = 0;       // CuckooHashTable files started
  uint64_t memtables_created = 0;  // striped_hash memtables
  uint64_t env_jobs_run = 0;       // background jobs AsyncExecutorEnv ran
};
PluginUsage GetPluginUsage();

}  // namespace rocksdb_cuckoo
