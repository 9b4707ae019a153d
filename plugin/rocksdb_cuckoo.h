// Registration of every rocksdb-cuckoo factory with RocksDB's ObjectRegistry.
//
// The shared library runs this from a static initializer, so LD_PRELOAD or
// dlopen of librocksdb_cuckoo.so is enough. Programs linking the static
// library call it once:
//   register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
#pragma once

#include <string>

#include "rocksdb/utilities/object_registry.h"

extern "C" int register_rocksdb_cuckoo(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& arg);
