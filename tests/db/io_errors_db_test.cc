// I/O errors on table files, injected by a file system wrapper: a failed
// write must fail its flush or compaction with the error and lose nothing
// (the memtable or the input files keep the data; RocksDB stops writes on
// such an error, and reopening the DB once the disk is back recovers all of
// it, the half-written file left aside); a failed read must answer the
// error, never
// NotFound, an old value or a short iteration, and reads must recover once
// the disk does. Ours, mapped and loaded, against BlockBasedTable.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::IsTableFile;
using testing::TableFormat;

// Fails table file writes (appends and syncs) and reads while told to.
class FaultyFileSystem : public FileSystemWrapper {
 public:
  explicit FaultyFileSystem(const std::shared_ptr<FileSystem>& base)
      : FileSystemWrapper(base) {}
  const char* Name() const override { return "FaultyFileSystem"; }

  // Appends to table files that succeed before the next one fails; -1:
  // none fails.
  std::atomic<int> appends_before_failure{-1};
  std::atomic<bool> fail_syncs{false};
  std::atomic<bool> fail_reads{false};
  // The next table file read fails; those after it succeed.
  std::atomic<bool> fail_next_read{false};
#if ROCKSDB_MAJOR >= 9
  // What each table file read was for, as its IOOptions say.
  std::mutex activities_mu;
  std::vector<Env::IOActivity> activities;
#endif
  void Record(const IOOptions& options) {
#if ROCKSDB_MAJOR >= 9
    std::lock_guard<std::mutex> lock(activities_mu);
    activities.push_back(options.io_activity);
#else
    (void)options;
#endif
  }
  std::atomic<int> failed_writes{0};
  std::atomic<int> failed_reads{0};

  IOStatus NewWritableFile(const std::string& name, const FileOptions& options,
                           std::unique_ptr<FSWritableFile>* result,
                           IODebugContext* dbg) override {
    IOStatus s = target()->NewWritableFile(name, options, result, dbg);
    if (s.ok() && IsTableFile(name)) {
      result->reset(new WritableTableFile(std::move(*result), this));
    }
    return s;
  }
  IOStatus NewRandomAccessFile(const std::string& name,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override {
    IOStatus s = target()->NewRandomAccessFile(name, options, result, dbg);
    if (s.ok() && IsTableFile(name)) {
      result->reset(new ReadableTableFile(std::move(*result), this));
    }
    return s;
  }

 private:
  IOStatus WriteFault() {
    failed_writes++;
    return IOStatus::IOError("injected table file write error");
  }
  bool AppendFails() {
    int left = appends_before_failure.load();
    while (left >= 0) {
      if (left == 0) return true;
      if (appends_before_failure.compare_exchange_weak(left, left - 1)) {
        return false;
      }
    }
    return false;
  }

  class WritableTableFile : public FSWritableFileOwnerWrapper {
   public:
    WritableTableFile(std::unique_ptr<FSWritableFile> file,
                      FaultyFileSystem* fs)
        : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs) {}
    IOStatus Append(const Slice& data, const IOOptions& options,
                    IODebugContext* dbg) override {
      if (fs_->AppendFails()) return fs_->WriteFault();
      return target()->Append(data, options, dbg);
    }
    IOStatus Append(const Slice& data, const IOOptions& options,
                    const DataVerificationInfo& info,
                    IODebugContext* dbg) override {
      if (fs_->AppendFails()) return fs_->WriteFault();
      return target()->Append(data, options, info, dbg);
    }
    IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
      if (fs_->fail_syncs) return fs_->WriteFault();
      return target()->Sync(options, dbg);
    }
    IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
      if (fs_->fail_syncs) return fs_->WriteFault();
      return target()->Fsync(options, dbg);
    }

   private:
    FaultyFileSystem* const fs_;
  };

  class ReadableTableFile : public FSRandomAccessFileOwnerWrapper {
   public:
    ReadableTableFile(std::unique_ptr<FSRandomAccessFile> file,
                      FaultyFileSystem* fs)
        : FSRandomAccessFileOwnerWrapper(std::move(file)), fs_(fs) {}
    IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                  Slice* result, char* scratch,
                  IODebugContext* dbg) const override {
      fs_->Record(options);
      if (fs_->fail_reads || fs_->fail_next_read.exchange(false)) {
        return Fault();
      }
      return target()->Read(offset, n, options, result, scratch, dbg);
    }
    IOStatus MultiRead(FSReadRequest* reqs, size_t num_reqs,
                       const IOOptions& options, IODebugContext* dbg) override {
      fs_->Record(options);
      if (fs_->fail_reads) {
        for (size_t i = 0; i < num_reqs; i++) reqs[i].status = Fault();
        return IOStatus::OK();
      }
      if (num_reqs > 0 && fs_->fail_next_read.exchange(false)) {
        IOStatus s = target()->MultiRead(reqs + 1, num_reqs - 1, options, dbg);
        reqs[0].status = Fault();
        return s;
      }
      return target()->MultiRead(reqs, num_reqs, options, dbg);
    }

   private:
    IOStatus Fault() const {
      fs_->failed_reads++;
      return IOStatus::IOError("injected table file read error");
    }
    FaultyFileSystem* const fs_;
  };
};

class IoErrorsTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  IoErrorsTest()
      : fs_(std::make_shared<FaultyFileSystem>(FileSystem::Default())),
        env_(NewCompositeEnv(fs_)),
        db_("io_errors") {
    options_.create_if_missing = true;
    options_.env = env_.get();
    options_.disable_auto_compactions = true;
    testing::UseTableFormat(GetParam(), &options_);
  }

  // Keys [begin, end) with values of many sizes: files of several 64 KiB
  // chunks.
  void Write(int begin, int end, const std::string& tag) {
    for (int i = begin; i < end; i++) {
      const std::string key = testing::NumberedKey(i, 6);
      const std::string value =
          tag + std::string(static_cast<size_t>(i * 53 % 900), 'a' + i % 26);
      ASSERT_OK(db_->Put(WriteOptions(), key, value));
      model_[key] = value;
    }
  }
  std::vector<std::string> Keys(int end) const {
    std::vector<std::string> keys;
    for (int i = 0; i < end; i++) keys.push_back(testing::NumberedKey(i, 6));
    return keys;
  }

  // Keys [0, 3000) in one table file, the DB closed: for tests of the reads
  // a lookup makes, so our table's background loader (whose reads are its
  // own) is off.
  void WriteOneFileReadByLookupsAlone() {
    if (GetParam() == TableFormat::kCuckooPread) {
      CuckooHashTableOptions table_options;
      table_options.load_in_background = false;
      options_.table_factory = NewCuckooHashTableFactory(table_options);
    }
    ASSERT_OK(db_.Open(options_));
    Write(0, 3000, "v");
    ASSERT_OK(db_->Flush(FlushOptions()));
    db_.Close();
  }

  std::shared_ptr<FaultyFileSystem> fs_;
  std::unique_ptr<Env> env_;
  Options options_;
  testing::ScratchDb db_;
  testing::Model model_;
};

TEST_P(IoErrorsTest, FailedFlushLosesNothing) {
  ASSERT_OK(db_.Open(options_));
  Write(0, 2000, "v1");
  for (const bool fail_sync : {false, true}) {
    SCOPED_TRACE(fail_sync ? "sync fails" : "an append fails");
    if (fail_sync) {
      fs_->fail_syncs = true;
    } else {
      fs_->appends_before_failure = 0;
    }
    const Status s = db_->Flush(FlushOptions());
    EXPECT_FALSE(s.ok());
    EXPECT_GT(fs_->failed_writes.load(), 0);
    // Reads still see everything (from the memtable).
    testing::ExpectReadsMatchModel(db_.get(), model_, Keys(2000));
    fs_->appends_before_failure = -1;
    fs_->fail_syncs = false;
    ASSERT_OK(db_.Open(options_));
    testing::ExpectReadsMatchModel(db_.get(), model_, Keys(2000));
    ASSERT_OK(db_->Flush(FlushOptions()));
    testing::ExpectReadsMatchModel(db_.get(), model_, Keys(2000));
    Write(0, 2000, fail_sync ? "v3" : "v2");
  }
  ASSERT_OK(db_.Open(options_));
  testing::ExpectReadsMatchModel(db_.get(), model_, Keys(2000));
}

TEST_P(IoErrorsTest, FailedCompactionKeepsItsInputs) {
  ASSERT_OK(db_.Open(options_));
  Write(0, 2000, "v1");
  ASSERT_OK(db_->Flush(FlushOptions()));
  Write(1000, 3000, "v2");
  ASSERT_OK(db_->Flush(FlushOptions()));
  fs_->appends_before_failure = 0;
  EXPECT_FALSE(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  EXPECT_GT(fs_->failed_writes.load(), 0);
  testing::ExpectReadsMatchModel(db_.get(), model_, Keys(3000));
  fs_->appends_before_failure = -1;
  ASSERT_OK(db_.Open(options_));
  testing::ExpectReadsMatchModel(db_.get(), model_, Keys(3000));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  testing::ExpectReadsMatchModel(db_.get(), model_, Keys(3000));
  ASSERT_OK(db_.Open(options_));
  testing::ExpectReadsMatchModel(db_.get(), model_, Keys(3000));
}

// An older file holds every key, a newer one half of them: a read that
// fails in the newer file must not fall through to the older value.
TEST_P(IoErrorsTest, FailedReadsAnswerTheErrorUntilTheDiskIsBack) {
  ASSERT_OK(db_.Open(options_));
  Write(0, 3000, "old");
  ASSERT_OK(db_->Flush(FlushOptions()));
  Write(0, 3000, "new");
  for (int i = 1; i < 3000; i += 2) {
    const std::string key = testing::NumberedKey(i, 6);
    ASSERT_OK(db_->Delete(WriteOptions(), key));
    model_.erase(key);
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  db_.Close();

  fs_->fail_reads = true;
  const Status open = db_.Open(options_);
  EXPECT_TRUE(open.IsIOError()) << open.ToString();
  fs_->fail_reads = false;
  // Opened with nothing read yet but what opening a table reads.
  ASSERT_OK(db_.Open(options_));
  fs_->fail_reads = true;
  fs_->failed_reads = 0;
  const int io_errors = testing::ExpectReadsMatchModel(
      db_.get(), model_, Keys(3000), testing::IoErrors::kAllowed);
  if (GetParam() == TableFormat::kCuckooMmap) {
    // Mapped files are read as memory, with no read to fail.
    EXPECT_EQ(fs_->failed_reads.load(), 0);
    EXPECT_EQ(io_errors, 0);
  } else {
    EXPECT_GT(fs_->failed_reads.load(), 0);
    EXPECT_GT(io_errors, 0);
  }
  fs_->fail_reads = false;
  testing::ExpectReadsMatchModel(db_.get(), model_, Keys(3000));
}

// RocksDB's crash test injects read errors one read in N (db_stress
// --read_fault_one_in) and requires a lookup whose read failed to answer the
// error, even where reading again would succeed. Ours read a bucket again
// after a failed load and answered the key as if nothing had happened.
TEST_P(IoErrorsTest, AFailedReadIsAnsweredNotReadAgain) {
  if (GetParam() == TableFormat::kCuckooMmap) {
    GTEST_SKIP() << "mapped files are read as memory, with no read to fail";
  }
  ASSERT_NO_FATAL_FAILURE(WriteOneFileReadByLookupsAlone());
  ASSERT_OK(db_.Open(options_));
  int failed_lookups = 0;
  for (int i = 0; i < 3000; i += 97) {
    const std::string key = testing::NumberedKey(i, 6);
    fs_->failed_reads = 0;
    fs_->fail_next_read = true;
    std::string value;
    const Status s = db_->Get(ReadOptions(), key, &value);
    fs_->fail_next_read = false;
    if (fs_->failed_reads > 0) {
      EXPECT_TRUE(s.IsIOError()) << key << ": " << s.ToString();
      failed_lookups++;
    } else {
      ASSERT_OK(s);
      EXPECT_EQ(value, model_[key]);
    }
  }
  EXPECT_GT(failed_lookups, 0);
  // The same through batched MultiGet, on a file read from the start.
  db_.Close();
  ASSERT_OK(db_.Open(options_));
  const std::vector<std::string> keys = Keys(3000);
  std::vector<Slice> slices(keys.begin(), keys.end());
  std::vector<PinnableSlice> values(keys.size());
  std::vector<Status> statuses(keys.size());
  fs_->failed_reads = 0;
  fs_->fail_next_read = true;
  db_->MultiGet(ReadOptions(), db_->DefaultColumnFamily(), keys.size(),
                slices.data(), values.data(), statuses.data());
  fs_->fail_next_read = false;
  ASSERT_EQ(fs_->failed_reads.load(), 1);
  int io_errors = 0;
  for (size_t k = 0; k < keys.size(); k++) {
    if (statuses[k].IsIOError()) {
      io_errors++;
    } else {
      ASSERT_OK(statuses[k]);
      EXPECT_EQ(values[k].ToString(), model_[keys[k]]);
    }
  }
  EXPECT_GT(io_errors, 0);
}

#if ROCKSDB_MAJOR >= 9
// Every file read a lookup causes carries the lookup's options: RocksDB's
// debug builds assert that a read during a Get says kGet (and during a
// compaction kCompaction, ...), and the options carry the read's deadline.
// Ours loaded chunks with default options, which RocksDB's whitebox crash
// test stopped on at once.
TEST_P(IoErrorsTest, FileReadsCarryTheActivityOfTheirRead) {
  if (GetParam() == TableFormat::kCuckooMmap) {
    GTEST_SKIP() << "mapped files are read as memory, with no read to see";
  }
  ASSERT_NO_FATAL_FAILURE(WriteOneFileReadByLookupsAlone());
  const std::vector<std::string> keys = Keys(3000);
  // Each on a file not read yet but for what opening it read.
  auto reads_of = [&](const std::function<void()>& lookup) {
    db_.Close();
    EXPECT_OK(db_.Open(options_));
    {
      std::lock_guard<std::mutex> lock(fs_->activities_mu);
      fs_->activities.clear();
    }
    lookup();
    std::lock_guard<std::mutex> lock(fs_->activities_mu);
    return fs_->activities;
  };
  const auto get_reads = reads_of([&] {
    std::string value;
    EXPECT_OK(db_->Get(ReadOptions(), keys[1234], &value));
  });
  ASSERT_FALSE(get_reads.empty());
  for (const auto a : get_reads) EXPECT_EQ(a, Env::IOActivity::kGet);
  const auto multiget_reads = reads_of([&] {
    std::vector<Slice> slices(keys.begin(), keys.begin() + 100);
    std::vector<PinnableSlice> values(slices.size());
    std::vector<Status> statuses(slices.size());
    db_->MultiGet(ReadOptions(), db_->DefaultColumnFamily(), slices.size(),
                  slices.data(), values.data(), statuses.data());
    for (const auto& s : statuses) EXPECT_OK(s);
  });
  ASSERT_FALSE(multiget_reads.empty());
  for (const auto a : multiget_reads) EXPECT_EQ(a, Env::IOActivity::kMultiGet);
  const auto iterator_reads = reads_of([&] {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    it->Seek(keys[2000]);
    EXPECT_TRUE(it->Valid());
    EXPECT_OK(it->status());
  });
  ASSERT_FALSE(iterator_reads.empty());
  for (const auto a : iterator_reads) {
    EXPECT_EQ(a, Env::IOActivity::kDBIterator);
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(Formats, IoErrorsTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
