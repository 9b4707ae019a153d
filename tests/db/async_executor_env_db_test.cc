// Real DBs on AsyncExecutorEnv: open/write/flush/compact/close cycles on one
// DB and on several DBs sharing the Env, and closing a DB whose compactions
// are still queued (RocksDB's close path counts on UnSchedule's exact
// answer). Not labelled `concurrent`: Debian's librocksdb is not
// TSan-instrumented (see tests/CMakeLists.txt); release and ASan run these.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/thread_status.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"
#include "util/async_executor_env.h"
#include "util/executor/task_executor.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::CompactRangeOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::WriteOptions;

#ifdef CUCKOO_SANITIZED
constexpr int kKeys = 4000;
#else
constexpr int kKeys = 20000;
#endif

std::string Key(int i) { return testing::NumberedKey(i, 8); }

std::string Value(int i, int round) {
  return std::string(100, static_cast<char>('a' + (i + round) % 26)) +
         std::to_string(round);
}

class AsyncExecutorEnvDbTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }

  void SetUp() override {
    root_ = ::testing::TempDir() + "/async_executor_env_db_" +
            std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    ConfigOptions config;
    config.ignore_unknown_options = false;
    config.ignore_unsupported_options = false;
    Env* env = nullptr;
    ASSERT_OK(
        Env::CreateFromString(config, "AsyncExecutorEnv", &env, &env_guard_));
    env_ = env->CheckedCast<AsyncExecutorEnv>();
    ASSERT_NE(env_, nullptr);
  }

  void TearDown() override { std::filesystem::remove_all(root_); }

  // Small memtables and files, so that a few thousand writes make many
  // flushes and compactions.
  Options SmallBufferOptions() const {
    Options options;
    options.env = env_;
    options.create_if_missing = true;
    options.write_buffer_size = 32 << 10;
    options.max_write_buffer_number = 3;
    options.level0_file_num_compaction_trigger = 2;
    options.target_file_size_base = 32 << 10;
    options.max_bytes_for_level_base = 128 << 10;
    options.max_background_jobs = 4;
    return options;
  }

  static void WriteRound(DB* db, int round) {
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, round)));
    }
  }

  static void CheckRound(DB* db, int round) {
    std::string value;
    for (int i = 0; i < kKeys; i += 7) {
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &value));
      ASSERT_EQ(value, Value(i, round)) << Key(i);
    }
  }

  std::string root_;
  std::shared_ptr<Env> env_guard_;
  AsyncExecutorEnv* env_ = nullptr;
};

TEST_F(AsyncExecutorEnvDbTest, OpenWriteFlushCompactCloseCycles) {
  const std::string path = root_ + "/db";
  for (int round = 0; round < 3; ++round) {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(SmallBufferOptions(), path, &raw));
    std::unique_ptr<DB> db(raw);
    if (round > 0) CheckRound(db.get(), round - 1);  // survived the reopen
    WriteRound(db.get(), round);
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    CheckRound(db.get(), round);
    ASSERT_OK(db->Close());
  }
  // DB::Open sized the pools the DB needs; its jobs ran on our threads.
  EXPECT_GE(env_->GetBackgroundThreads(Env::LOW), 1);
  EXPECT_GE(env_->GetBackgroundThreads(Env::HIGH), 1);
  const PoolStats high = env_->executor().GetPoolStats(Env::HIGH);
  const PoolStats low = env_->executor().GetPoolStats(Env::LOW);
  EXPECT_GT(high.completed(), 3u) << env_->StatsString();
  EXPECT_GT(low.completed(), 3u) << env_->StatsString();
}

// One DB beside the user's own long job (an untagged Env::Schedule) runs no
// more jobs at once than its pools hold, as on Env::Default(): with LOW = 1
// held by that job and HIGH = 0 (flushes then run in LOW), the DB's flush
// waits for the job. The pool's helper serves a DB only while other DBs'
// jobs hold every thread, and untagged work is no DB's.
TEST_F(AsyncExecutorEnvDbTest, UntaggedJobHoldsThePoolAndTheFlushWaits) {
  Options options = SmallBufferOptions();
  options.disable_auto_compactions = true;
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, root_ + "/db", &raw));
  std::unique_ptr<DB> db(raw);
  env_->SetBackgroundThreads(1, Env::LOW);
  env_->SetBackgroundThreads(0, Env::HIGH);
  struct Sleeper {
    std::atomic<bool> started{false};
    std::atomic<bool> release{false};
  } sleeper;
  env_->Schedule(
      [](void* arg) {
        auto* s = static_cast<Sleeper*>(arg);
        s->started = true;
        while (!s->release) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      },
      &sleeper, Env::LOW);
  while (!sleeper.started) std::this_thread::yield();

  ASSERT_OK(db->Put(WriteOptions(), Key(1), Value(1, 0)));
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db->Flush(no_wait));
  // Long enough for a flush of one key to have run, had a thread run it.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::string files;
  ASSERT_TRUE(db->GetProperty("rocksdb.num-files-at-level0", &files));
  EXPECT_EQ(files, "0");
  EXPECT_GE(env_->GetThreadPoolQueueLen(Env::LOW), 1u);

  sleeper.release = true;
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_TRUE(db->GetProperty("rocksdb.num-files-at-level0", &files));
  EXPECT_EQ(files, "1");
  EXPECT_EQ(env_->executor().GetPoolStats(Env::LOW).helper_runs, 0u)
      << env_->StatsString();
  ASSERT_OK(db->Close());
}

// RocksDB's DBTest.GetThreadStatus and ThreadStatusFlush: its own pools
// register their threads with its thread status, so that GetThreadList shows
// them by pool (and, with enable_thread_tracking, the job each runs). Ours
// did not, and the list was empty.
TEST_F(AsyncExecutorEnvDbTest, ThreadListShowsThePoolsThreads) {
  Options options = SmallBufferOptions();
  options.enable_thread_tracking = true;
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, root_ + "/db", &raw));
  std::unique_ptr<DB> db(raw);
  env_->SetBackgroundThreads(2, Env::HIGH);
  env_->SetBackgroundThreads(3, Env::LOW);
  env_->SetBackgroundThreads(1, Env::BOTTOM);
  // A thread registers itself once it runs.
  std::map<ROCKSDB_NAMESPACE::ThreadStatus::ThreadType, int> counts;
  for (int i = 0; i < 1000; i++) {
    std::vector<ROCKSDB_NAMESPACE::ThreadStatus> threads;
    ASSERT_OK(env_->GetThreadList(&threads));
    counts.clear();
    for (const auto& t : threads) counts[t.thread_type]++;
    if (counts[ROCKSDB_NAMESPACE::ThreadStatus::HIGH_PRIORITY] == 2 &&
        counts[ROCKSDB_NAMESPACE::ThreadStatus::LOW_PRIORITY] == 3 &&
        counts[ROCKSDB_NAMESPACE::ThreadStatus::BOTTOM_PRIORITY] == 1) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(counts[ROCKSDB_NAMESPACE::ThreadStatus::HIGH_PRIORITY], 2);
  EXPECT_EQ(counts[ROCKSDB_NAMESPACE::ThreadStatus::LOW_PRIORITY], 3);
  EXPECT_EQ(counts[ROCKSDB_NAMESPACE::ThreadStatus::BOTTOM_PRIORITY], 1);
  ASSERT_OK(db->Close());
}

TEST_F(AsyncExecutorEnvDbTest, SeveralDbsShareTheEnv) {
  constexpr int kDbs = 3;
  std::vector<std::unique_ptr<DB>> dbs;
  for (int d = 0; d < kDbs; ++d) {
    DB* raw = nullptr;
    ASSERT_OK(
        OpenDB(SmallBufferOptions(), root_ + "/db" + std::to_string(d), &raw));
    dbs.emplace_back(raw);
  }
  for (int round = 0; round < 2; ++round) {
    std::vector<std::thread> writers;
    for (auto& db : dbs) {
      writers.emplace_back([&db, round] { WriteRound(db.get(), round); });
    }
    for (auto& t : writers) t.join();
    std::vector<std::thread> compactors;
    for (auto& db : dbs) {
      compactors.emplace_back([&db] {
        ASSERT_OK(db->Flush(FlushOptions()));
        ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      });
    }
    for (auto& t : compactors) t.join();
    for (auto& db : dbs) CheckRound(db.get(), round);
  }
  for (auto& db : dbs) ASSERT_OK(db->Close());
  EXPECT_GT(env_->executor().GetPoolStats(Env::LOW).completed(),
            static_cast<uint64_t>(kDbs))
      << env_->StatsString();
  // Every DB is closed: nothing of theirs is left queued.
  EXPECT_EQ(env_->GetThreadPoolQueueLen(Env::LOW), 0u);
  EXPECT_EQ(env_->GetThreadPoolQueueLen(Env::HIGH), 0u);
}

// With no LOW threads, compactions only queue up; Close must unschedule
// exactly those (their counters decide when Close stops waiting) and
// return. Reopening shows the data intact.
TEST_F(AsyncExecutorEnvDbTest, CloseUnschedulesQueuedCompactions) {
  const std::string path = root_ + "/db";
  Options options = SmallBufferOptions();
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, path, &raw));
  std::unique_ptr<DB> db(raw);
  env_->SetBackgroundThreads(0, Env::LOW);
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 0)));
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  EXPECT_GE(env_->GetThreadPoolQueueLen(Env::LOW), 1u) << env_->StatsString();
  ASSERT_OK(db->Close());
  db.reset();
  EXPECT_EQ(env_->GetThreadPoolQueueLen(Env::LOW), 0u);
  EXPECT_GE(env_->executor().GetPoolStats(Env::LOW).cancelled, 1u);

  env_->SetBackgroundThreads(1, Env::LOW);
  ASSERT_OK(OpenDB(options, path, &raw));
  db.reset(raw);
  std::string value;
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &value));
    EXPECT_EQ(value, Value(i, 0));
  }
  ASSERT_OK(db->Close());
}

// Thread pools resized while DBs flush and compact.
TEST_F(AsyncExecutorEnvDbTest, ResizingPoolsUnderLoad) {
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(SmallBufferOptions(), root_ + "/db", &raw));
  std::unique_ptr<DB> db(raw);
  std::atomic<bool> writing{true};
  std::thread resizer([&] {
    for (int i = 0; writing.load(); ++i) {
      env_->SetBackgroundThreads(1 + i % 4, Env::LOW);
      env_->SetBackgroundThreads(1 + i % 2, Env::HIGH);
      std::this_thread::yield();
    }
  });
  WriteRound(db.get(), 0);
  writing.store(false);
  resizer.join();
  env_->SetBackgroundThreads(2, Env::LOW);
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  CheckRound(db.get(), 0);
  ASSERT_OK(db->Close());
}

// The controls RocksDB gives users over background work, all of which go
// through the Env's pools: pausing and continuing it (a flush waits, then
// runs), raising max_background_jobs at run time (the pools grow), and
// cancelling all of it before a close.
TEST_F(AsyncExecutorEnvDbTest, PauseContinueGrowAndCancelBackgroundWork) {
  DB* raw = nullptr;
  Options options = SmallBufferOptions();
  options.max_background_jobs = 2;
  ASSERT_OK(OpenDB(options, root_ + "/db", &raw));
  std::unique_ptr<DB> db(raw);

  ASSERT_OK(db->PauseBackgroundWork());
  ASSERT_OK(db->Put(WriteOptions(), Key(0), Value(0, 0)));
  std::atomic<bool> flushed{false};
  std::thread flusher([&] {
    EXPECT_OK(db->Flush(FlushOptions()));
    flushed.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(flushed.load()) << "a flush ran while background work paused";
  ASSERT_OK(db->ContinueBackgroundWork());
  flusher.join();
  EXPECT_TRUE(flushed.load());
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  EXPECT_EQ(files.size(), 1u);

  ASSERT_OK(db->SetDBOptions({{"max_background_jobs", "8"}}));
  EXPECT_GE(env_->GetBackgroundThreads(Env::LOW), 6);
  WriteRound(db.get(), 1);
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  CheckRound(db.get(), 1);

  WriteRound(db.get(), 2);
  ROCKSDB_NAMESPACE::CancelAllBackgroundWork(db.get(), /*wait=*/true);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(OpenDB(options, root_ + "/db", &raw));
  db.reset(raw);
  CheckRound(db.get(), 2);
  ASSERT_OK(db->Close());
}

#if ROCKSDB_MAJOR > 11 || (ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR >= 3)
// RocksDB 11 opens table files (open_files_async) and creates the next WAL
// (async_wal_precreate) in HIGH-priority jobs with no tag, which Close
// cannot unschedule and waits for: they must run to the end on our pool,
// also when Close comes right after Open.
TEST_F(AsyncExecutorEnvDbTest, AsyncFileOpensAndWalPrecreation) {
  const std::string path = root_ + "/db";
  Options options = SmallBufferOptions();
  options.open_files_async = true;
  options.skip_stats_update_on_db_open = true;  // open_files_async needs it
  options.async_wal_precreate = true;
  options.table_factory = NewCuckooHashTableFactory(CuckooHashTableOptions());
  const uint64_t high_before =
      env_->executor().GetPoolStats(Env::HIGH).completed();
  for (int round = 0; round < 4; ++round) {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path, &raw));
    std::unique_ptr<DB> db(raw);
    if (round > 0) CheckRound(db.get(), round - 1);
    WriteRound(db.get(), round);
    ASSERT_OK(db->Flush(FlushOptions()));
    CheckRound(db.get(), round);
    ASSERT_OK(db->Close());
    // Straight from Open to Close, with the file opens still in flight.
    ASSERT_OK(OpenDB(options, path, &raw));
    db.reset(raw);
    ASSERT_OK(db->Close());
  }
  EXPECT_GT(env_->executor().GetPoolStats(Env::HIGH).completed(), high_before)
      << env_->StatsString();
  EXPECT_EQ(env_->GetThreadPoolQueueLen(Env::HIGH), 0u);
}
#endif

}  // namespace
}  // namespace rocksdb_cuckoo
