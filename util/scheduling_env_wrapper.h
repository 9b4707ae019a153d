// An EnvWrapper for Envs that change only how background work is scheduled:
// files and time stay exactly the wrapped Env's.
//
// A DB reaches files and time through GetFileSystem() and GetSystemClock().
// A plain EnvWrapper's are RocksDB's legacy adapters, which call back into
// the wrapper's file and clock methods, which forward to the target Env,
// which calls its file system: layers of virtual calls on every WAL append
// and clock read, which slow a single writer, and what only the FileSystem
// interface carries (IOOptions, data verification info, asynchronous reads)
// dropped on the way. This one hands out the target's own.
#pragma once

#include "rocksdb/convenience.h"
#include "rocksdb/env.h"

namespace rocksdb_cuckoo {

class SchedulingEnvWrapper : public ROCKSDB_NAMESPACE::EnvWrapper {
 public:
  explicit SchedulingEnvWrapper(Env* target) : EnvWrapper(target) {
    UseTargetFileSystemAndClock();
  }

  // The target may have been configured (the `target` option) since the
  // constructor.
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override {
    const ROCKSDB_NAMESPACE::Status s =
        EnvWrapper::PrepareOptions(config_options);
    if (s.ok()) UseTargetFileSystemAndClock();
    return s;
  }

 private:
  void UseTargetFileSystemAndClock() {
    file_system_ = target()->GetFileSystem();
    system_clock_ = target()->GetSystemClock();
  }
};

}  // namespace rocksdb_cuckoo
