// Direct I/O (use_direct_reads, use_direct_io_for_flush_and_compaction):
// files are written and read past the page cache, in aligned blocks. Our
// table must write through RocksDB's aligned writer, and load and check
// files read that way, exactly as BlockBasedTable's answers; reads must
// also go on after a reopen, which starts with nothing cached.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::TableFormat;

class DirectIoTest : public ::testing::TestWithParam<TableFormat> {};

TEST_P(DirectIoTest, WritesAndReadsMatchTheModel) {
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  testing::UseTableFormat(GetParam(), &options);
  options.use_direct_reads = true;
  options.use_direct_io_for_flush_and_compaction = true;
  testing::ScratchDb db("direct_io");
  ASSERT_OK(db.Open(options));

  testing::Model model;
  std::vector<std::string> keys;
  // Values of many sizes, so entries straddle the 4 KiB blocks direct I/O
  // reads in.
  for (int i = 0; i < 3000; i++) {
    const std::string key = testing::NumberedKey(i, 6);
    keys.push_back(key);
    if (i % 11 == 5) continue;  // never written: a miss
    const std::string value(static_cast<size_t>(i * 37 % 5000), 'a' + i % 26);
    ASSERT_OK(db->Put(WriteOptions(), key, value));
    model[key] = value;
    if (i % 1000 == 999) ASSERT_OK(db->Flush(FlushOptions()));
  }
  for (int i = 0; i < 3000; i += 7) {
    ASSERT_OK(db->Delete(WriteOptions(), keys[i]));
    model.erase(keys[i]);
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  testing::ExpectReadsMatchModel(db.get(), model, keys);
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  testing::ExpectReadsMatchModel(db.get(), model, keys);
  ASSERT_OK(db->VerifyChecksum());

  ASSERT_OK(db.Open(options));
  testing::ExpectReadsMatchModel(db.get(), model, keys);
}

// Ours loaded only: RocksDB refuses allow_mmap_reads with use_direct_reads
// at DB::Open.
INSTANTIATE_TEST_SUITE_P(Formats, DirectIoTest,
                         ::testing::Values(TableFormat::kBlockBased,
                                           TableFormat::kCuckooPread),
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
