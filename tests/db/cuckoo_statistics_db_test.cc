// A CuckooHashTable's fingerprints do the job of BlockBasedTable's bloom
// filter, so lookups count in the same statistics tickers that users'
// dashboards already watch: BLOOM_FILTER_USEFUL for a key the fingerprints
// alone proved absent, BLOOM_FILTER_FULL_POSITIVE for one that passed them,
// BLOOM_FILTER_FULL_TRUE_POSITIVE for one that was then found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/utilities/object_registry.h"
#include "tests/support/db_open.h"
#include "tests/support/status_assertions.h"

namespace {

using namespace ROCKSDB_NAMESPACE;

std::string Key(int i) { return "key" + std::to_string(i); }

class CuckooStatisticsTest : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }

  void SetUp() override {
    path_ = ::testing::TempDir() + "/cuckoo_statistics_" +
            std::to_string(getpid()) + (GetParam() ? "_mmap" : "");
    ConfigOptions config;
    config.ignore_unknown_options = false;
    ASSERT_OK(GetOptionsFromString(
        config, Options(),
        std::string("create_if_missing=true;allow_mmap_reads=") +
            (GetParam() ? "true" : "false") +
            ";table_factory={id=CuckooHashTable}",
        &options_));
    options_.statistics = CreateDBStatistics();
    DestroyDB(path_, options_).PermitUncheckedError();
    DB* raw = nullptr;
    ASSERT_OK(rocksdb_cuckoo::OpenDB(options_, path_, &raw));
    db_.reset(raw);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), "v" + std::to_string(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    options_.statistics->Reset().PermitUncheckedError();
  }

  void TearDown() override {
    db_.reset();
    DestroyDB(path_, options_).PermitUncheckedError();
  }

  uint64_t Ticker(Tickers t) const {
    return options_.statistics->getTickerCount(t);
  }

  static constexpr int kKeys = 2000;
  std::string path_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_P(CuckooStatisticsTest, GetCountsLikeABloomFilter) {
  std::string value;
  for (int i = 0; i < kKeys; i++) {
    ASSERT_OK(db_->Get(ReadOptions(), Key(i), &value));
  }
  EXPECT_EQ(Ticker(BLOOM_FILTER_FULL_TRUE_POSITIVE), uint64_t{kKeys});
  EXPECT_EQ(Ticker(BLOOM_FILTER_FULL_POSITIVE), uint64_t{kKeys});
  EXPECT_EQ(Ticker(BLOOM_FILTER_USEFUL), 0u);

  constexpr int kAbsent = 5000;
  for (int i = 0; i < kAbsent; i++) {
    ASSERT_TRUE(db_->Get(ReadOptions(), "absent" + std::to_string(i), &value)
                    .IsNotFound());
  }
  // 16-bit fingerprints: about one absent key in 8000 per probed slot
  // passes, so nearly all are filtered and the rest are false positives.
  const uint64_t useful = Ticker(BLOOM_FILTER_USEFUL);
  const uint64_t false_positives =
      Ticker(BLOOM_FILTER_FULL_POSITIVE) - uint64_t{kKeys};
  EXPECT_EQ(useful + false_positives, uint64_t{kAbsent});
  EXPECT_GT(useful, uint64_t{kAbsent} * 99 / 100);
  EXPECT_EQ(Ticker(BLOOM_FILTER_FULL_TRUE_POSITIVE), uint64_t{kKeys});
}

TEST_P(CuckooStatisticsTest, MultiGetCountsEveryKeyOfTheBatch) {
  std::vector<std::string> keys;
  for (int i = 0; i < 32; i++) {
    keys.push_back(i % 2 == 0 ? Key(i) : "absent" + std::to_string(i));
  }
  std::vector<Slice> slices(keys.begin(), keys.end());
  std::vector<PinnableSlice> values(keys.size());
  std::vector<Status> statuses(keys.size());
  db_->MultiGet(ReadOptions(), db_->DefaultColumnFamily(), keys.size(),
                slices.data(), values.data(), statuses.data());
  for (size_t i = 0; i < keys.size(); i++) {
    EXPECT_EQ(statuses[i].ok(), i % 2 == 0) << i;
  }
  EXPECT_EQ(Ticker(BLOOM_FILTER_FULL_TRUE_POSITIVE), 16u);
  EXPECT_EQ(Ticker(BLOOM_FILTER_USEFUL) + Ticker(BLOOM_FILTER_FULL_POSITIVE),
            32u);
  EXPECT_GE(Ticker(BLOOM_FILTER_USEFUL), 14u);
}

INSTANTIATE_TEST_SUITE_P(Mmap, CuckooStatisticsTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "mmap" : "pread";
                         });

}  // namespace
