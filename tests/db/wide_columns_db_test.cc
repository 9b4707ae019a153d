// Wide-column entities (PutEntity / GetEntity): stored as their own value
// type, which both of the plugin's parts must keep, and read back column by
// column from the memtable, from a flushed table file and after a
// compaction, with files mapped and read into memory. Plain values read as
// an entity of one default column, and entities as their default column.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/db.h"
#include "rocksdb/wide_columns.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 300;

std::string KeyOf(int i) { return testing::NumberedKey(i, 5); }

// Every third key holds a plain value; the others an entity whose columns
// (sorted by name, as RocksDB stores them) depend on the key, some without
// a default column.
WideColumns ExpectedColumns(int i, std::vector<std::string>* storage) {
  storage->clear();
  if (i % 3 == 0) {
    storage->push_back("plain" + std::to_string(i));
    return {{kDefaultWideColumnName, (*storage)[0]}};
  }
  storage->push_back("default" + std::to_string(i));
  storage->push_back("attr" + std::to_string(i * 7));
  storage->push_back(std::string(i % 50, 'z'));
  if (i % 3 == 1) {
    return {{kDefaultWideColumnName, (*storage)[0]},
            {"colour", (*storage)[1]},
            {"size", (*storage)[2]}};
  }
  return {{"colour", (*storage)[1]}, {"size", (*storage)[2]}};
}

// Get() answers an entity's default column, empty if it has none.
std::string ExpectedValue(const WideColumns& columns) {
  if (!columns.empty() && columns[0].name() == kDefaultWideColumnName) {
    return columns[0].value().ToString();
  }
  return "";
}

class WideColumnsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    options_.create_if_missing = true;
    options_.allow_mmap_reads = GetParam();
    options_.memtable_factory = NewStripedHashMemTableFactory();
    options_.table_factory = NewCuckooHashTableFactory();
    ASSERT_OK(db_.Open(options_));
  }

  void ExpectAllKeys() {
    std::vector<std::string> storage;
    for (int i = 0; i < kKeys; i++) {
      SCOPED_TRACE(KeyOf(i));
      const WideColumns expected = ExpectedColumns(i, &storage);
      PinnableWideColumns columns;
      ASSERT_OK(db_->GetEntity(ReadOptions(), db_->DefaultColumnFamily(),
                               KeyOf(i), &columns));
      EXPECT_EQ(columns.columns(), expected);
      std::string value;
      ASSERT_OK(db_->Get(ReadOptions(), KeyOf(i), &value));
      EXPECT_EQ(value, ExpectedValue(expected));
    }
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    int i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
      ASSERT_LT(i, kKeys);
      ASSERT_EQ(it->key().ToString(), KeyOf(i));
      const WideColumns expected = ExpectedColumns(i, &storage);
      EXPECT_EQ(it->columns(), expected) << KeyOf(i);
      EXPECT_EQ(it->value().ToString(), ExpectedValue(expected)) << KeyOf(i);
    }
    ASSERT_OK(it->status());
    EXPECT_EQ(i, kKeys);
  }

  Options options_;
  testing::ScratchDb db_{"wide_columns"};
};

TEST_P(WideColumnsTest, EntitiesReadBackFromMemtableTableAndCompaction) {
  std::vector<std::string> storage;
  for (int i = 0; i < kKeys; i++) {
    const WideColumns columns = ExpectedColumns(i, &storage);
    if (i % 3 == 0) {
      ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), columns[0].value()));
    } else {
      ASSERT_OK(db_->PutEntity(WriteOptions(), db_->DefaultColumnFamily(),
                               KeyOf(i), columns));
    }
  }
  {
    SCOPED_TRACE("in the memtable");
    ExpectAllKeys();
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  {
    SCOPED_TRACE("in a table file");
    ExpectAllKeys();
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  {
    SCOPED_TRACE("after a compaction");
    ExpectAllKeys();
  }
}

TEST_P(WideColumnsTest, AnEntityOverwrittenByAValueReadsAsTheNewest) {
  const WideColumns entity{{kDefaultWideColumnName, "old"}, {"c", "x"}};
  ASSERT_OK(
      db_->PutEntity(WriteOptions(), db_->DefaultColumnFamily(), "k", entity));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "k", "new"));
  for (bool flushed : {false, true}) {
    SCOPED_TRACE(flushed ? "both in table files" : "value in the memtable");
    if (flushed) ASSERT_OK(db_->Flush(FlushOptions()));
    PinnableWideColumns columns;
    ASSERT_OK(db_->GetEntity(ReadOptions(), db_->DefaultColumnFamily(), "k",
                             &columns));
    EXPECT_EQ(columns.columns(),
              (WideColumns{{kDefaultWideColumnName, "new"}}));
  }
}

INSTANTIATE_TEST_SUITE_P(ReadModes, WideColumnsTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Mmap" : "Loaded";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
