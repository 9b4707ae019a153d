// CuckooHashTable through RocksDB's object registry and option strings: the
// way users meet it.
#include <gtest/gtest.h>
#include <unistd.h>

#include "memtable/striped_hash_memtable.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/options_util.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"
#include "tests/support/status_assertions.h"
#include "tests/support/test_comparators.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

class CuckooOptionsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }
  CuckooOptionsTest() {
    strict_.ignore_unsupported_options = false;
    strict_.ignore_unknown_options = false;
  }
  Status Create(const std::string& text, std::shared_ptr<TableFactory>* f) {
    return TableFactory::CreateFromString(strict_, text, f);
  }
  ConfigOptions strict_;
};

TEST_F(CuckooOptionsTest, CreatesByIdWithTypedOptions) {
  std::shared_ptr<TableFactory> factory;
  ASSERT_OK(Create(
      "id=CuckooHashTable;hash_table_ratio=0.5;identity_as_first_hash=true;"
      "max_search_depth=64;checksum=kCRC32c;load_in_background=false",
      &factory));
  ASSERT_NE(factory, nullptr);
  EXPECT_STREQ(factory->Name(), "CuckooHashTable");
  const auto* options = factory->GetOptions<CuckooHashTableOptions>();
  ASSERT_NE(options, nullptr);
  EXPECT_DOUBLE_EQ(options->hash_table_ratio, 0.5);
  EXPECT_TRUE(options->identity_as_first_hash);
  EXPECT_EQ(options->max_search_depth, 64u);
  EXPECT_EQ(options->checksum, kCRC32c);
  EXPECT_FALSE(options->load_in_background);
}

// An in-tree build has registered everything at startup already, and a
// program may call the registrar more than once: the names must still
// resolve, to working objects.
TEST_F(CuckooOptionsTest, RegisteringAgainIsHarmless) {
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  std::shared_ptr<TableFactory> table;
  ASSERT_OK(Create("id=CuckooHashTable;hash_table_ratio=0.5", &table));
  ASSERT_NE(table, nullptr);
  EXPECT_STREQ(table->Name(), "CuckooHashTable");
  std::shared_ptr<MemTableRepFactory> memtable;
  ASSERT_OK(
      MemTableRepFactory::CreateFromString(strict_, "striped_hash", &memtable));
  ASSERT_NE(memtable, nullptr);
  EXPECT_STREQ(memtable->Name(), "striped_hash");
  Env* env = nullptr;
  std::shared_ptr<Env> env_guard;
  ASSERT_OK(
      Env::CreateFromString(strict_, "AsyncExecutorEnv", &env, &env_guard));
  ASSERT_NE(env, nullptr);
  EXPECT_STREQ(env->Name(), "AsyncExecutorEnv");
}

TEST_F(CuckooOptionsTest, OptionsRoundTripThroughStrings) {
  std::shared_ptr<TableFactory> factory;
  ASSERT_OK(
      Create("id=CuckooHashTable;hash_table_ratio=0.75;checksum=kNoChecksum",
             &factory));
  std::string text;
  ASSERT_OK(factory->GetOptionString(strict_, &text));
  std::shared_ptr<TableFactory> copy;
  ASSERT_OK(Create("id=CuckooHashTable;" + text, &copy));
  std::string mismatch;
  EXPECT_TRUE(factory->AreEquivalent(strict_, copy.get(), &mismatch))
      << mismatch;
  EXPECT_EQ(copy->GetOptions<CuckooHashTableOptions>()->checksum, kNoChecksum);
}

TEST_F(CuckooOptionsTest, OutOfRangeValuesNameTheOption) {
  for (const char* bad :
       {"hash_table_ratio=1.5", "hash_table_ratio=0", "max_search_depth=0"}) {
    std::shared_ptr<TableFactory> factory;
    Status s = Create(std::string("id=CuckooHashTable;") + bad, &factory);
    ASSERT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    const std::string name =
        std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
  }
}

TEST_F(CuckooOptionsTest, OutOfRangeValuesFailWhenParsedInsideCFOptions) {
  ColumnFamilyOptions cf;
  Status s = GetColumnFamilyOptionsFromString(
      strict_, cf, "table_factory={id=CuckooHashTable;hash_table_ratio=1.5}",
      &cf);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("hash_table_ratio"), std::string::npos);
  s = GetColumnFamilyOptionsFromString(
      strict_, cf, "table_factory={id=CuckooHashTable;max_search_depth=-3}",
      &cf);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(CuckooOptionsTest, UnknownOptionsAndValuesAreRejected) {
  std::shared_ptr<TableFactory> factory;
  Status s = Create("id=CuckooHashTable;no_such_option=1", &factory);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("no_such_option"), std::string::npos);
  s = Create("id=CuckooHashTable;checksum=kxxHash", &factory);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = Create("id=CuckooHashTable;identity_as_first_hash=maybe", &factory);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

class DBFixture : public CuckooOptionsTest {
 protected:
  DBFixture()
      : dir_(::testing::TempDir() + "/cuckoo_options_db_" +
             std::to_string(getpid())) {
    DestroyDB(dir_, Options()).PermitUncheckedError();
  }
  ~DBFixture() override { DestroyDB(dir_, Options()).PermitUncheckedError(); }
  std::string dir_;
};

TEST_F(DBFixture, OptionsFileNamesTheFactoryAndReloads) {
  Options options;
  options.create_if_missing = true;
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      strict_, options,
      "table_factory={id=CuckooHashTable;identity_as_first_hash=true}",
      &options));
  ASSERT_STREQ(options.table_factory->Name(), "CuckooHashTable");
  std::unique_ptr<DB> db;
  {
    DB* raw;
    ASSERT_OK(OpenDB(options, dir_, &raw));
    db.reset(raw);
  }
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));
  ASSERT_OK(db->Flush(FlushOptions()));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "k", &value));
  EXPECT_EQ(value, "v");
  // Through the DB too, a value from the file is pinned, not copied.
  PinnableSlice pinned;
  ASSERT_OK(db->Get(ReadOptions(), db->DefaultColumnFamily(), "k", &pinned));
  EXPECT_TRUE(pinned.IsPinned());
  EXPECT_EQ(pinned.ToString(), "v");
  pinned.Reset();
  ASSERT_OK(
      db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(), "a", "z"));
  ASSERT_OK(db->Flush(FlushOptions()));
  EXPECT_TRUE(db->Get(ReadOptions(), "k", &value).IsNotFound());
  db.reset();

  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> cfs;
  ASSERT_OK(LoadLatestOptions(strict_, dir_, &db_options, &cfs));
  ASSERT_EQ(cfs.size(), 1u);
  ASSERT_STREQ(cfs[0].options.table_factory->Name(), "CuckooHashTable");
  EXPECT_TRUE(cfs[0]
                  .options.table_factory->GetOptions<CuckooHashTableOptions>()
                  ->identity_as_first_hash);
}

TEST_F(DBFixture, ComparatorThatIgnoresBytesIsRefused) {
  testing::CaseInsensitiveComparator comparator;
  Options options;
  options.create_if_missing = true;
  options.comparator = &comparator;
  options.table_factory = NewCuckooHashTableFactory();
  DB* raw = nullptr;
  Status s = OpenDB(options, dir_, &raw);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(raw, nullptr);
}

// User-defined timestamps: lookups would hash the key with its timestamp,
// so no version but the exact one written could be found. Each part says so
// at DB::Open, naming itself and the feature.
TEST_F(DBFixture, UserTimestampsAreRefusedByEachPart) {
  // The parts refuse before comparing anything.
  testing::WithTimestampsComparator comparator;
  for (const bool ours_is_the_table : {true, false}) {
    SCOPED_TRACE(ours_is_the_table ? "CuckooHashTable" : "striped_hash");
    Options options;
    options.create_if_missing = true;
    options.comparator = &comparator;
    if (ours_is_the_table) {
      options.table_factory = NewCuckooHashTableFactory();
    } else {
      options.memtable_factory = NewStripedHashMemTableFactory();
    }
    DB* raw = nullptr;
    const Status s = OpenDB(options, dir_, &raw);
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_NE(s.ToString().find("user-defined timestamps"), std::string::npos)
        << s.ToString();
    EXPECT_NE(s.ToString().find(ours_is_the_table ? "CuckooHashTable"
                                                  : "striped_hash"),
              std::string::npos)
        << s.ToString();
    EXPECT_EQ(raw, nullptr);
    delete raw;
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
