// Subcompactions (max_subcompactions > 1): RocksDB splits one compaction into
// key ranges by asking the input tables for size estimates and key anchors,
// and runs one table builder per range in parallel. Ours must give it
// estimates good enough to split on, and the ranges' outputs must together
// hold exactly what BlockBasedTable's do.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::TableFormat;

class SubcompactionCounter : public EventListener {
 public:
  void OnSubcompactionBegin(const SubcompactionJobInfo&) override { ++count; }
  std::atomic<int> count{0};
};

class SubcompactionsTest : public ::testing::TestWithParam<TableFormat> {};

TEST_P(SubcompactionsTest, ParallelRangesWriteWhatOneCompactionWould) {
  auto counter = std::make_shared<SubcompactionCounter>();
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.max_subcompactions = 4;
  options.max_background_jobs = 4;
  options.target_file_size_base = 256 << 10;  // several outputs per range
  options.compression = kNoCompression;       // sizes alike for all formats
  options.listeners.push_back(counter);
  testing::UseTableFormat(GetParam(), &options);
  testing::ScratchDb db("subcompactions");
  ASSERT_OK(db.Open(options));

  // Four L0 files, each across the whole key range, with overwrites and
  // deletes between them.
  testing::Model model;
  std::vector<std::string> keys;
  for (int i = 0; i < 8000; i++) keys.push_back(testing::NumberedKey(i, 6));
  for (int file = 0; file < 4; file++) {
    for (int i = file; i < 8000; i += 2) {
      if ((i + file) % 9 == 0) {
        ASSERT_OK(db->Delete(WriteOptions(), keys[i]));
        model.erase(keys[i]);
      } else {
        const std::string value =
            std::to_string(file) + std::string(100 + i % 200, 'v');
        ASSERT_OK(db->Put(WriteOptions(), keys[i], value));
        model[keys[i]] = value;
      }
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  CompactRangeOptions compact;
  compact.max_subcompactions = 4;
  ASSERT_OK(db->CompactRange(compact, nullptr, nullptr));
  // The compaction was split.
  EXPECT_GT(counter->count.load(), 1);
  testing::ExpectReadsMatchModel(db.get(), model, keys);
  std::vector<LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  // All of it left L0 (for L1, or the last level where 9.x sizes levels
  // dynamically).
  for (const LiveFileMetaData& file : files) EXPECT_GT(file.level, 0);
  ASSERT_OK(db.Open(options));
  testing::ExpectReadsMatchModel(db.get(), model, keys);
}

INSTANTIATE_TEST_SUITE_P(Formats, SubcompactionsTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
