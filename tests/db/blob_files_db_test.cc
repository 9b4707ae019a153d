// Integrated BlobDB (enable_blob_files): values of min_blob_size or more go
// to blob files at flush, and table files keep blob references in their
// place. Every read path resolves those references through RocksDB's blob
// fetcher, from what our reader hands it: Get, batched MultiGet (our reader
// has its own), iterators both ways, merges onto a blob value, and blob
// garbage collection, which rewrites references in compactions. Answers are
// checked against a model and BlockBasedTable runs the same operations.
#include <gtest/gtest.h>

#include <algorithm>
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

constexpr int kKeys = 2000;
constexpr size_t kMinBlobSize = 64;

std::string KeyOf(int i) { return testing::NumberedKey(i, 6); }
// Every third value is short enough to stay in the table file.
std::string ValueOf(int i, int version) {
  const size_t size = i % 3 == 0 ? 16 : 200;
  return std::string(size, static_cast<char>('a' + (i + version) % 26));
}

class BlobFilesTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  BlobFilesTest() {
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;
    options_.enable_blob_files = true;
    options_.min_blob_size = kMinBlobSize;
    options_.enable_blob_garbage_collection = true;
    options_.blob_garbage_collection_age_cutoff = 1.0;
    options_.merge_operator = std::make_shared<testing::CommaAppendOperator>();
    testing::UseTableFormat(GetParam(), &options_);
  }

  void Put(int i, int version) {
    ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), ValueOf(i, version)));
    model_[KeyOf(i)] = ValueOf(i, version);
  }

  // Every key of the model, and a few absent ones.
  void ExpectModel(const char* where) {
    SCOPED_TRACE(where);
    std::vector<std::string> keys;
    for (int i = 0; i < kKeys + 10; i++) keys.push_back(KeyOf(i));
    testing::ExpectReadsMatchModel(db_.get(), model_, keys);
  }

  std::vector<std::string> BlobFiles() {
    ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> names;
    for (const BlobMetaData& blob : meta.blob_files) {
      names.push_back(blob.blob_file_name);
    }
    return names;
  }

  Options options_;
  testing::ScratchDb db_{"blob_files"};
  testing::Model model_;
};

TEST_P(BlobFilesTest, ReferencesResolveOnEveryReadPath) {
  ASSERT_OK(db_.Open(options_));
  for (int i = 0; i < kKeys; i++) Put(i, 0);
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_FALSE(BlobFiles().empty());
  ExpectModel("first flush");

  // Newer versions of half the keys, deletions, and merges onto values that
  // live in blob files, in a second file.
  for (int i = 0; i < kKeys; i += 2) Put(i, 1);
  for (int i = 1; i < kKeys; i += 10) {
    ASSERT_OK(db_->Delete(WriteOptions(), KeyOf(i)));
    model_.erase(KeyOf(i));
  }
  for (int i = 5; i < kKeys; i += 10) {
    ASSERT_OK(db_->Merge(WriteOptions(), KeyOf(i), "m"));
    model_[KeyOf(i)] += ",m";
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ExpectModel("two files");

  // Garbage collection: the compaction rewrites the live blobs of the old
  // blob files and the references to them; the old files go.
  const std::vector<std::string> before = BlobFiles();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const std::vector<std::string> after = BlobFiles();
  for (const std::string& name : before) {
    EXPECT_EQ(std::count(after.begin(), after.end(), name), 0) << name;
  }
  ExpectModel("after garbage collection");

  ASSERT_OK(db_.Open(options_));
  ExpectModel("after a reopen");
}

INSTANTIATE_TEST_SUITE_P(Formats, BlobFilesTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
