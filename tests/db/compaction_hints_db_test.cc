// What RocksDB's compaction and TTL logic read back from a table builder,
// checked against BlockBasedTable on the same operations: a property
// collector's request to compact a file (RocksDB's CompactOnDeletionCollector
// marks files full of deletions), and the time properties flushes and
// compactions hand over (creation_time, the oldest ancestor time that a
// file's age falls back to and FIFO's TTL reads, and the seqno-to-time mapping
// behind preserve_internal_time_seconds and last-level tiering); on 9.x also
// the largest sequence number, which ingesting a DB's own files checks, and
// TimedPut's values, which carry their write time; and paranoid_file_checks,
// which reads each output back.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "env/composite_env_wrapper.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/metadata.h"
#include "rocksdb/system_clock.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/debug.h"
#include "rocksdb/utilities/table_properties_collectors.h"
#include "rocksdb/write_batch.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

std::string KeyOf(int i) { return testing::NumberedKey(i, 6); }

// Wall-clock seconds as the test sets them (RocksDB stamps files with
// these), so that two flushes can be hours apart without waiting.
class SettableClock : public SystemClockWrapper {
 public:
  explicit SettableClock(int64_t seconds)
      : SystemClockWrapper(SystemClock::Default()), seconds_(seconds) {}
  const char* Name() const override { return "SettableClock"; }
  Status GetCurrentTime(int64_t* unix_time) override {
    *unix_time = seconds_.load();
    return Status::OK();
  }
  void Advance(int64_t seconds) { seconds_ += seconds; }

 private:
  std::atomic<int64_t> seconds_;
};

constexpr int64_t kStartTime = 1700000000;

using testing::TableFormat;

// A DB whose tables are in `format`, with its own settable clock.
class FormatDb {
 public:
  explicit FormatDb(TableFormat format, const std::string& name)
      : clock_(std::make_shared<SettableClock>(kStartTime)),
        env_(Env::Default(), clock_),
        db_(name) {
    options.create_if_missing = true;
    options.env = &env_;
    options.disable_auto_compactions = true;
    testing::UseTableFormat(format, &options);
  }

  Status Open() { return db_.Open(options); }
  DB* operator->() const { return db_.get(); }
  DB* get() const { return db_.get(); }
  void Advance(int64_t seconds) { clock_->Advance(seconds); }

  // Writes keys [begin, end) and flushes them into one file.
  void WriteFile(int begin, int end) {
    for (int i = begin; i < end; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), "value" + KeyOf(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }

  uint64_t CompactionPending() {
    uint64_t pending = 0;
    EXPECT_TRUE(
        db_->GetIntProperty(DB::Properties::kCompactionPending, &pending));
    return pending;
  }

  // The table properties of the DB's only file.
  std::shared_ptr<const TableProperties> OnlyFileProperties() {
    TablePropertiesCollection collection;
    EXPECT_OK(db_->GetPropertiesOfAllTables(&collection));
    EXPECT_EQ(collection.size(), 1u);
    return collection.empty() ? std::make_shared<const TableProperties>()
                              : collection.begin()->second;
  }

  Options options;

 private:
  std::shared_ptr<SettableClock> clock_;
  CompositeEnvWrapper env_;
  testing::ScratchDb db_;
};

class CompactionHintsTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  FormatDb db_{GetParam(), "compaction_hints"};
};

// Records the reasons of the compactions that ran.
class CompactionReasons : public EventListener {
 public:
  void OnCompactionCompleted(DB*, const CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    reasons_.push_back(info.compaction_reason);
    changed_.notify_all();
  }
  bool WaitFor(CompactionReason reason) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [&] {
      for (CompactionReason seen : reasons_) {
        if (seen == reason) return true;
      }
      return false;
    });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<CompactionReason> reasons_;
};

TEST_P(CompactionHintsTest, FileOfDeletionsIsMarkedAndCompacted) {
  auto reasons = std::make_shared<CompactionReasons>();
  db_.options.listeners.push_back(reasons);
  db_.options.table_properties_collector_factories.push_back(
      NewCompactOnDeletionCollectorFactory(/*sliding_window_size=*/100,
                                           /*deletion_trigger=*/50));
  ASSERT_OK(db_.Open());

  // Two files below the L0 trigger (4): nothing to compact yet.
  db_.WriteFile(0, 1000);
  db_.WriteFile(1000, 2000);
  EXPECT_EQ(db_.CompactionPending(), 0u);

  // A file of deletions only: the collector asks for its compaction.
  for (int i = 0; i < 500; i++) {
    ASSERT_OK(db_->Delete(WriteOptions(), KeyOf(i)));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_EQ(db_.CompactionPending(), 1u);

  // Once compactions may run, RocksDB compacts the marked file by itself.
  ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "false"}}));
  EXPECT_TRUE(reasons->WaitFor(CompactionReason::kFilesMarkedForCompaction));
  std::string value;
  EXPECT_TRUE(db_->Get(ReadOptions(), KeyOf(10), &value).IsNotFound());
  ASSERT_OK(db_->Get(ReadOptions(), KeyOf(1500), &value));
  EXPECT_EQ(value, "value" + KeyOf(1500));
}

TEST_P(CompactionHintsTest, CreationTimeIsTheOldestAncestorTime) {
  ASSERT_OK(db_.Open());
  db_.WriteFile(0, 100);
  db_.Advance(3600);
  db_.WriteFile(50, 150);  // overlaps: the compaction merges, not moves
  db_.Advance(3600);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));

  // One file, written two hours after its oldest input was.
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].file_creation_time, uint64_t{kStartTime + 7200});
  EXPECT_EQ(files[0].oldest_ancester_time, uint64_t{kStartTime});
  const auto properties = db_.OnlyFileProperties();
  EXPECT_EQ(properties->creation_time, uint64_t{kStartTime});
  EXPECT_EQ(properties->file_creation_time, uint64_t{kStartTime + 7200});

  // And so after a reopen, from the file alone.
  ASSERT_OK(db_.Open());
  EXPECT_EQ(db_.OnlyFileProperties()->creation_time, uint64_t{kStartTime});
}

// FIFO drops files older than its TTL. RocksDB takes `ttl` (and
// `periodic_compaction_seconds`) only with its block-based tables; with any
// other table factory DB::Open refuses them rather than ignore them.
TEST_P(CompactionHintsTest, FifoTtlDropsOldFilesOrIsRefusedAtOpen) {
  db_.options.compaction_style = kCompactionStyleFIFO;
  db_.options.ttl = 3600;
  db_.options.compaction_options_fifo.max_table_files_size = 1ull << 40;
  if (GetParam() != TableFormat::kBlockBased) {
    const Status refused = db_.Open();
    EXPECT_TRUE(refused.IsNotSupported()) << refused.ToString();
    EXPECT_NE(refused.ToString().find("TTL"), std::string::npos);
    return;
  }
  ASSERT_OK(db_.Open());
  db_.WriteFile(0, 100);
  db_.Advance(1800);
  db_.WriteFile(100, 200);
  db_.Advance(1800 + 60);  // the first file is past the TTL, the second not
  db_.WriteFile(200, 300);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::string value;
  EXPECT_TRUE(db_->Get(ReadOptions(), KeyOf(50), &value).IsNotFound());
  EXPECT_OK(db_->Get(ReadOptions(), KeyOf(150), &value));
  EXPECT_OK(db_->Get(ReadOptions(), KeyOf(250), &value));
}

// paranoid_file_checks: RocksDB reads every flush and compaction output back
// through the table reader and compares a hash of its keys and values with
// what it wrote; a disagreement fails the job. Versions kept for a snapshot,
// deletes of every kind and a range deletion go through it.
TEST_P(CompactionHintsTest, ParanoidFileChecksReadEveryOutputBack) {
  db_.options.paranoid_file_checks = true;
  ASSERT_OK(db_.Open());
  db_.WriteFile(0, 300);
  const Snapshot* snapshot = db_->GetSnapshot();
  for (int i = 0; i < 300; i += 3) {
    ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), "new" + KeyOf(i)));
    ASSERT_OK(db_->Delete(WriteOptions(), KeyOf(i + 1)));
  }
  ASSERT_OK(db_->SingleDelete(WriteOptions(), KeyOf(302)));
  ASSERT_OK(db_->DeleteRange(WriteOptions(), db_->DefaultColumnFamily(),
                             KeyOf(200), KeyOf(250)));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), KeyOf(3), &value));
  EXPECT_EQ(value, "new" + KeyOf(3));
  EXPECT_TRUE(db_->Get(ReadOptions(), KeyOf(4), &value).IsNotFound());
  EXPECT_TRUE(db_->Get(ReadOptions(), KeyOf(205), &value).IsNotFound());
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  ASSERT_OK(db_->Get(at_snapshot, KeyOf(205), &value));
  EXPECT_EQ(value, "value" + KeyOf(205));
  db_->ReleaseSnapshot(snapshot);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_TRUE(db_->Get(ReadOptions(), KeyOf(205), &value).IsNotFound());
  ASSERT_OK(db_->Get(ReadOptions(), KeyOf(299), &value));
  EXPECT_EQ(value, "value" + KeyOf(299));
}

#if ROCKSDB_MAJOR >= 9
TEST_P(CompactionHintsTest, SequenceNumberBoundsAreRecorded) {
  ASSERT_OK(db_.Open());
  db_.WriteFile(0, 100);  // sequence numbers 1 to 100
  EXPECT_EQ(db_.OnlyFileProperties()->key_largest_seqno, 100u);
#if ROCKSDB_MAJOR >= 10
  EXPECT_EQ(db_.OnlyFileProperties()->key_smallest_seqno, 1u);
#endif
}
#endif

INSTANTIATE_TEST_SUITE_P(Formats, CompactionHintsTest, testing::kTableFormats,
                         testing::TableFormatName);

// The mapping of a compaction output, from two flushes an hour apart.
std::string SeqnoToTimeMapping(TableFormat format) {
  FormatDb db(format, "seqno_to_time");
  db.options.preserve_internal_time_seconds = 1000000;
  EXPECT_OK(db.Open());
  db.WriteFile(0, 100);
  db.Advance(3600);
  db.WriteFile(50, 150);
  EXPECT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  return db.OnlyFileProperties()->seqno_to_time_mapping;
}

TEST(SeqnoToTimeMappingTest, KeptByteForByteAsBlockBasedTableKeepsIt) {
  const std::string block_based = SeqnoToTimeMapping(TableFormat::kBlockBased);
#if ROCKSDB_MAJOR >= 9
  // 9.x fills a new DB's mapping at open, so every file has one.
  EXPECT_FALSE(block_based.empty());
#endif
  EXPECT_EQ(SeqnoToTimeMapping(TableFormat::kCuckooMmap), block_based);
  EXPECT_EQ(SeqnoToTimeMapping(TableFormat::kCuckooPread), block_based);
}

#if ROCKSDB_MAJOR >= 9
// TimedPut (9.x): a value with the time it was written, stored as a type of
// its own (the value packed with a preferred sequence number, which
// compactions may swap in to place old data by age). Every internal version,
// its type, sequence number and packed value included, must come out of our
// files as out of BlockBasedTable's, after a flush and after a compaction.
std::vector<std::string> TimedPutVersions(TableFormat format, bool compact) {
  FormatDb db(format, "timed_put");
  db.options.preserve_internal_time_seconds = 1000000;
  EXPECT_OK(db.Open());
  for (int i = 0; i < 200; i++) {
    WriteBatch batch;
    EXPECT_OK(batch.TimedPut(db->DefaultColumnFamily(), KeyOf(i),
                             "timed" + KeyOf(i), kStartTime - 7200 + i));
    EXPECT_OK(db->Write(WriteOptions(), &batch));
    if (i % 5 == 0) EXPECT_OK(db->Put(WriteOptions(), KeyOf(i), "plain"));
  }
  db.Advance(3600);
  EXPECT_OK(db->Flush(FlushOptions()));
  if (compact) {
    EXPECT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  }
  std::vector<std::string> seen;
  for (int i = 0; i < 200; i++) {
    std::string value;
    const Status s = db->Get(ReadOptions(), KeyOf(i), &value);
    seen.push_back(KeyOf(i) + " Get " + (s.ok() ? value : s.ToString()));
  }
  std::vector<KeyVersion> versions;
  EXPECT_OK(GetAllKeyVersions(db.get(), {}, {}, 100000, &versions));
  for (const KeyVersion& v : versions) {
    seen.push_back(v.user_key + " @" + std::to_string(v.sequence) + " " +
                   v.GetTypeName() + " " + Slice(v.value).ToString(true));
  }
  return seen;
}

TEST(TimedPutTest, VersionsMatchBlockBasedTableAfterFlushAndCompaction) {
  for (const bool compact : {false, true}) {
    SCOPED_TRACE(compact ? "compacted" : "flushed");
    const std::vector<std::string> block_based =
        TimedPutVersions(TableFormat::kBlockBased, compact);
    // 200 Get answers, then one version per key: the flush drops the rest.
    ASSERT_EQ(block_based.size(), 400u);
    // The files hold TimedPut's own type, not a plain value.
    EXPECT_NE(block_based[201].find("TypeValuePreferredSeqno"),
              std::string::npos)
        << block_based[201];
    EXPECT_EQ(block_based[1], KeyOf(1) + " Get timed" + KeyOf(1));
    EXPECT_EQ(TimedPutVersions(TableFormat::kCuckooMmap, compact), block_based);
    EXPECT_EQ(TimedPutVersions(TableFormat::kCuckooPread, compact),
              block_based);
  }
}
#endif

}  // namespace
}  // namespace rocksdb_cuckoo
