// A table read into memory (allow_mmap_reads=false) loads each chunk the
// first time a lookup reaches it. Threads that reach the same chunks at
// once, by Get, MultiGet and iterators, must each see the file's bytes:
// every key found with its value, under ThreadSanitizer no race on the
// buffer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "table/cuckoo_hash_table.h"
#include "table/internal_iterator.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_harness.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::InternalKeyOf;
using testing::TableHarness;

constexpr int kKeys = 30000;
constexpr int kThreads = 4;

// 8-byte big-endian integers: key order is numeric order, and the identity
// hash applies.
std::string UserKey(int i) {
  std::string key(8, '\0');
  for (int b = 0; b < 8; b++) {
    key[7 - b] =
        static_cast<char>((static_cast<uint64_t>(i) >> (8 * b)) & 0xff);
  }
  return key;
}
std::string ValueOf(int i) { return std::string(50 + i % 30, 'a' + i % 26); }

// Parameters: identity_as_first_hash, load_in_background (the loader's
// thread then loads chunks while the lookups do).
class LazyLoadingTest
    : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  void SetUp() override {
    CuckooHashTableOptions options;
    options.identity_as_first_hash = std::get<0>(GetParam());
    options.load_in_background = std::get<1>(GetParam());
    static int counter = 0;
    harness_ = std::make_unique<TableHarness>(
        NewCuckooHashTableFactory(options),
        ::testing::TempDir() + "/lazy_loading_" + std::to_string(getpid()) +
            "_" + std::to_string(counter++) + ".sst",
        /*mmap=*/false);
    std::vector<std::pair<std::string, std::string>> entries;
    for (int i = 0; i < kKeys; i++) {
      entries.emplace_back(InternalKeyOf(UserKey(i), 1, kTypeValue),
                           ValueOf(i));
    }
    ASSERT_OK(harness_->Build(entries));
    ASSERT_OK(harness_->Open());
  }

  std::unique_ptr<TableHarness> harness_;
};

TEST_P(LazyLoadingTest, ThreadsLoadingTheSameChunksAllReadTheFile) {
  std::atomic<int> wrong{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      // Each thread walks the keys from its own starting point, so chunks
      // are first reached by different threads, often by several at once.
      for (int n = 0; n < kKeys; n++) {
        const int i = (n + t * kKeys / kThreads) % kKeys;
        if (t % 2 == 0) {
          const TableHarness::GetResult r = harness_->Get(UserKey(i));
          wrong += !r.status.ok() || r.value != ValueOf(i);
        } else if (n % 16 == 0) {
          std::vector<std::string> keys;
          for (int k = i; k < std::min(i + 16, kKeys); k++) {
            keys.push_back(UserKey(k));
          }
          const std::vector<TableHarness::GetResult> results =
              harness_->MultiGet(keys);
          for (size_t k = 0; k < keys.size(); k++) {
            wrong += !results[k].status.ok() ||
                     results[k].value != ValueOf(i + static_cast<int>(k));
          }
        }
      }
    });
  }
  // And a scan, which reads the order index and the data in key order.
  threads.emplace_back([&] {
    while (!go.load()) std::this_thread::yield();
    std::unique_ptr<InternalIterator> it(
        harness_->reader()->NewIterator(ReadOptions(), nullptr, nullptr, false,
                                        TableReaderCaller::kUserIterator));
    int i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
      wrong +=
          ExtractUserKey(it->key()) != UserKey(i) || it->value() != ValueOf(i);
    }
    wrong += !it->status().ok() || i != kKeys;
  });
  go = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Hashes, LazyLoadingTest,
    ::testing::Combine(::testing::Bool(), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<bool, bool>>& info) {
      return std::string(std::get<0>(info.param) ? "Identity" : "Hashed") +
             (std::get<1>(info.param) ? "WithLoader" : "LookupsOnly");
    });

}  // namespace
}  // namespace rocksdb_cuckoo
