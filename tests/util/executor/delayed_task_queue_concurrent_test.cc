// DelayedTaskQueue: delayed tasks come due in wake-time order, not before
// their time; a task whose word moved on (cancelled, snoozed) is dropped or
// rescheduled without being searched for; CancelTagged and Stop cancel
// exactly the delayed tasks they name, each once.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "util/executor/delayed_task_queue.h"
#include "util/executor/executor_task.h"
#include "util/executor/task_recycler.h"

namespace rocksdb_cuckoo {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kMillis = 1000 * 1000;

class DelayedTaskQueueTest : public ::testing::Test {
 protected:
  DelayedTaskQueueTest()
      : queue_([this](ExecutorTask* t) { Record(&due_, t); },
               [this](ExecutorTask* t) { Record(&cancelled_, t); }) {}
  ~DelayedTaskQueueTest() override {
    queue_.Stop();
    for (ExecutorTask* t : due_) t->Unref();
    for (ExecutorTask* t : cancelled_) t->Unref();
    for (ExecutorTask* t : ours_) t->Unref();
  }

  // A delayed task identified by `id` (its pool), due `delay_ms` from now,
  // with one reference for the queue and one kept here.
  ExecutorTask* NewTask(int id, int64_t delay_ms, const void* tag = nullptr) {
    return NewTaskAt(id, SteadyNanos() + delay_ms * kMillis, tag);
  }
  // Wake times from one clock reading do not drift apart when the test
  // thread stalls between creating tasks (loaded machines, sanitizers).
  ExecutorTask* NewTaskAt(int id, int64_t wake_nanos,
                          const void* tag = nullptr) {
    ExecutorTask* task = TaskRecycler::Acquire();
    task->pool = id;
    task->tag = tag;
    task->refs.store(2);
    task->word.store(TaskWord(TaskState::kDelayed, WakeAt(wake_nanos)));
    ours_.push_back(task);
    return task;
  }

  void Record(std::vector<ExecutorTask*>* list, ExecutorTask* task) {
    std::lock_guard<std::mutex> lock(mu_);
    list->push_back(task);
    if (list == &due_) due_at_.push_back(SteadyNanos());
    cv_.notify_all();
  }

  // Waits (up to 10 s) until `n` tasks came due; their ids, in order.
  std::vector<int> WaitForDue(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, 10s, [&] { return due_.size() >= n; });
    std::vector<int> ids;
    for (ExecutorTask* t : due_) ids.push_back(t->pool);
    return ids;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ExecutorTask*> due_;
  std::vector<int64_t> due_at_;
  std::vector<ExecutorTask*> cancelled_;
  std::vector<ExecutorTask*> ours_;
  DelayedTaskQueue queue_;
};

TEST_F(DelayedTaskQueueTest, TasksComeDueInWakeOrderAndNotBefore) {
  const int64_t start = SteadyNanos();
  queue_.WatchNew(NewTaskAt(3, start + 60 * kMillis));
  queue_.WatchNew(NewTaskAt(1, start + 20 * kMillis));
  queue_.WatchNew(NewTaskAt(2, start + 40 * kMillis));
  EXPECT_EQ(WaitForDue(3), (std::vector<int>{1, 2, 3}));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_GE(due_at_[0] - start, 20 * kMillis);
  EXPECT_GE(due_at_[2] - start, 60 * kMillis);
  for (ExecutorTask* t : due_) {
    EXPECT_EQ(StateOf(t->word.load()), TaskState::kReady);
  }
  EXPECT_TRUE(cancelled_.empty());
}

// The delays below leave the test thread 100 ms to act on a task before it
// comes due: a stalled thread must not make it late.
TEST_F(DelayedTaskQueueTest, ACancelledTaskIsDroppedUnseen) {
  ExecutorTask* cancelled = NewTask(1, 100);
  queue_.WatchNew(cancelled);
  queue_.WatchNew(NewTask(2, 300));
  const uint64_t word = cancelled->word.load();
  ASSERT_TRUE(cancelled->Transition(word, TaskState::kCancelled));
  queue_.NoteStaleEntry(cancelled);
  EXPECT_EQ(WaitForDue(1), (std::vector<int>{2}));
  std::this_thread::sleep_for(20ms);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(due_.size(), 1u);
  EXPECT_TRUE(cancelled_.empty());
}

// Timeouts added and cancelled before their time are the common case: they
// must not pile up in the inbox while the timer thread sleeps. The pushing
// thread files the inbox once per batch of its pushes, on its own thread.
TEST_F(DelayedTaskQueueTest, CancelledTimeoutsAreDroppedOncePerBatch) {
  // Asleep until the first task's time, an hour away.
  queue_.WatchNew(NewTask(0, 3600 * 1000));
  std::this_thread::sleep_for(50ms);
  const size_t n = DelayedTaskQueue::kInboxBatch;
  std::vector<ExecutorTask*> tasks;
  for (size_t i = 0; i < n; ++i) tasks.push_back(NewTask(1, 3600 * 1000));
  size_t still_held = 0;
  // A thread of its own: the batch counts a thread's pushes, so its last
  // push here files the inbox.
  std::thread pusher([&] {
    for (ExecutorTask* task : tasks) {
      queue_.WatchNew(task);
      const uint64_t word = task->word.load();
      ASSERT_TRUE(task->Transition(word, TaskState::kCancelled));
      queue_.NoteStaleEntry(task);
    }
    // At once, by the last push. That task was filed before it was
    // cancelled, so its heap entry keeps it.
    for (size_t i = 0; i + 1 < n; ++i) {
      if (tasks[i]->refs.load() != 1) ++still_held;
    }
  });
  pusher.join();
  EXPECT_EQ(still_held, 0u) << "cancelled tasks the queue still references";
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_TRUE(due_.empty());
  EXPECT_TRUE(cancelled_.empty());
}

// With nothing filed the timer thread sleeps a second at most, so a task
// due later than that is not announced to it, and must still come due.
TEST_F(DelayedTaskQueueTest, ATaskDueAfterTheIdleWakeComesDueOnTime) {
  queue_.WatchNew(NewTask(0, 1));
  EXPECT_EQ(WaitForDue(1), (std::vector<int>{0}));
  std::this_thread::sleep_for(20ms);  // the thread is asleep, idle
  const int64_t start = SteadyNanos();
  queue_.WatchNew(NewTaskAt(1, start + 1300 * kMillis));
  EXPECT_EQ(WaitForDue(2), (std::vector<int>{0, 1}));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_GE(due_at_[1] - start, 1300 * kMillis);
  EXPECT_LT(due_at_[1] - start, 3000 * kMillis) << "late";
}

TEST_F(DelayedTaskQueueTest, ASnoozedTaskComesDueAtItsNewTime) {
  const int64_t start = SteadyNanos();
  ExecutorTask* task = NewTaskAt(1, start + 100 * kMillis);
  queue_.WatchNew(task);
  // Snooze: a new wake time in a new turn, announced by Watch.
  const uint64_t word = task->word.load();
  ASSERT_TRUE(task->Replace(word, NextWord(word, TaskState::kDelayed,
                                           WakeAt(start + 300 * kMillis))));
  task->Ref();
  queue_.Watch(task);
  EXPECT_EQ(WaitForDue(1), (std::vector<int>{1}));
  std::this_thread::sleep_for(20ms);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(due_.size(), 1u) << "came due twice";
  EXPECT_GE(due_at_[0] - start, 300 * kMillis);
}

TEST_F(DelayedTaskQueueTest, ATaskSnoozedLaterInItsTurnWaitsForTheNewTime) {
  const int64_t start = SteadyNanos();
  ExecutorTask* task = NewTaskAt(1, start + 100 * kMillis);
  queue_.WatchNew(task);
  std::this_thread::sleep_for(2ms);  // filed in the heap by now, most likely
  // Snooze later: only the wake time changes; nothing tells the queue.
  const uint64_t word = task->word.load();
  ASSERT_TRUE(
      task->Replace(word, WithWake(word, WakeAt(start + 300 * kMillis))));
  EXPECT_EQ(WaitForDue(1), (std::vector<int>{1}));
  std::this_thread::sleep_for(20ms);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(due_.size(), 1u) << "came due twice";
  EXPECT_GE(due_at_[0] - start, 300 * kMillis);
}

TEST_F(DelayedTaskQueueTest, CancelTaggedFindsTasksSnoozedLaterInTheirTurn) {
  int tag = 0;
  ExecutorTask* task = NewTask(0, 10000, &tag);
  queue_.WatchNew(task);
  const uint64_t word = task->word.load();
  ASSERT_TRUE(task->Replace(word, WithWake(word, WakeOf(word) + 1000)));
  std::vector<ExecutorTask*> out;
  queue_.CancelTagged(0, &tag, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(StateOf(task->word.load()), TaskState::kCancelled);
  out[0]->Unref();
}

TEST_F(DelayedTaskQueueTest, CancelTaggedTakesExactlyTheTaggedTasks) {
  int tag_a = 0;
  int tag_b = 0;
  queue_.WatchNew(NewTask(0, 10000, &tag_a));
  queue_.WatchNew(NewTask(0, 10000, &tag_b));
  queue_.WatchNew(NewTask(1, 10000, &tag_a));
  queue_.WatchNew(NewTask(0, 10000, &tag_a));
  std::vector<ExecutorTask*> out;
  queue_.CancelTagged(0, &tag_a, &out);
  ASSERT_EQ(out.size(), 2u);
  for (ExecutorTask* t : out) {
    EXPECT_EQ(t->tag, &tag_a);
    EXPECT_EQ(t->pool, 0);
    EXPECT_EQ(StateOf(t->word.load()), TaskState::kCancelled);
    t->Unref();
  }
  out.clear();
  queue_.CancelTagged(0, &tag_a, &out);
  EXPECT_TRUE(out.empty()) << "cancelled twice";
}

TEST_F(DelayedTaskQueueTest, StopCancelsWhatIsPendingAndWhatComesAfter) {
  queue_.WatchNew(NewTask(1, 10000));
  queue_.WatchNew(NewTask(2, 20000));
  queue_.Stop();
  queue_.WatchNew(NewTask(3, 10));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_TRUE(due_.empty());
  ASSERT_EQ(cancelled_.size(), 3u);
  for (ExecutorTask* t : cancelled_) {
    EXPECT_EQ(StateOf(t->word.load()), TaskState::kCancelled);
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
