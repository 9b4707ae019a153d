// The read a thread is serving (a Get, a MultiGet, an iterator's step, a
// table open), for the file reads it causes deep inside the table: a chunk
// loaded on its first touch reads the file on that read's behalf. RocksDB
// expects every file read to carry the read's options: its activity (which
// its debug builds assert for each read during a Get, a compaction, ...),
// its deadline and its rate-limiter priority.
#pragma once

#include "rocksdb/options.h"

namespace rocksdb_cuckoo {

class ServingRead {
 public:
  explicit ServingRead(const ROCKSDB_NAMESPACE::ReadOptions& read_options)
      : outer_(current_) {
    current_ = &read_options;
  }
  ~ServingRead() { current_ = outer_; }
  ServingRead(const ServingRead&) = delete;
  ServingRead& operator=(const ServingRead&) = delete;

  // The options of the innermost read this thread serves; default options
  // outside any (the background loader's own reads).
  static const ROCKSDB_NAMESPACE::ReadOptions& Current() {
    static const ROCKSDB_NAMESPACE::ReadOptions kNone;
    return current_ != nullptr ? *current_ : kNone;
  }

 private:
  static inline thread_local const ROCKSDB_NAMESPACE::ReadOptions* current_ =
      nullptr;
  const ROCKSDB_NAMESPACE::ReadOptions* const outer_;
};

}  // namespace rocksdb_cuckoo
