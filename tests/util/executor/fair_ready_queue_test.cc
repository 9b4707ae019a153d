// FairReadyQueue on its own: priority first, then the client with the fewest
// running, then the one served longest ago; FIFO per client; re-pushing a
// queued task only updates its word; RemoveIf; starved clients, which
// untagged work never makes.

#include "util/executor/fair_ready_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace rocksdb_cuckoo {
namespace {

class FairReadyQueueTest : public ::testing::Test {
 protected:
  ExecutorTask* Make(const void* client, TaskPriority priority) {
    tasks_.push_back(std::make_unique<ExecutorTask>());
    ExecutorTask* task = tasks_.back().get();
    task->client = client;
    task->priority = priority;
    return task;
  }
  ExecutorTask* PopTask() {
    ExecutorTask* task = nullptr;
    uint64_t word = 0;
    EXPECT_TRUE(queue_.Pop(&task, &word));
    return task;
  }

  FairReadyQueue queue_;
  std::vector<std::unique_ptr<ExecutorTask>> tasks_;
  int a_ = 0;
  int b_ = 0;
};

TEST_F(FairReadyQueueTest, PriorityThenTurnsThenFifo) {
  ExecutorTask* a1 = Make(&a_, TaskPriority::kNormal);
  ExecutorTask* a2 = Make(&a_, TaskPriority::kNormal);
  ExecutorTask* a3 = Make(&a_, TaskPriority::kNormal);
  ExecutorTask* b1 = Make(&b_, TaskPriority::kNormal);
  ExecutorTask* low = Make(&b_, TaskPriority::kLow);
  ExecutorTask* high = Make(&a_, TaskPriority::kHigh);
  for (ExecutorTask* t : {a1, a2, a3, b1, low, high}) {
    EXPECT_TRUE(queue_.Push(t, 7));
  }
  EXPECT_EQ(queue_.size(), 6u);
  EXPECT_EQ(PopTask(), high);  // a now has one running
  EXPECT_EQ(PopTask(), b1);    // fewest running: b
  queue_.Finished(&a_);
  queue_.Finished(&b_);
  EXPECT_EQ(PopTask(), a1);  // a was served longer ago than b
  queue_.Finished(&a_);
  EXPECT_EQ(PopTask(), a2);  // b has only a low-priority task left
  queue_.Finished(&a_);
  EXPECT_EQ(PopTask(), a3);
  EXPECT_EQ(PopTask(), low);
  EXPECT_TRUE(queue_.empty());
  ExecutorTask* none = nullptr;
  uint64_t word = 0;
  EXPECT_FALSE(queue_.Pop(&none, &word));
}

TEST_F(FairReadyQueueTest, PushingAQueuedTaskOnlyUpdatesItsWord) {
  ExecutorTask* t = Make(&a_, TaskPriority::kNormal);
  EXPECT_TRUE(queue_.Push(t, 1));
  EXPECT_FALSE(queue_.Push(t, 9));
  EXPECT_EQ(queue_.size(), 1u);
  ExecutorTask* popped = nullptr;
  uint64_t word = 0;
  ASSERT_TRUE(queue_.Pop(&popped, &word));
  EXPECT_EQ(popped, t);
  EXPECT_EQ(word, 9u);
}

TEST_F(FairReadyQueueTest, RemoveIfUnlinksOnlyTheChosen) {
  std::vector<ExecutorTask*> all;
  for (int i = 0; i < 6; ++i) {
    all.push_back(Make(i % 2 ? &a_ : &b_, TaskPriority::kNormal));
    queue_.Push(all.back(), 0);
  }
  queue_.RemoveIf([&](ExecutorTask* t) { return t->client == &a_; });
  EXPECT_EQ(queue_.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ExecutorTask* t = PopTask();
    EXPECT_EQ(t->client, &b_);
    queue_.Finished(&b_);
  }
  EXPECT_TRUE(queue_.empty());
}

TEST_F(FairReadyQueueTest, StarvedMeansQueuedWithNothingRunning) {
  queue_.Push(Make(&a_, TaskPriority::kNormal), 0);
  queue_.Push(Make(&a_, TaskPriority::kNormal), 0);
  EXPECT_TRUE(queue_.HasStarved());
  PopTask();  // a runs one
  EXPECT_FALSE(queue_.HasStarved());
  ExecutorTask* b1 = Make(&b_, TaskPriority::kLow);
  queue_.Push(b1, 0);
  EXPECT_TRUE(queue_.HasStarved());
  ExecutorTask* popped = nullptr;
  uint64_t word = 0;
  ASSERT_TRUE(queue_.PopStarved(&popped, &word));
  EXPECT_EQ(popped, b1);  // a's queued task has a sibling running
  EXPECT_FALSE(queue_.PopStarved(&popped, &word));
}

// Untagged work (client null: a user's own jobs, RocksDB's untagged ones)
// is no DB's: queued, it is not starved, and while it runs no DB is, so the
// pool's helper never runs a DB's job beside it.
TEST_F(FairReadyQueueTest, UntaggedWorkNeverMakesADbStarved) {
  queue_.Push(Make(nullptr, TaskPriority::kNormal), 0);
  EXPECT_FALSE(queue_.HasStarved());
  EXPECT_EQ(PopTask()->client, nullptr);  // the untagged task runs
  ExecutorTask* b1 = Make(&b_, TaskPriority::kNormal);
  queue_.Push(b1, 0);
  EXPECT_FALSE(queue_.HasStarved());
  ExecutorTask* popped = nullptr;
  uint64_t word = 0;
  EXPECT_FALSE(queue_.PopStarved(&popped, &word));
  queue_.Finished(nullptr);
  EXPECT_TRUE(queue_.HasStarved());
  ASSERT_TRUE(queue_.PopStarved(&popped, &word));
  EXPECT_EQ(popped, b1);
}

}  // namespace
}  // namespace rocksdb_cuckoo
