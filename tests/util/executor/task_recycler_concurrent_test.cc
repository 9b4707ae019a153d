// TaskRecycler: tasks freed on one thread are handed to allocating threads
// a batch at a time, and all of them once the freeing thread ends; a reused
// task comes back with every field at its initial value.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "util/executor/task_recycler.h"

namespace rocksdb_cuckoo {
namespace {

// Enough to use up what the acquiring thread holds from earlier tests in
// the process and reach what others shared since.
constexpr int kManyMore = 1024;

std::vector<ExecutorTask*> AcquireMany(int n) {
  std::vector<ExecutorTask*> tasks;
  for (int i = 0; i < n; ++i) tasks.push_back(TaskRecycler::Acquire());
  return tasks;
}

// How many of `freed` are among `acquired`.
size_t Reused(const std::vector<ExecutorTask*>& freed,
              const std::vector<ExecutorTask*>& acquired) {
  const std::set<ExecutorTask*> got(acquired.begin(), acquired.end());
  return std::count_if(freed.begin(), freed.end(),
                       [&](ExecutorTask* t) { return got.count(t) > 0; });
}

void ReleaseAll(const std::vector<ExecutorTask*>& tasks) {
  for (ExecutorTask* t : tasks) TaskRecycler::Release(t);
}

TEST(TaskRecyclerTest, AFullBatchFreedOnAnotherThreadIsReusedWhileItRuns) {
  if (!TaskRecycler::kRecycles) GTEST_SKIP() << "no reuse under sanitizers";
  const std::vector<ExecutorTask*> freed = AcquireMany(TaskRecycler::kBatch);
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  bool done = false;
  std::thread freeing([&] {
    ReleaseAll(freed);
    std::unique_lock<std::mutex> lock(mu);
    released = true;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });  // alive while the main thread looks
  });
  std::vector<ExecutorTask*> acquired;
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return released; });
    acquired = AcquireMany(kManyMore);
    done = true;
    cv.notify_all();
  }
  freeing.join();
  EXPECT_EQ(Reused(freed, acquired), freed.size());
  ReleaseAll(acquired);
}

TEST(TaskRecyclerTest, AnEndingThreadSharesWhatItFreed) {
  if (!TaskRecycler::kRecycles) GTEST_SKIP() << "no reuse under sanitizers";
  // Fewer than a batch: shared only because the thread ends.
  const std::vector<ExecutorTask*> freed = AcquireMany(5);
  std::thread([&] { ReleaseAll(freed); }).join();
  const std::vector<ExecutorTask*> acquired = AcquireMany(kManyMore);
  EXPECT_EQ(Reused(freed, acquired), freed.size());
  ReleaseAll(acquired);
}

TEST(TaskRecyclerTest, AReusedTaskComesBackAsNew) {
  std::vector<ExecutorTask*> tasks = AcquireMany(TaskRecycler::kBatch);
  int captured = 0;
  for (ExecutorTask* t : tasks) {
    t->run = [&captured] { ++captured; };
    t->on_cancel = [&captured] { ++captured; };
    t->tag = &captured;
    t->client = &captured;
    t->pool = 3;
    t->posted = true;
    t->refs.store(7);
    t->word.store(TaskWord(TaskState::kDone));
    t->in_ready_queue = true;
  }
  std::thread([&] { ReleaseAll(tasks); }).join();
  const std::vector<ExecutorTask*> freed = tasks;
  tasks = AcquireMany(kManyMore);
  if (TaskRecycler::kRecycles) {
    EXPECT_EQ(Reused(freed, tasks), freed.size());
  }
  for (ExecutorTask* t : tasks) {
    EXPECT_FALSE(t->run);
    EXPECT_FALSE(t->on_cancel);
    EXPECT_EQ(t->tag, nullptr);
    EXPECT_EQ(t->client, nullptr);
    EXPECT_EQ(t->pool, 0);
    EXPECT_FALSE(t->posted);
    EXPECT_EQ(t->refs.load(), 0u);
    EXPECT_EQ(t->word.load(), 0u);
    EXPECT_FALSE(t->in_ready_queue);
  }
  ReleaseAll(tasks);
  EXPECT_EQ(captured, 0);
}

}  // namespace
}  // namespace rocksdb_cuckoo
