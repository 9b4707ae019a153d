// The background loader's reads are the DB's reads: once a lookup reaches a
// CuckooHashTable file, the loader reads the rest of it, and what users
// monitor and throttle reads with must see those reads as it sees
// BlockBasedTable's: the DB's statistics, EventListener::OnFileReadFinish,
// a rate limiter that charges reads, an I/O trace, and a read error. A
// lookup that may not do I/O (kBlockCacheTier) queues the load without
// reading anything itself, so every table read counted after it is the
// loader's.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/listener.h"
#include "rocksdb/rate_limiter.h"
#include "rocksdb/statistics.h"
#include "rocksdb/trace_reader_writer.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 40000;

std::string KeyOf(int i) { return testing::NumberedKey(i, 8); }
std::string ValueOf(int i) { return std::string(100, 'a' + i % 26); }

using testing::IsTableFile;

// Table file reads fail while `fail_reads` is set.
class FailingReadsFileSystem : public FileSystemWrapper {
 public:
  explicit FailingReadsFileSystem(const std::shared_ptr<FileSystem>& base)
      : FileSystemWrapper(base) {}
  const char* Name() const override { return "FailingReadsFileSystem"; }

  IOStatus NewRandomAccessFile(const std::string& name,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override {
    IOStatus s = target()->NewRandomAccessFile(name, options, result, dbg);
    if (s.ok() && IsTableFile(name)) {
      result->reset(new FailingFile(std::move(*result), &fail_reads));
    }
    return s;
  }

  std::atomic<bool> fail_reads{false};

 private:
  class FailingFile : public FSRandomAccessFileOwnerWrapper {
   public:
    FailingFile(std::unique_ptr<FSRandomAccessFile>&& file,
                const std::atomic<bool>* fail)
        : FSRandomAccessFileOwnerWrapper(std::move(file)), fail_(fail) {}
    IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                  Slice* result, char* scratch,
                  IODebugContext* dbg) const override {
      if (fail_->load()) return IOStatus::IOError("injected table read error");
      return target()->Read(offset, n, options, result, scratch, dbg);
    }

   private:
    const std::atomic<bool>* const fail_;
  };
};

// Counts the table file reads RocksDB tells listeners about.
class TableReadListener : public EventListener {
 public:
  bool ShouldBeNotifiedOnFileIO() override { return true; }
  void OnFileReadFinish(const FileOperationInfo& info) override {
    if (!IsTableFile(info.path)) return;
    reads++;
    bytes += info.length;
    if (!info.status.ok()) failed_reads++;
  }
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> failed_reads{0};
};

// Counts the records of an I/O trace.
class CountingTraceWriter : public TraceWriter {
 public:
  explicit CountingTraceWriter(std::atomic<uint64_t>* records)
      : records_(records) {}
  Status Write(const Slice& record) override {
    (*records_)++;
    bytes_ += record.size();
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  uint64_t GetFileSize() override { return bytes_; }

 private:
  std::atomic<uint64_t>* const records_;
  uint64_t bytes_ = 0;
};

class BackgroundLoadReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = std::make_shared<FailingReadsFileSystem>(FileSystem::Default());
    env_ = NewCompositeEnv(fs_);
    options_.create_if_missing = true;
    options_.env = env_.get();
    options_.allow_mmap_reads = false;
    options_.statistics = CreateDBStatistics();
    options_.listeners.push_back(listener_);
    // Fast enough never to wait; it charges reads as well as writes.
    limiter_.reset(NewGenericRateLimiter(int64_t{1} << 40, 100 * 1000, 10,
                                         RateLimiter::Mode::kAllIo));
    options_.rate_limiter = limiter_;
    CuckooHashTableOptions table;
    table.load_in_background = true;
    options_.table_factory = NewCuckooHashTableFactory(table);
    ASSERT_OK(db_.Open(options_));
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), ValueOf(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    ASSERT_EQ(files.size(), 1u);
    file_size_ = files[0].size;
    // Reopened: the file is open, its bulk not read yet.
    ASSERT_OK(db_.Open(options_));
    no_io_.read_tier = kBlockCacheTier;
  }

  uint64_t StatisticsReadBytes() const {
    return options_.statistics->getTickerCount(NON_LAST_LEVEL_READ_BYTES) +
           options_.statistics->getTickerCount(LAST_LEVEL_READ_BYTES);
  }

  // Queues the background load without reading: the lookup may not do I/O.
  // It is answered only when the loader it started, on another core, got
  // through the whole file before the lookup looked (seen under load).
  void QueueLoad() {
    std::string value;
    const Status s = db_->Get(no_io_, KeyOf(kKeys / 2), &value);
    if (s.ok()) {
      EXPECT_EQ(value, ValueOf(kKeys / 2));
      return;
    }
    ASSERT_TRUE(s.IsIncomplete()) << s.ToString();
  }

  // Whether the loader read the whole file (lookups that may not do I/O
  // are answered then), within a minute.
  bool WaitUntilLoaded() {
    std::string value;
    for (int tries = 0; tries < 6000; ++tries) {
      if (!db_->Get(no_io_, KeyOf(kKeys - 1), &value).IsIncomplete()) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::shared_ptr<FailingReadsFileSystem> fs_;
  std::unique_ptr<Env> env_;
  std::shared_ptr<TableReadListener> listener_ =
      std::make_shared<TableReadListener>();
  std::shared_ptr<RateLimiter> limiter_;
  Options options_;
  testing::ScratchDb db_{"background_load_reads"};
  ReadOptions no_io_;
  uint64_t file_size_ = 0;
};

// Statistics, listeners and the rate limiter each see the loader's reads,
// the same bytes, and most of the file (opening it read only its ends).
TEST_F(BackgroundLoadReadsTest, StatisticsListenersAndRateLimiterSeeThem) {
  const uint64_t stats_before = StatisticsReadBytes();
  const uint64_t listened_before = listener_->bytes;
  const uint64_t charged_before = limiter_->GetTotalBytesThrough(Env::IO_LOW);
  ASSERT_NO_FATAL_FAILURE(QueueLoad());
  ASSERT_TRUE(WaitUntilLoaded());

  const uint64_t listened = listener_->bytes - listened_before;
  EXPECT_GE(listened, file_size_ / 2) << "file of " << file_size_ << " bytes";
  EXPECT_EQ(StatisticsReadBytes() - stats_before, listened);
  EXPECT_EQ(limiter_->GetTotalBytesThrough(Env::IO_LOW) - charged_before,
            listened)
      << "background loads are charged at low priority";
  EXPECT_EQ(listener_->failed_reads, 0u);

  std::string value;
  for (int i = 0; i < kKeys; i += 97) {
    ASSERT_OK(db_->Get(no_io_, KeyOf(i), &value));
    EXPECT_EQ(value, ValueOf(i));
  }
}

// An I/O trace started after the file was opened records the loader's reads.
TEST_F(BackgroundLoadReadsTest, AnIoTraceRecordsThem) {
  std::atomic<uint64_t> records{0};
  ASSERT_OK(db_->StartIOTrace(TraceOptions(),
                              std::make_unique<CountingTraceWriter>(&records)));
  const uint64_t reads_before = listener_->reads;
  const uint64_t records_before = records;
  ASSERT_NO_FATAL_FAILURE(QueueLoad());
  ASSERT_TRUE(WaitUntilLoaded());
  const uint64_t reads = listener_->reads - reads_before;
  ASSERT_GT(reads, 1u);
  EXPECT_GE(records - records_before, reads);
  ASSERT_OK(db_->EndIOTrace());
}

// A failed background read is reported as the failure of a table read, and
// the range it left unloaded is read again, with its error, by the lookup
// that needs it: never NotFound or a wrong value. Once the disk is back,
// every key reads.
TEST_F(BackgroundLoadReadsTest, AFailedReadIsReportedAndReadAgainByALookup) {
  fs_->fail_reads = true;
  ASSERT_NO_FATAL_FAILURE(QueueLoad());
  for (int tries = 0; tries < 6000 && listener_->failed_reads == 0; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(listener_->failed_reads, 0u) << "the loader's failed read";

  std::string value;
  int errors = 0;
  for (int i = 0; i < kKeys; i += 997) {
    const Status s = db_->Get(ReadOptions(), KeyOf(i), &value);
    if (s.ok()) {
      EXPECT_EQ(value, ValueOf(i));
    } else {
      EXPECT_TRUE(s.IsIOError()) << KeyOf(i) << ": " << s.ToString();
      errors++;
    }
  }
  EXPECT_GT(errors, 0);

  fs_->fail_reads = false;
  for (int i = 0; i < kKeys; i += 997) {
    ASSERT_OK(db_->Get(ReadOptions(), KeyOf(i), &value));
    EXPECT_EQ(value, ValueOf(i));
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
