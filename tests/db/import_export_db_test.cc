// Moving a column family between DBs: Checkpoint::ExportColumnFamily
// copies its CuckooHashTable files out (with their key range and sequence
// numbers), and DB::CreateColumnFamilyWithImport adds them to another DB,
// copied or moved. The imported family must answer as the exported one
// did (overwritten and deleted keys included), and keep doing so after a
// compaction and a reopen.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "rocksdb/utilities/checkpoint.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 500;

std::string KeyOf(int i) { return "key" + std::to_string(i); }

// What the exported family holds: every fifth key deleted, every third
// overwritten in a newer file.
std::string ExpectedAt(int i) {
  if (i % 5 == 0) return "NotFound";
  if (i % 3 == 0) return "new" + std::to_string(i);
  return "old" + std::to_string(i);
}

std::string GetOrNotFound(DB* db, ColumnFamilyHandle* family, int i) {
  std::string value;
  const Status s = db->Get(ReadOptions(), family, KeyOf(i), &value);
  return s.IsNotFound() ? "NotFound" : (s.ok() ? value : s.ToString());
}

class ImportExportTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/import_export_" + std::to_string(getpid());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    options_.create_if_missing = true;
    options_.memtable_factory = NewStripedHashMemTableFactory();
    options_.table_factory = NewCuckooHashTableFactory();
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::string root_;
  Options options_;
};

TEST_P(ImportExportTest, ImportedFamilyAnswersAsTheExportedOne) {
  const bool move_files = GetParam();
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options_, root_ + "/source", &raw));
  std::unique_ptr<DB> source(raw);
  for (int i = 0; i < kKeys; i++) {
    ASSERT_OK(source->Put(WriteOptions(), KeyOf(i), "old" + std::to_string(i)));
  }
  ASSERT_OK(source->Flush(FlushOptions()));
  for (int i = 0; i < kKeys; i++) {
    if (i % 5 == 0) {
      ASSERT_OK(source->Delete(WriteOptions(), KeyOf(i)));
    } else if (i % 3 == 0) {
      ASSERT_OK(
          source->Put(WriteOptions(), KeyOf(i), "new" + std::to_string(i)));
    }
  }
  ASSERT_OK(source->Flush(FlushOptions()));

  Checkpoint* raw_checkpoint = nullptr;
  ASSERT_OK(Checkpoint::Create(source.get(), &raw_checkpoint));
  std::unique_ptr<Checkpoint> checkpoint(raw_checkpoint);
  ExportImportFilesMetaData* raw_metadata = nullptr;
  ASSERT_OK(checkpoint->ExportColumnFamily(source->DefaultColumnFamily(),
                                           root_ + "/export", &raw_metadata));
  std::unique_ptr<ExportImportFilesMetaData> metadata(raw_metadata);
  ASSERT_EQ(metadata->files.size(), 2u);
  source.reset();

  // The target DB already has writes of its own: the imported files'
  // sequence numbers must not hide or be hidden by them.
  ASSERT_OK(OpenDB(options_, root_ + "/target", &raw));
  std::unique_ptr<DB> target(raw);
  for (int i = 0; i < 1000; i++) {
    ASSERT_OK(target->Put(WriteOptions(), "own" + std::to_string(i), "x"));
  }
  ImportColumnFamilyOptions import;
  import.move_files = move_files;
  ColumnFamilyHandle* raw_family = nullptr;
  ASSERT_OK(target->CreateColumnFamilyWithImport(options_, "imported", import,
                                                 *metadata, &raw_family));
  std::unique_ptr<ColumnFamilyHandle> family(raw_family);
  for (int i = 0; i < kKeys; i++) {
    EXPECT_EQ(GetOrNotFound(target.get(), family.get(), i), ExpectedAt(i))
        << KeyOf(i);
  }

  // A write after the import is newer than every imported version.
  ASSERT_OK(target->Put(WriteOptions(), family.get(), KeyOf(1), "after"));
  ASSERT_OK(target->Flush(FlushOptions(), family.get()));
  ASSERT_OK(target->CompactRange(CompactRangeOptions(), family.get(), nullptr,
                                 nullptr));
  EXPECT_EQ(GetOrNotFound(target.get(), family.get(), 1), "after");

  ASSERT_OK(target->DestroyColumnFamilyHandle(family.release()));
  target.reset();
  std::vector<ColumnFamilyHandle*> handles;
  ASSERT_OK(
      OpenDB(options_, root_ + "/target",
             {{kDefaultColumnFamilyName, options_}, {"imported", options_}},
             &handles, &raw));
  target.reset(raw);
  family.reset(handles[1]);
  std::unique_ptr<ColumnFamilyHandle> default_family(handles[0]);
  for (int i = 0; i < kKeys; i++) {
    EXPECT_EQ(GetOrNotFound(target.get(), family.get(), i),
              i == 1 ? "after" : ExpectedAt(i))
        << KeyOf(i) << " after a reopen";
  }
  std::unique_ptr<Iterator> it(
      target->NewIterator(ReadOptions(), family.get()));
  int live = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) live++;
  ASSERT_OK(it->status());
  EXPECT_EQ(live, kKeys - kKeys / 5);
  it.reset();
  ASSERT_OK(target->VerifyChecksum());
  family.reset();
  default_family.reset();
}

INSTANTIATE_TEST_SUITE_P(Files, ImportExportTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Moved" : "Copied";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
