// HashSlotIndex on its own: every key found and no other, versions linked
// newest first whatever order they arrive in, duplicates refused, the array
// doubling as it fills, and concurrent inserts and lookups across doublings.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "memtable/hash_slot_index.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

// Nodes laid out as the memtable lays them out: a HashNode, then the entry
// exactly as MemTable::Add encodes it.
class NodeArena {
 public:
  HashNode* Make(const std::string& user_key, uint64_t sequence) {
    std::string entry;
    ROCKSDB_NAMESPACE::PutVarint32(&entry,
                                   static_cast<uint32_t>(user_key.size() + 8));
    entry += user_key;
    ROCKSDB_NAMESPACE::PutFixed64(&entry, sequence << 8 | 1 /* a Put */);
    ROCKSDB_NAMESPACE::PutVarint32(&entry, 0);
    std::unique_ptr<char[]> memory(new char[sizeof(HashNode) + entry.size()]);
    HashNode* node = new (memory.get()) HashNode();
    memcpy(node->entry(), entry.data(), entry.size());
    std::lock_guard<std::mutex> lock(mu_);
    memory_.push_back(std::move(memory));
    return node;
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> memory_;
};

HashSlotIndex::InsertResult Insert(HashSlotIndex* index, HashNode* node) {
  return index->Insert(node, DecodeEntryKey(node->entry()), /*cpu=*/0);
}

std::string Key(int i) { return "key" + std::to_string(i); }

TEST(HashSlotIndexTest, FindsEveryKeyAndNoOtherAcrossDoublings) {
  NodeArena arena;
  HashSlotIndex index(/*initial_slots=*/16, /*max_load_factor=*/0.5);
  std::vector<HashNode*> nodes;
  int grew = 0;
  for (int i = 0; i < 2000; ++i) {
    nodes.push_back(arena.Make(Key(i), 1));
    const HashSlotIndex::InsertResult r = Insert(&index, nodes.back());
    ASSERT_TRUE(r.inserted);
    ASSERT_TRUE(r.new_key);
    grew += r.grew;
  }
  EXPECT_GE(grew, 6);  // 16 slots to at least 4096
  EXPECT_GE(index.NumSlots(), 4000u);
  EXPECT_EQ(index.NumKeys(), 2000u);
  EXPECT_EQ(index.NumEntries(), 2000u);
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(index.Find(Key(i), 0).head, nodes[i]) << Key(i);
  }
  for (int i = 2000; i < 3000; ++i) {
    EXPECT_EQ(index.Find(Key(i), 0).head, nullptr) << Key(i);
  }
  std::vector<HashNode*> heads(2000);
  EXPECT_EQ(index.CollectHeads(heads.data(), heads.size()), 2000u);
  std::sort(heads.begin(), heads.end());
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(heads, nodes);
  EXPECT_EQ(index.CollectHeads(heads.data(), 10), 2000u);  // capacity short
}

TEST(HashSlotIndexTest, VersionsLinkNewestFirstAndDuplicatesAreRefused) {
  NodeArena arena;
  HashSlotIndex index(16, 0.9);
  HashNode* v3 = arena.Make("k", 3);
  HashNode* v1 = arena.Make("k", 1);
  HashNode* v2 = arena.Make("k", 2);
  EXPECT_TRUE(Insert(&index, v3).new_key);
  const HashSlotIndex::InsertResult older = Insert(&index, v1);
  EXPECT_TRUE(older.inserted);
  EXPECT_FALSE(older.new_key);
  EXPECT_TRUE(Insert(&index, v2).inserted);  // between the two
  EXPECT_FALSE(Insert(&index, arena.Make("k", 2)).inserted);
  EXPECT_EQ(index.Find("k", 0).head, v3);
  EXPECT_EQ(NextOf(v3), v2);
  EXPECT_EQ(NextOf(v2), v1);
  EXPECT_EQ(NextOf(v1), nullptr);
  // Versions linked below the head leave it the head.
  EXPECT_FALSE(IsSuperseded(v3));
  EXPECT_FALSE(IsSuperseded(v2));
  EXPECT_FALSE(IsSuperseded(v1));
  EXPECT_EQ(index.NumKeys(), 1u);
  EXPECT_EQ(index.NumEntries(), 3u);
  // A newer version becomes the head.
  HashNode* v9 = arena.Make("k", 9);
  EXPECT_TRUE(Insert(&index, v9).inserted);
  EXPECT_EQ(index.Find("k", 0).head, v9);
  EXPECT_EQ(NextOf(v9), v3);
  // The head it replaced says so, and still links to the older versions.
  EXPECT_TRUE(IsSuperseded(v3));
  EXPECT_FALSE(IsSuperseded(v9));
  EXPECT_EQ(NextOf(v3), v2);
  // A version linked right below a superseded node keeps the mark on it.
  HashNode* m10 = arena.Make("m", 10);
  HashNode* m20 = arena.Make("m", 20);
  HashNode* m5 = arena.Make("m", 5);
  EXPECT_TRUE(Insert(&index, m10).new_key);
  EXPECT_TRUE(Insert(&index, m20).inserted);
  EXPECT_TRUE(IsSuperseded(m10));
  EXPECT_TRUE(Insert(&index, m5).inserted);
  EXPECT_EQ(NextOf(m20), m10);
  EXPECT_EQ(NextOf(m10), m5);
  EXPECT_TRUE(IsSuperseded(m10));
  EXPECT_FALSE(IsSuperseded(m20));
  EXPECT_FALSE(IsSuperseded(m5));
}

TEST(HashSlotIndexTest, ConcurrentInsertsAndLookupsAcrossDoublings) {
  constexpr int kThreads = 3;
  constexpr int kPerThread = 20000;
  NodeArena arena;
  HashSlotIndex index(16, 0.5);
  // How many keys each writer has inserted; readers look up only those.
  std::atomic<int> done[kThreads] = {};
  std::atomic<int> missing{0};
  std::atomic<bool> writing{true};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        HashNode* node = arena.Make(Key(t * kPerThread + i), 1);
        if (!index.Insert(node, DecodeEntryKey(node->entry()), t).inserted) {
          missing.fetch_add(1);
        }
        done[t].store(i + 1, std::memory_order_release);
      }
    });
  }
  std::thread reader([&] {
    uint64_t n = 0;
    while (writing.load()) {
      const int t = static_cast<int>(n++ % kThreads);
      const int inserted = done[t].load(std::memory_order_acquire);
      if (inserted == 0) continue;
      const std::string key =
          Key(t * kPerThread + static_cast<int>(n % inserted));
      if (index.Find(key, 3).head == nullptr) missing.fetch_add(1);
    }
  });
  for (std::thread& w : threads) w.join();
  writing = false;
  reader.join();
  EXPECT_EQ(missing.load(), 0);
  EXPECT_EQ(index.NumKeys(), uint64_t{kThreads} * kPerThread);
  for (int k = 0; k < kThreads * kPerThread; ++k) {
    ASSERT_NE(index.Find(Key(k), 0).head, nullptr) << Key(k);
  }
}

TEST(HashSlotIndexTest, ManyWritersShareEveryDoubling) {
  // More writers than CPUs, from 16 slots: most doublings find writers
  // waiting, which clear and rehash chunks beside the growing thread.
  constexpr int kThreads = 8;
  constexpr int kPerThread = 8000;
  NodeArena arena;
  HashSlotIndex index(16, 0.75);
  std::atomic<int> refused{0};
  std::atomic<int> doublings{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Every key twice, from two threads: versions link under the
        // doublings too.
        const int k = (t / 2) * kPerThread + i;
        HashNode* node = arena.Make(Key(k), 1 + t % 2);
        const HashSlotIndex::InsertResult r =
            index.Insert(node, DecodeEntryKey(node->entry()), t);
        if (!r.inserted) refused.fetch_add(1);
        if (r.grew) doublings.fetch_add(1);
      }
    });
  }
  for (std::thread& w : threads) w.join();
  EXPECT_EQ(refused.load(), 0);
  EXPECT_GE(doublings.load(), 10);  // 16 slots to at least 32768
  EXPECT_EQ(index.NumKeys(), uint64_t{kThreads / 2} * kPerThread);
  EXPECT_EQ(index.NumEntries(), uint64_t{kThreads} * kPerThread);
  for (int k = 0; k < kThreads / 2 * kPerThread; ++k) {
    HashNode* head = index.Find(Key(k), 0).head;
    ASSERT_NE(head, nullptr) << Key(k);
    ASSERT_EQ(SequenceOf(head), 2u) << Key(k);
    EXPECT_FALSE(IsSuperseded(head)) << Key(k);
    HashNode* older = NextOf(head);
    ASSERT_NE(older, nullptr) << Key(k);
    ASSERT_EQ(SequenceOf(older), 1u) << Key(k);
    ASSERT_EQ(NextOf(older), nullptr) << Key(k);
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
