// The Java CuckooHashTableConfig describing a native CuckooHashTable
// factory: what CuckooHashTableConfig.fromString returns and what
// CuckooOptionsUtil hands back for a column family read from an OPTIONS file.
#pragma once

#include <jni.h>

#include "rocksdb/table.h"

namespace rocksdb_cuckoo_jni {

// A new org.rocksdb.CuckooHashTableConfig with the options of `factory`,
// which must be a CuckooHashTable factory; null with a Java exception
// pending on failure.
jobject NewCuckooHashTableConfig(
    JNIEnv* env, const ROCKSDB_NAMESPACE::TableFactory& factory);

}  // namespace rocksdb_cuckoo_jni
