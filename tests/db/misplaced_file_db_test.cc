// A table file overwritten by another DB's file of the same number and size
// (a restore into the wrong directory, a copy gone astray): RocksDB's
// MANIFEST lists each file's unique ID, and the file's own properties must
// carry it, or reads fail with Corruption instead of answering with the
// other DB's data. Checked against BlockBasedTable, which verifies the same.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/version.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 1000;

std::string KeyOf(int i) { return testing::NumberedKey(i, 6); }

using testing::TableFormat;

class MisplacedFileTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  MisplacedFileTest() {
    options_.create_if_missing = true;
    options_.compression = kNoCompression;  // same sizes, whatever the data
    testing::UseTableFormat(GetParam(), &options_);
  }

  // One file of kKeys keys, every value `fill` repeated; returns its path.
  std::string WriteOneFile(testing::ScratchDb* db, char fill) {
    EXPECT_OK(db->Open(options_));
    for (int i = 0; i < kKeys; i++) {
      EXPECT_OK((*db)->Put(WriteOptions(), KeyOf(i), std::string(50, fill)));
    }
    EXPECT_OK((*db)->Flush(FlushOptions()));
    std::vector<LiveFileMetaData> files;
    (*db)->GetLiveFilesMetaData(&files);
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? "" : files[0].db_path + files[0].name;
  }

  Options options_;
};

TEST_P(MisplacedFileTest, AnotherDbsFileIsCorruptionNotItsData) {
  testing::ScratchDb ours("misplaced_ours");
  testing::ScratchDb other("misplaced_other");
  const std::string our_file = WriteOneFile(&ours, 'o');
  const std::string other_file = WriteOneFile(&other, 'x');
  ours.Close();
  other.Close();
  // Same number, same size: only the file's identity tells them apart.
  ASSERT_EQ(our_file.substr(our_file.rfind('/')),
            other_file.substr(other_file.rfind('/')));
  const std::string foreign = testing::ReadWholeFile(other_file);
  ASSERT_EQ(foreign.size(), testing::ReadWholeFile(our_file).size());
  ASSERT_TRUE(testing::WriteWholeFile(our_file, foreign));

  // With every file opened at DB::Open (max_open_files=-1, the default) the
  // open fails; with a table cache, the first read of the file does.
  for (int max_open_files : {-1, 100}) {
    SCOPED_TRACE(max_open_files);
    options_.max_open_files = max_open_files;
    const Status open = ours.Open(options_);
    Status read = open;
    if (open.ok()) {
      std::string value;
      read = ours->Get(ReadOptions(), KeyOf(7), &value);
      EXPECT_NE(value, std::string(50, 'x')) << "read the other DB's value";
    }
    EXPECT_TRUE(read.IsCorruption()) << read.ToString();
    EXPECT_NE(read.ToString().find("nique ID"), std::string::npos)
        << read.ToString();
    // The operator learns which file to restore (BlockBasedTable gives only
    // its number here).
    if (GetParam() != TableFormat::kBlockBased) {
      EXPECT_NE(read.ToString().find(our_file.substr(our_file.rfind('/') + 1)),
                std::string::npos)
          << read.ToString();
    }
  }

  // The check can be turned off, as RocksDB's option says; then the file is
  // read as what it is.
  options_.verify_sst_unique_id_in_manifest = false;
  ASSERT_OK(ours.Open(options_));
  std::string value;
  ASSERT_OK(ours->Get(ReadOptions(), KeyOf(7), &value));
  EXPECT_EQ(value, std::string(50, 'x'));
}

// A table file damaged where the format is recognised (its last bytes): the
// error names the table file, not the MANIFEST that listed it.
TEST_P(MisplacedFileTest, DamagedFileIsNamedInTheError) {
  testing::ScratchDb db("damaged_named");
  const std::string file = WriteOneFile(&db, 'd');
  db.Close();
  std::string bytes = testing::ReadWholeFile(file);
  ASSERT_GT(bytes.size(), 8u);
  for (size_t i = bytes.size() - 8; i < bytes.size(); i++) bytes[i] ^= 0x5a;
  ASSERT_TRUE(testing::WriteWholeFile(file, bytes));
  for (int max_open_files : {-1, 100}) {
    SCOPED_TRACE(max_open_files);
    options_.max_open_files = max_open_files;
    const Status open = db.Open(options_);
    Status read = open;
    if (open.ok()) {
      std::string value;
      read = db->Get(ReadOptions(), KeyOf(7), &value);
    }
    EXPECT_TRUE(read.IsCorruption()) << read.ToString();
    EXPECT_NE(read.ToString().find(file.substr(file.rfind('/') + 1)),
              std::string::npos)
        << read.ToString();
  }
}

// Fails every merge it is asked to do.
class FailingMergeOperator : public MergeOperator {
 public:
  const char* Name() const override { return "FailingMergeOperator"; }
  bool FullMergeV2(const MergeOperationInput&,
                   MergeOperationOutput*) const override {
    return false;
  }
};

// RocksDB's DBMergeOperatorTest.MergeOperatorFailsWithMustMerge: a merge
// operator's failure is a Corruption with its own subcode (and no message),
// which callers tell apart from damage. Naming the file in it threw
// (std::string from a null message) and would have hidden the subcode.
TEST_P(MisplacedFileTest, AMergeFailureIsNotFileDamage) {
  testing::ScratchDb db("merge_failure");
  options_.merge_operator = std::make_shared<FailingMergeOperator>();
  ASSERT_OK(db.Open(options_));
  // In two files, so that no flush merges them: the read does, reaching the
  // base in the older file.
  ASSERT_OK(db->Put(WriteOptions(), "k", "base"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Merge(WriteOptions(), "k", "operand"));
  ASSERT_OK(db->Flush(FlushOptions()));
  std::string value;
  const Status s = db->Get(ReadOptions(), "k", &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
#if ROCKSDB_MAJOR >= 9
  EXPECT_EQ(s.subcode(), Status::kMergeOperatorFailed) << s.ToString();
#endif
}

INSTANTIATE_TEST_SUITE_P(Formats, MisplacedFileTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
