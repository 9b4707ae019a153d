// MemPurge (experimental_mempurge_threshold): when a full write buffer is
// mostly overwritten entries, RocksDB garbage-collects it into a new
// memtable instead of flushing it to a file. Below the threshold's memtable
// count it first samples the memtable (MemTableRep::UniqueRandomSample) to
// estimate how much of it is still live. Both ways, with the striped_hash
// memtable, every key must read its newest value, in memory, after a later
// flush, and after a restart (the WAL still holds what was purged, not
// flushed). Checked against RocksDB's skip list on the same operations.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
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

constexpr int kKeys = 100;
constexpr int kRounds = 400;

std::string KeyOf(int i) { return testing::NumberedKey(i, 4); }
std::string ValueOf(int i, int round) {
  return std::to_string(round) + ":" + std::string(200, 'a' + i % 26);
}

struct Case {
  TableFormat format;
  double threshold;  // 10: purge without sampling; 0.5: sample first
};

class MemPurgeTest : public ::testing::TestWithParam<Case> {
 protected:
  MemPurgeTest() {
    options_.create_if_missing = true;
    options_.write_buffer_size = 256 << 10;
    // A purge leaves its output as an immutable memtable: room for it and
    // for the next full buffer.
    options_.max_write_buffer_number = 4;
    // Every flush stays a file of its own, so the file count tells purges
    // from flushes.
    options_.disable_auto_compactions = true;
    options_.level0_slowdown_writes_trigger = 1000;
    options_.level0_stop_writes_trigger = 1000;
    options_.experimental_mempurge_threshold = GetParam().threshold;
    testing::UseTableFormat(GetParam().format, &options_);
  }

  // Waits for the flushes (or purges) the writes started.
  void WaitForFlushes() {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      uint64_t pending = 0, running = 0, immutable = 0;
      ASSERT_TRUE(
          db_->GetIntProperty(DB::Properties::kMemTableFlushPending, &pending));
      ASSERT_TRUE(
          db_->GetIntProperty(DB::Properties::kNumRunningFlushes, &running));
      ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumImmutableMemTable,
                                      &immutable));
      // A purge's output stays behind as one immutable memtable, its flush
      // still pending until the next buffer fills.
      if (running == 0 && immutable <= 1) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "flush pending " << pending << ", running " << running
          << ", immutable memtables " << immutable;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  size_t TableFiles() {
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    return files.size();
  }

  // Every key at its value of the last round.
  void ExpectNewest(const char* where) {
    SCOPED_TRACE(where);
    testing::Model newest;
    std::vector<std::string> keys;
    for (int i = 0; i < kKeys; i++) {
      keys.push_back(KeyOf(i));
      newest[KeyOf(i)] = ValueOf(i, kRounds - 1);
    }
    testing::ExpectReadsMatchModel(db_.get(), newest, keys);
  }

  Options options_;
  testing::ScratchDb db_{"mempurge"};
};

TEST_P(MemPurgeTest, OverwrittenBuffersArePurgedAndReadTheNewestValues) {
  ASSERT_OK(db_.Open(options_));
  // About 8 MiB of writes into 256 KiB buffers: some 30 full buffers, each
  // nearly all overwritten entries.
  for (int round = 0; round < kRounds; round++) {
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), ValueOf(i, round)));
    }
  }
  WaitForFlushes();
  // Purged, not flushed: a flush per full buffer would have left tens of
  // files (and their compactions) behind.
  EXPECT_LE(TableFiles(), 2u);
  ExpectNewest("in memtables, after purges");

  // (A manual flush that waits for writes not to stall never returns while
  // purged memtables count as immutable ones, with either memtable.)
  FlushOptions flush;
  flush.allow_write_stall = true;
  ASSERT_OK(db_->Flush(flush));
  EXPECT_GE(TableFiles(), 1u);
  ExpectNewest("after a flush");
  ASSERT_OK(db_.Open(options_));
  ExpectNewest("after a restart");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MemPurgeTest,
    ::testing::Values(Case{TableFormat::kBlockBased, 10.0},
                      Case{TableFormat::kCuckooPread, 10.0},
                      Case{TableFormat::kBlockBased, 0.5},
                      Case{TableFormat::kCuckooPread, 0.5}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(info.param.format == TableFormat::kBlockBased
                             ? "SkipList"
                             : "StripedHash") +
             (info.param.threshold > 1 ? "Always" : "Sampled");
    });

}  // namespace
}  // namespace rocksdb_cuckoo
