// RocksDB's Configurable reports an unknown option name as NotFound; to a
// user who typed it, it is an invalid argument. Every registered factory of
// this plugin answers through this one conversion (the message keeps the
// option's name).
#pragma once

#include "rocksdb/status.h"

namespace rocksdb_cuckoo {

inline ROCKSDB_NAMESPACE::Status UnknownOptionIsInvalidArgument(
    const char* owner, const ROCKSDB_NAMESPACE::Status& s) {
  return s.IsNotFound()
             ? ROCKSDB_NAMESPACE::Status::InvalidArgument(owner, s.getState())
             : s;
}

}  // namespace rocksdb_cuckoo
