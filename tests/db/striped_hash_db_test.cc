// The striped_hash memtable inside a DB with concurrent writers
// (allow_concurrent_memtable_write), memtables small enough to be flushed
// while they write, and a reader alongside.
//
// Not labelled `concurrent`: under TSan, Debian's uninstrumented librocksdb
// hands write batches between its writer threads through atomics TSan cannot
// see, and the resulting reports are about RocksDB's and the test's memory,
// not the memtable's. striped_hash_rep_concurrent_test covers the memtable itself
// under TSan.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "plugin/rocksdb_cuckoo.h"
#if __has_include("rocksdb/advanced_cache.h")
#include "rocksdb/advanced_cache.h"  // Cache's definition since 8.x
#endif
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/write_buffer_manager.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

#ifdef CUCKOO_SANITIZED
constexpr int kBatches = 150;
#else
constexpr int kBatches = 1000;
#endif
constexpr int kWriters = 4;
constexpr int kPerBatch = 8;

std::string KeyOf(int writer, int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "w%d-%08d", writer, i);
  return buf;
}

TEST(StripedHashDbTest, ConcurrentWritersFlushesAndReaders) {
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  const std::string path =
      ::testing::TempDir() + "/striped_hash_db_" + std::to_string(getpid());
  std::filesystem::remove_all(path);
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  Options options;
  ASSERT_OK(GetOptionsFromString(
      config, Options(),
      "create_if_missing=true;memtable_factory=striped_hash;"
      "allow_concurrent_memtable_write=true;"
      "enable_write_thread_adaptive_yield=true;write_buffer_size=65536;"
      "max_write_buffer_number=4",
      &options));
  ASSERT_STREQ(options.memtable_factory->Name(), "striped_hash");
  std::unique_ptr<DB> db;
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path, &raw));
    db.reset(raw);
  }
  std::atomic<int> published[kWriters];
  for (auto& p : published) p.store(0);
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int b = 0; b < kBatches; ++b) {
        WriteBatch batch;
        for (int k = 0; k < kPerBatch; ++k) {
          const int i = b * kPerBatch + k;
          batch.Put(KeyOf(w, i), "value" + std::to_string(i));
        }
        if (!db->Write(WriteOptions(), &batch).ok()) failures.fetch_add(1);
        published[w].store((b + 1) * kPerBatch, std::memory_order_release);
      }
      writers_left.fetch_sub(1);
    });
  }
  threads.emplace_back([&] {
    std::mt19937_64 random(11);
    while (writers_left.load() > 0) {
      const int w = static_cast<int>(random() % kWriters);
      const int n = published[w].load(std::memory_order_acquire);
      if (n == 0) continue;
      const int i = static_cast<int>(random() % n);
      std::string value;
      if (!db->Get(ReadOptions(), KeyOf(w, i), &value).ok() ||
          value != "value" + std::to_string(i)) {
        failures.fetch_add(1);
      }
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);

  std::unique_ptr<Iterator> iter(db->NewIterator(ReadOptions()));
  int count = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) ++count;
  ASSERT_OK(iter->status());
  EXPECT_EQ(count, kWriters * kBatches * kPerBatch);
  iter.reset();
  // Memtables filled and were flushed while writers ran.
  std::vector<LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  EXPECT_FALSE(files.empty());
  ASSERT_OK(db->Close());
  db.reset();
  std::filesystem::remove_all(path);
}

// A DB iterator keeps its memtable iterator across Iterator::Refresh() while
// the memtable stays the same, and a tailing iterator keeps it across seeks:
// both read at a newer sequence number than the memtable iterator was made
// for, so writes made since must show. Every positioning call is checked.
class StripedHashIteratorReuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
    path_ = ::testing::TempDir() + "/striped_hash_reuse_" +
            std::to_string(getpid());
    std::filesystem::remove_all(path_);
    ConfigOptions config;
    config.ignore_unknown_options = false;
    Options options;
    ASSERT_OK(GetOptionsFromString(
        config, Options(),
        "create_if_missing=true;memtable_factory=striped_hash", &options));
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path_, &raw));
    db_.reset(raw);
    ASSERT_OK(db_->Put(WriteOptions(), "b", "old"));
    ASSERT_OK(db_->Delete(WriteOptions(), "c"));
  }
  void TearDown() override {
    if (db_) EXPECT_OK(db_->Close());
    db_.reset();
    std::filesystem::remove_all(path_);
  }
  // Writes that the iterator's first view cannot hold: a new key, a new
  // version of a key and a key that was deleted before.
  void WriteAfterIteratorMade() {
    ASSERT_OK(db_->Put(WriteOptions(), "a", "new"));
    ASSERT_OK(db_->Put(WriteOptions(), "b", "new"));
    ASSERT_OK(db_->Put(WriteOptions(), "c", "new"));
  }
  static std::string Forward(Iterator* it) {
    std::string out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out += it->key().ToString() + "=" + it->value().ToString() + " ";
    }
    EXPECT_OK(it->status());
    return out;
  }
  static std::string Backward(Iterator* it) {
    std::string out;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      out += it->key().ToString() + "=" + it->value().ToString() + " ";
    }
    EXPECT_OK(it->status());
    return out;
  }
  std::string path_;
  std::unique_ptr<DB> db_;
};

TEST_F(StripedHashIteratorReuseTest, RefreshSeesWritesMadeSince) {
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  EXPECT_EQ(Forward(it.get()), "b=old ");
  ASSERT_NO_FATAL_FAILURE(WriteAfterIteratorMade());
  // The iterator's own sequence number still hides them.
  EXPECT_EQ(Forward(it.get()), "b=old ");
  ASSERT_OK(it->Refresh());
  EXPECT_EQ(Forward(it.get()), "a=new b=new c=new ");
  ASSERT_OK(it->Refresh());
  EXPECT_EQ(Backward(it.get()), "c=new b=new a=new ");
  ASSERT_OK(db_->Put(WriteOptions(), "d", "new"));
  ASSERT_OK(it->Refresh());
  it->Seek("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "c");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "d");
  ASSERT_OK(db_->Put(WriteOptions(), "e", "new"));
  ASSERT_OK(it->Refresh());
  it->SeekForPrev("f");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "e");
}

TEST_F(StripedHashIteratorReuseTest, TailingIteratorSeesWritesMadeSince) {
  ReadOptions tailing;
  tailing.tailing = true;
  std::unique_ptr<Iterator> it(db_->NewIterator(tailing));
  it->Seek("a");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "b");
  ASSERT_NO_FATAL_FAILURE(WriteAfterIteratorMade());
  it->Seek("a");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString() + "=" + it->value().ToString(), "a=new");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString() + "=" + it->value().ToString(), "b=new");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString() + "=" + it->value().ToString(), "c=new");
  ASSERT_OK(it->status());
}

// RocksDB's DBTestTailingIterator.TailingIteratorKeepAdding: a tailing
// iterator made before the writes, whose first positioning comes after
// them. Ours positioned it first on the view it was made with and missed
// them.
TEST_F(StripedHashIteratorReuseTest,
       TailingIteratorsFirstSeekSeesWritesMadeSince) {
  ReadOptions tailing;
  tailing.tailing = true;
  std::unique_ptr<Iterator> it(db_->NewIterator(tailing));
  ASSERT_NO_FATAL_FAILURE(WriteAfterIteratorMade());
  it->Seek("a");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString() + "=" + it->value().ToString(), "a=new");
  for (int i = 0; i < 100; i++) {
    const std::string key = "k" + std::to_string(1000 + i);
    ASSERT_OK(db_->Put(WriteOptions(), key, "v"));
    it->Seek(key);
    ASSERT_TRUE(it->Valid()) << key;
    EXPECT_EQ(it->key().ToString(), key);
  }
  ASSERT_OK(it->status());
}

// RocksDB's DBTestTailingIterator.TailingIteratorSeekToNext: a tailing
// iterator at the last key steps on to keys written since, as over a skip
// list; ours ended at the last key of its view.
TEST_F(StripedHashIteratorReuseTest, TailingIteratorsNextSeesKeysWrittenSince) {
  ReadOptions tailing;
  tailing.tailing = true;
  std::unique_ptr<Iterator> it(db_->NewIterator(tailing));
  it->Seek("b");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "b");
  for (int i = 0; i < 50; i++) {
    const std::string key = "k" + std::to_string(1000 + i);
    ASSERT_OK(db_->Put(WriteOptions(), key, "v"));
    it->Next();
    ASSERT_TRUE(it->Valid()) << key;
    EXPECT_EQ(it->key().ToString(), key);
  }
  it->Next();
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
}

// Every iterator positioned after a write renews the memtable's sorted
// view: one sort, then each write merged into the last view; each iterator
// sees every key written before it was made.
TEST(StripedHashDbTest, IteratorsAfterEachWriteRenewTheView) {
  testing::ScratchDb db("striped_hash_renewals");
  auto factory = NewStripedHashMemTableFactory();
  Options options;
  options.create_if_missing = true;
  options.memtable_factory = factory;
  ASSERT_OK(db.Open(options));
  constexpr int kRounds = 600;
  for (int round = 1; round <= kRounds; ++round) {
    ASSERT_OK(db->Put(WriteOptions(), "k" + std::to_string(round), "v"));
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    int seen = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
    ASSERT_OK(it->status());
    ASSERT_EQ(seen, round);
  }
  const StripedHashMemTableStats stats = factory->GetStats();
  EXPECT_EQ(stats.sorts, 1u);
  EXPECT_EQ(stats.view_renewals, kRounds - 1u);
}

// A WriteBufferManager (db_write_buffer_size, or one shared by several DBs,
// or one that charges the block cache) counts what memtables take from
// their arenas. The index is charged there as it grows, so the manager sees
// the whole memtable, as it does RocksDB's own (which live wholly in the
// arena).
class WriteBufferManagerTest : public ::testing::TestWithParam<bool> {};

TEST_P(WriteBufferManagerTest, CountsTheIndex) {
  const bool charges_cache = GetParam();
  testing::ScratchDb db("striped_hash_write_buffer_manager");
  Options options;
  options.create_if_missing = true;
  options.memtable_factory = NewStripedHashMemTableFactory();
  std::shared_ptr<Cache> cache =
      charges_cache ? NewLRUCache(size_t{1} << 30) : nullptr;
  auto manager = std::make_shared<WriteBufferManager>(size_t{1} << 30, cache);
  options.write_buffer_manager = manager;
  ASSERT_OK(db.Open(options));
  // 16-byte keys and 100-byte values: the index is about a tenth of the
  // memtable, and the 64 MiB write buffer does not fill.
  const std::string value(100, 'v');
  for (int i = 0; i < 100000; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), testing::NumberedKey(i, 13), value));
  }
  uint64_t memtable = 0;
  ASSERT_TRUE(
      db->GetIntProperty("rocksdb.cur-size-active-mem-table", &memtable));
  ASSERT_GT(memtable, 100000u * 116);
  EXPECT_GE(manager->memory_usage(), memtable);
  if (charges_cache) {
    EXPECT_GE(cache->GetUsage(), memtable);
  }
}

INSTANTIATE_TEST_SUITE_P(StripedHash, WriteBufferManagerTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "ChargingTheBlockCache"
                                             : "Alone";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
