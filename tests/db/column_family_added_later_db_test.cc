// Column families added to an open DB, and SstFileWriter: neither
// DB::CreateColumnFamily nor SstFileWriter calls the factories'
// ValidateOptions (DB::Open does), so a comparator the plugin cannot serve
// reaches the memtable and the table builder: the memtable must fall back to
// one that answers right, and a table file must fail with the reason (a
// flush keeping the data), never be written empty in its place.
#include <gtest/gtest.h>
#include <strings.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/db.h"
#include "rocksdb/sst_file_writer.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"
#include "tests/support/test_comparators.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

using CaseInsensitive = testing::CaseInsensitiveComparator;

class ColumnFamilyAddedLaterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/cf_added_later_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    Options options;
    options.create_if_missing = true;
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, dir_, &raw));
    db_.reset(raw);
  }
  void TearDown() override {
    CloseDb();
    std::filesystem::remove_all(dir_);
  }

  ColumnFamilyHandle* AddColumnFamily(const ColumnFamilyOptions& options,
                                      const std::string& name) {
    ColumnFamilyHandle* handle = nullptr;
    EXPECT_OK(db_->CreateColumnFamily(options, name, &handle));
    if (handle != nullptr) handles_.push_back(handle);
    return handle;
  }
  void CloseDb() {
    for (ColumnFamilyHandle* handle : handles_) {
      db_->DestroyColumnFamilyHandle(handle);
    }
    handles_.clear();
    // A DB stopped by a failed flush reports that error again on close.
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
    db_.reset();
  }
  std::string Get(ColumnFamilyHandle* cf, const std::string& key) {
    std::string value;
    const Status s = db_->Get(ReadOptions(), cf, key, &value);
    return s.ok() ? value : s.ToString();
  }

  CaseInsensitive case_insensitive_;
  std::string dir_;
  std::unique_ptr<DB> db_;
  std::vector<ColumnFamilyHandle*> handles_;
};

TEST_F(ColumnFamilyAddedLaterTest, StripedHashServesBytewiseColumnFamilies) {
  auto factory = NewStripedHashMemTableFactory();
  ColumnFamilyOptions options;
  options.memtable_factory = factory;
  ColumnFamilyHandle* cf = AddColumnFamily(options, "bytewise");
  ASSERT_NE(cf, nullptr);
  EXPECT_EQ(factory->GetStats().memtables, 1u);
  ASSERT_OK(db_->Put(WriteOptions(), cf, "Apple", "1"));
  EXPECT_EQ(Get(cf, "Apple"), "1");
  EXPECT_EQ(factory->GetStats().hits, 1u);
}

TEST_F(ColumnFamilyAddedLaterTest, StripedHashFallsBackToSkipList) {
  auto factory = NewStripedHashMemTableFactory();
  ColumnFamilyOptions options;
  options.comparator = &case_insensitive_;
  options.memtable_factory = factory;
  ColumnFamilyHandle* cf = AddColumnFamily(options, "case_insensitive");
  ASSERT_NE(cf, nullptr);
  ASSERT_OK(db_->Put(WriteOptions(), cf, "Apple", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), cf, "APPLE", "2"));
  // A hash of the bytes would miss both: "apple" has bytes of its own.
  EXPECT_EQ(Get(cf, "apple"), "2");
  EXPECT_EQ(factory->GetStats().memtables, 0u);
  const std::string log = testing::ReadWholeFile(dir_ + "/LOG");
  EXPECT_NE(log.find("CaseInsensitive does not promise that; this memtable "
                     "is a skip_list instead"),
            std::string::npos);
}

TEST_F(ColumnFamilyAddedLaterTest, CuckooTableFlushFailsAndKeepsTheData) {
  ColumnFamilyOptions options;
  options.comparator = &case_insensitive_;
  options.table_factory = NewCuckooHashTableFactory();
  ColumnFamilyHandle* cf = AddColumnFamily(options, "case_insensitive");
  ASSERT_NE(cf, nullptr);
  ASSERT_OK(db_->Put(WriteOptions(), cf, "Apple", "1"));
  const Status flushed = db_->Flush(FlushOptions(), cf);
  EXPECT_TRUE(flushed.IsNotSupported()) << flushed.ToString();
  EXPECT_NE(flushed.ToString().find("CaseInsensitive"), std::string::npos)
      << flushed.ToString();
  EXPECT_EQ(Get(cf, "apple"), "1");
  // The DB stops writes on the failed flush, naming it.
  const Status written = db_->Put(WriteOptions(), cf, "Banana", "2");
  EXPECT_TRUE(written.IsNotSupported()) << written.ToString();
  CloseDb();

  // DB::Open names the same problem, and with a table format that can hold
  // these keys the write is still there (the log was kept).
  std::vector<ColumnFamilyDescriptor> families = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions()},
      {"case_insensitive", options}};
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  const Status refused = OpenDB(DBOptions(), dir_, families, &handles, &raw);
  EXPECT_TRUE(refused.IsNotSupported()) << refused.ToString();
  families[1].options.table_factory.reset(NewBlockBasedTableFactory());
  ASSERT_OK(OpenDB(DBOptions(), dir_, families, &handles, &raw));
  db_.reset(raw);
  handles_ = handles;
  EXPECT_EQ(Get(handles_[1], "APPLE"), "1");
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[1]));
  EXPECT_EQ(Get(handles_[1], "apple"), "1");
}

TEST_F(ColumnFamilyAddedLaterTest, SstFileWriterRefusesTheComparator) {
  Options options;
  options.comparator = &case_insensitive_;
  options.table_factory = NewCuckooHashTableFactory();
  SstFileWriter writer{EnvOptions(), options};
  ASSERT_OK(writer.Open(dir_ + "/external.sst"));
  Status s = writer.Put("Apple", "1");
  if (s.ok()) s = writer.Finish();
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("CaseInsensitive"), std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace rocksdb_cuckoo
