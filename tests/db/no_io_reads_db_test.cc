// Reads that may not do I/O (ReadOptions::read_tier = kBlockCacheTier, and
// DB::KeyMayExist, which uses it): a CuckooHashTable file read into memory
// answers them once it is wholly loaded, and until then says Incomplete
// ("may exist") instead of reading the file on the caller's thread; they
// still start the background load. A mapped file answers them at once, as
// RocksDB's mmap-only formats do.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "table/background_loader.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/blocking_helpers.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 100000;

std::string KeyOf(int i) { return testing::NumberedKey(i, 8); }

// Keeps the process's background loader busy until destroyed: a file's load
// queued meanwhile waits behind it, so the file is still loading however
// the threads are scheduled (a descheduled test thread once saw the loader
// finish between a lookup queueing the load and the lookup's own check).
class LoaderHeld {
 public:
  LoaderHeld() {
    job_.load = [this](const std::atomic<bool>&) { gate_.Wait(); };
    BackgroundLoader::Instance().Add(&job_);
  }
  ~LoaderHeld() {
    gate_.Open();
    BackgroundLoader::Instance().Remove(&job_);
  }

 private:
  cuckoo_test::Gate gate_;
  BackgroundLoader::Job job_;
};

class NoIoReadsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    options_.create_if_missing = true;
    options_.allow_mmap_reads = GetParam();
    CuckooHashTableOptions table;
    // Once a lookup reaches the file, the rest loads in the background.
    table.load_in_background = true;
    options_.table_factory = NewCuckooHashTableFactory(table);
    ASSERT_OK(db_.Open(options_));
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), "value" + KeyOf(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    // Reopened: the table file is open, its bulk not read yet.
    ASSERT_OK(db_.Open(options_));
    no_io_.read_tier = kBlockCacheTier;
  }

  Options options_;
  testing::ScratchDb db_{"no_io_reads"};
  ReadOptions no_io_;
};

TEST_P(NoIoReadsTest, AnsweredOnlyFromMemory) {
  const bool mapped = GetParam();
  std::string value;
  auto held = std::make_unique<LoaderHeld>();
  Status s = db_->Get(no_io_, KeyOf(7), &value);
  bool value_found = true;
  const bool may_exist = db_->KeyMayExist(no_io_, db_->DefaultColumnFamily(),
                                          KeyOf(7), &value, &value_found);
  const std::vector<std::string> key_strings = {KeyOf(1), KeyOf(kKeys / 2)};
  const std::vector<Slice> keys(key_strings.begin(), key_strings.end());
  std::vector<std::string> values;
  std::vector<Status> statuses = db_->MultiGet(no_io_, keys, &values);
  if (mapped) {
    ASSERT_OK(s);
    EXPECT_EQ(value, "value" + KeyOf(7));
    EXPECT_TRUE(may_exist);
    for (const Status& status : statuses) EXPECT_OK(status);
  } else {
    EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
    EXPECT_TRUE(may_exist);
    EXPECT_FALSE(value_found);
    for (const Status& status : statuses) {
      EXPECT_TRUE(status.IsIncomplete()) << status.ToString();
    }
  }
  // The lookups above queued the background load; once it has read the
  // whole file, reads that may not do I/O are answered.
  held.reset();
  for (int tries = 0; tries < 3000; ++tries) {
    if (!db_->Get(no_io_, KeyOf(kKeys - 1), &value).IsIncomplete()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_OK(db_->Get(no_io_, KeyOf(kKeys - 1), &value));
  EXPECT_EQ(value, "value" + KeyOf(kKeys - 1));
  EXPECT_TRUE(db_->Get(no_io_, "absent", &value).IsNotFound());
  EXPECT_FALSE(db_->KeyMayExist(no_io_, db_->DefaultColumnFamily(), "absent",
                                &value, &value_found));
  statuses = db_->MultiGet(no_io_, keys, &values);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_OK(statuses[i]);
    EXPECT_EQ(values[i], "value" + keys[i].ToString());
  }
}

INSTANTIATE_TEST_SUITE_P(ReadModes, NoIoReadsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Mmap" : "Loaded";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
