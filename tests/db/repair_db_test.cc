// RepairDB (`ldb repair`), what an operator runs when a DB's MANIFEST is
// lost or damaged: it turns the write-ahead logs into table files (through
// the column family's memtable factory and table factory), scans every table
// file with the table reader for its key and sequence number range and its
// unique ID, and writes a new MANIFEST. Afterwards every key must read as it
// did before, newest versions and deletions included. Checked against
// BlockBasedTable (with the skip list) on the same operations.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::TableFormat;

constexpr int kKeys = 2500;

std::string KeyOf(int i) { return testing::NumberedKey(i, 6); }

class RepairTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  RepairTest() {
    options_.create_if_missing = true;
    testing::UseTableFormat(GetParam(), &options_);
  }

  void Put(int i, const std::string& value) {
    ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), value));
    model_[KeyOf(i)] = value;
  }

  void ExpectModel(const char* where) {
    SCOPED_TRACE(where);
    std::vector<std::string> keys;
    for (int i = 0; i < kKeys; i++) keys.push_back(KeyOf(i));
    testing::ExpectReadsMatchModel(db_.get(), model_, keys);
  }

  Options options_;
  testing::ScratchDb db_{"repair"};
  testing::Model model_;
};

TEST_P(RepairTest, LostManifestIsRebuiltFromTablesAndLogs) {
  ASSERT_OK(db_.Open(options_));
  for (int i = 0; i < 1000; i++) Put(i, "first-" + KeyOf(i));
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 1000; i < 2000; i++) Put(i, "first-" + KeyOf(i));
  ASSERT_OK(db_->Flush(FlushOptions()));
  // Only in the log: new keys, newer versions of flushed ones, deletions.
  for (int i = 2000; i < kKeys; i++) Put(i, "logged-" + KeyOf(i));
  for (int i = 0; i < 500; i += 3) Put(i, "newer-" + KeyOf(i));
  for (int i = 600; i < 700; i++) {
    ASSERT_OK(db_->Delete(WriteOptions(), KeyOf(i)));
    model_.erase(KeyOf(i));
  }
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 2u);
  const std::string dir = files[0].db_path;
  db_.Close();

  // The MANIFEST and CURRENT are gone.
  int removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "CURRENT" || name.rfind("MANIFEST-", 0) == 0) {
      std::filesystem::remove(entry.path());
      removed++;
    }
  }
  ASSERT_GE(removed, 2);
  ASSERT_FALSE(db_.Open(options_).ok());

  ASSERT_OK(RepairDB(dir, options_));
  ASSERT_OK(db_.Open(options_));
  ExpectModel("after the repair");
  // Nothing was set aside as unreadable: both tables are back, and the logs
  // (the one written since, and any not yet deleted) became tables.
  db_->GetLiveFilesMetaData(&files);
  EXPECT_GE(files.size(), 3u);
  if (std::filesystem::exists(dir + "/lost")) {
    for (const auto& entry :
         std::filesystem::directory_iterator(dir + "/lost")) {
      EXPECT_NE(entry.path().extension(), ".sst") << entry.path();
    }
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ExpectModel("after a compaction");
  ASSERT_OK(db_.Open(options_));
  ExpectModel("after a reopen");
}

INSTANTIATE_TEST_SUITE_P(Formats, RepairTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
