// A DB in a directory of its own below the test's temporary directory,
// named by the test and the process (ctest runs each case in its own
// process, several at once). The directory starts empty and is removed,
// after the DB is closed, when the ScratchDb goes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "rocksdb/db.h"
#include "tests/support/db_open.h"

namespace rocksdb_cuckoo::testing {

class ScratchDb {
 public:
  explicit ScratchDb(const std::string& name)
      : dir_(::testing::TempDir() + "/" + name + "_" +
             std::to_string(getpid())) {
    std::filesystem::remove_all(dir_);
  }
  ~ScratchDb() {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  ScratchDb(const ScratchDb&) = delete;
  ScratchDb& operator=(const ScratchDb&) = delete;

  // Closes the DB if open, then opens it with `options`.
  ROCKSDB_NAMESPACE::Status Open(const ROCKSDB_NAMESPACE::Options& options) {
    db_.reset();
    ROCKSDB_NAMESPACE::DB* raw = nullptr;
    const ROCKSDB_NAMESPACE::Status s = OpenDB(options, dir_, &raw);
    db_.reset(raw);
    return s;
  }
  void Close() { db_.reset(); }
  // Closes the DB if open and removes its files: the next Open starts empty.
  void Wipe() {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  ROCKSDB_NAMESPACE::DB* operator->() const { return db_.get(); }
  ROCKSDB_NAMESPACE::DB* get() const { return db_.get(); }

 private:
  const std::string dir_;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
};

}  // namespace rocksdb_cuckoo::testing
