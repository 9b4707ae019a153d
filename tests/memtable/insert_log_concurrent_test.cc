// InsertLog: the entries inserted since the striped_hash memtable's sorted
// view was last renewed. An entry the log lost while saying it was complete
// would be missing from every later iterator: a silent wrong answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "memtable/insert_log.h"

namespace rocksdb_cuckoo {
namespace {

std::vector<HashNode*> Sorted(std::vector<HashNode*> nodes) {
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

TEST(InsertLogTest, OffUntilRestarted) {
  InsertLog log;
  HashNode node;
  log.Record(&node, 0);
  std::vector<HashNode*> taken;
  EXPECT_FALSE(log.Take(&taken));
  EXPECT_TRUE(taken.empty());
  EXPECT_EQ(log.MemoryUsage(), 0u);
}

TEST(InsertLogTest, TakesWhatWasRecordedOnEveryCpuOnce) {
  InsertLog log;
  log.Restart(300);
  std::vector<HashNode> nodes(15);
  std::vector<HashNode*> recorded;
  for (size_t i = 0; i < nodes.size(); ++i) {
    log.Record(&nodes[i], static_cast<int>(i % 3));
    recorded.push_back(&nodes[i]);
  }
  std::vector<HashNode*> taken;
  ASSERT_TRUE(log.Take(&taken));
  EXPECT_EQ(Sorted(taken), Sorted(recorded));
  EXPECT_GT(log.MemoryUsage(), 0u);
  taken.clear();
  ASSERT_TRUE(log.Take(&taken));
  EXPECT_TRUE(taken.empty());
  log.Stop();
  EXPECT_EQ(log.MemoryUsage(), 0u);
  EXPECT_FALSE(log.Take(&taken));
}

TEST(InsertLogTest, MoreThanTheLimitTurnsItOffUntilRestarted) {
  InsertLog log;
  log.Restart(300);
  std::vector<HashNode> nodes(301);
  for (HashNode& node : nodes) log.Record(&node, 0);
  std::vector<HashNode*> taken;
  EXPECT_FALSE(log.Take(&taken));
  // Later records do not turn it back on.
  log.Record(&nodes[0], 1);
  EXPECT_FALSE(log.Take(&taken));
  log.Restart(300);
  taken.clear();
  log.Record(&nodes[0], 1);
  ASSERT_TRUE(log.Take(&taken));
  EXPECT_EQ(taken, std::vector<HashNode*>{&nodes[0]});
}

TEST(InsertLogTest, ShardsTogetherAreBoundedToo) {
  // Each shard stays below the limit, but four of them hold far more than
  // it: the memory passes twice the limit's and the log turns off.
  InsertLog log(/*num_shards=*/4);
  log.Restart(1000);
  std::vector<HashNode> nodes(4 * 900);
  for (size_t i = 0; i < nodes.size(); ++i) {
    log.Record(&nodes[i], static_cast<int>(i / 900));
  }
  std::vector<HashNode*> taken;
  EXPECT_FALSE(log.Take(&taken));
  // Two shards' worth (1024 entries each, the vectors' growth), not four:
  // shards stop growing once the log is off.
  EXPECT_LT(log.MemoryUsage(), 3 * 1024 * sizeof(HashNode*));
}

// Writers record while a reader takes: every entry recorded comes out of
// exactly one Take.
TEST(InsertLogConcurrentTest, EveryRecordIsTakenOnce) {
  constexpr int kWriters = 4;
  constexpr int kPerWriter = 20000;
  InsertLog log;
  log.Restart(kWriters * kPerWriter);
  std::vector<HashNode> nodes(kWriters * kPerWriter);
  std::atomic<int> writers_left{kWriters};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        // Writers share CPUs' shards, as threads on one CPU do.
        log.Record(&nodes[w * kPerWriter + i], (w + i) % 3);
      }
      writers_left.fetch_sub(1);
    });
  }
  std::vector<HashNode*> taken;
  bool complete = true;
  while (writers_left.load() > 0) complete = log.Take(&taken) && complete;
  for (std::thread& t : threads) t.join();
  complete = log.Take(&taken) && complete;
  EXPECT_TRUE(complete);
  std::vector<HashNode*> all;
  for (HashNode& node : nodes) all.push_back(&node);
  EXPECT_EQ(Sorted(taken), Sorted(all));
}

}  // namespace
}  // namespace rocksdb_cuckoo
