// The background loader: its queue (jobs run in order; Remove takes a queued
// job out, and stops and waits for a running one), and tables read into
// memory that hand themselves to it on their first lookup. Closing a table
// while it loads must be safe (ASan, TSan), and damage the loader meets must
// still reach the lookups as Corruption.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/iostats_context.h"
#include "table/background_loader.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/numbered_table.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_harness.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::CountCorruptLookups;
using testing::NumberedEntries;
using testing::NumberedUserKey;
using testing::NumberedValue;
using testing::ReadWholeFile;
using testing::TableHarness;
using testing::WriteWholeFile;

// Polls `done` for up to a minute (sanitizers are slow); its last answer.
template <typename Done>
bool WaitFor(Done done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(BackgroundLoaderTest, RunsJobsInOrderAndSkipsRemovedOnes) {
  std::mutex mu;
  std::vector<int> ran;
  std::atomic<bool> release{false};
  BackgroundLoader::Job jobs[3];
  for (int i = 0; i < 3; i++) {
    jobs[i].load = [&, i](const std::atomic<bool>&) {
      // The first job holds the loader until released, so that the others
      // are still queued when one of them is removed.
      while (i == 0 && !release.load()) std::this_thread::yield();
      std::lock_guard<std::mutex> lock(mu);
      ran.push_back(i);
    };
  }
  BackgroundLoader& loader = BackgroundLoader::Instance();
  for (BackgroundLoader::Job& job : jobs) loader.Add(&job);
  loader.Remove(&jobs[1]);
  release = true;
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return ran.size() == 2;
  }));
  // Removing a job that already ran is a no-op.
  loader.Remove(&jobs[2]);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(ran, (std::vector<int>{0, 2}));
}

TEST(BackgroundLoaderTest, RemoveStopsARunningJobAndWaitsForItToReturn) {
  std::atomic<bool> started{false};
  std::atomic<bool> returned{false};
  BackgroundLoader::Job job;
  job.load = [&](const std::atomic<bool>& stop) {
    started = true;
    while (!stop.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    returned = true;
  };
  BackgroundLoader::Instance().Add(&job);
  ASSERT_TRUE(WaitFor([&] { return started.load(); }));
  BackgroundLoader::Instance().Remove(&job);
  EXPECT_TRUE(returned.load());
}

class BackgroundLoadingTest : public ::testing::Test {
 protected:
  static constexpr int kKeys = 40000;

  void Build(bool load_in_background) {
    static int counter = 0;
    CuckooHashTableOptions options;
    options.load_in_background = load_in_background;
    harness_ = std::make_unique<TableHarness>(
        NewCuckooHashTableFactory(options),
        ::testing::TempDir() + "/cuckoo_background_" +
            std::to_string(getpid()) + "_" + std::to_string(counter++) + ".sst",
        /*mmap=*/false);
    ASSERT_OK(harness_->Build(NumberedEntries(kKeys)));
    file_size_ = ReadWholeFile(harness_->path()).size();
  }
  void TearDown() override {
    if (harness_ != nullptr) std::remove(harness_->path().c_str());
  }

  uint64_t Loaded() { return harness_->reader()->ApproximateMemoryUsage(); }
  int GetAll() { return CountCorruptLookups(harness_.get(), kKeys); }

  std::unique_ptr<TableHarness> harness_;
  uint64_t file_size_ = 0;
};

TEST_F(BackgroundLoadingTest, FirstLookupHasTheRestOfTheFileLoaded) {
  Build(/*load_in_background=*/true);
  ASSERT_OK(harness_->Open());
  // Opening loads only the small regions, and nothing else follows until a
  // lookup comes (a file that is only compacted is read by its iterator).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LT(Loaded(), file_size_ / 20);
  EXPECT_EQ(harness_->Get(NumberedUserKey(7)).value, NumberedValue(7));
  ASSERT_TRUE(WaitFor([&] { return Loaded() >= file_size_; }))
      << Loaded() << " of " << file_size_ << " bytes loaded";
  // Everything is in memory: lookups read nothing from the file.
  const uint64_t before = get_iostats_context()->bytes_read;
  EXPECT_EQ(GetAll(), 0);
  EXPECT_EQ(get_iostats_context()->bytes_read, before);
}

TEST_F(BackgroundLoadingTest, WithoutItLookupsLoadOnlyWhatTheyReach) {
  Build(/*load_in_background=*/false);
  ASSERT_OK(harness_->Open());
  EXPECT_EQ(harness_->Get(NumberedUserKey(7)).value, NumberedValue(7));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(Loaded(), file_size_ / 2);
}

TEST_F(BackgroundLoadingTest, ClosingATableWhileItLoadsIsSafe) {
  Build(/*load_in_background=*/true);
  for (int round = 0; round < 20; round++) {
    ASSERT_OK(harness_->Open());
    EXPECT_EQ(harness_->Get(NumberedUserKey(round)).value,
              NumberedValue(round));
    // Some rounds close at once, others after part of the file loaded.
    std::this_thread::sleep_for(std::chrono::microseconds(round * 500));
  }
  // The last reader, left to finish, is whole.
  ASSERT_TRUE(WaitFor([&] { return Loaded() >= file_size_; }));
  EXPECT_EQ(GetAll(), 0);
}

TEST_F(BackgroundLoadingTest, DamageTheLoaderMeetsFailsTheLookupsThatReachIt) {
  Build(/*load_in_background=*/true);
  // A flipped byte in the data region (the file's first), away from the
  // first key's entry.
  std::string damaged = ReadWholeFile(harness_->path());
  ASSERT_GT(damaged.size(), 400000u);
  damaged[300000] ^= 0x10;
  ASSERT_TRUE(WriteWholeFile(harness_->path(), damaged));
  ASSERT_OK(harness_->Open());
  const TableHarness::GetResult first = harness_->Get(NumberedUserKey(0));
  ASSERT_TRUE(first.status.ok() || first.status.IsCorruption());
  ASSERT_TRUE(WaitFor([&] { return Loaded() >= file_size_; }));
  // The loader read the damaged chunk but did not pass it: the keys in it
  // fail, every other key reads right.
  const int corrupt = GetAll();
  EXPECT_GT(corrupt, 0);
  EXPECT_LT(corrupt, kKeys / 10);
}

}  // namespace
}  // namespace rocksdb_cuckoo
