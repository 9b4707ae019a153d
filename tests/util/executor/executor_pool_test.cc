// ExecutorPool on its own, fed tasks as TaskExecutor makes them: what it runs
// and hands to AfterRun, stale and re-queued tasks, cancel-by-tag, thread
// counts, reservations, the helper thread for starved clients, thread names
// and hooks, priorities, statistics, and draining at shutdown. Its workers
// run on threads of their own, so the TSan configuration runs it too
// (CUCKOO_CONCURRENT_TESTS in tests/CMakeLists.txt).
#include "util/executor/executor_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/blocking_helpers.h"
#include "util/executor/task_recycler.h"

namespace rocksdb_cuckoo {
namespace {

using cuckoo_test::Counter;
using cuckoo_test::Gate;

// A ready task as TaskExecutor submits one, holding just the reference the
// pool takes over.
ExecutorTask* ReadyTask(std::function<void()> run) {
  ExecutorTask* task = TaskRecycler::Acquire();
  task->run = std::move(run);
  task->refs.store(1, std::memory_order_relaxed);
  task->word.store(TaskWord(TaskState::kReady), std::memory_order_relaxed);
  return task;
}

// What ran, in order, and where.
class RunLog {
 public:
  std::function<void()> Entry(int id) {
    return [this, id] {
      std::lock_guard<std::mutex> lock(mu_);
      ids_.push_back(id);
      threads_.push_back(std::this_thread::get_id());
    };
  }
  std::vector<int> ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_;
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard<std::mutex> lock(mu_);
    return threads_;
  }

 private:
  std::mutex mu_;
  std::vector<int> ids_;
  std::vector<std::thread::id> threads_;
};

// The words AfterRun was handed.
class AfterRuns {
 public:
  ExecutorPool::AfterRun Callback() {
    return [this](ExecutorTask* /*task*/, uint64_t running_word) {
      std::lock_guard<std::mutex> lock(mu_);
      words_.push_back(running_word);
    };
  }
  std::vector<uint64_t> words() {
    std::lock_guard<std::mutex> lock(mu_);
    return words_;
  }

 private:
  std::mutex mu_;
  std::vector<uint64_t> words_;
};

// Counts the pool's threads as they start and end, and the names they had.
struct Hooks {
  Counter starts;
  Counter exits;
  std::mutex mu;
  std::set<std::string> names;

  ExecutorPool::ThreadHooks Get() {
    ExecutorPool::ThreadHooks hooks;
    hooks.on_start = [this] {
      char name[16] = {};
      pthread_getname_np(pthread_self(), name, sizeof(name));
      {
        std::lock_guard<std::mutex> lock(mu);
        names.insert(name);
      }
      starts.Add();
    };
    hooks.on_exit = [this] { exits.Add(); };
    return hooks;
  }
};

int NiceOfThisThread() {
  return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

TEST(ExecutorPoolTest, WithoutThreadsShutdownRunsTheQueueOnTheCaller) {
  AfterRuns after;
  Hooks hooks;
  RunLog log;
  {
    ExecutorPool pool("idle", after.Callback(), hooks.Get());
    for (int id = 1; id <= 3; ++id) pool.EnqueueNew(ReadyTask(log.Entry(id)));
    EXPECT_EQ(pool.QueueLength(), 3u);
    EXPECT_EQ(pool.Stats().queue_length, 3u);
    EXPECT_EQ(pool.Stats().live_threads, 0);
    EXPECT_TRUE(log.ids().empty());
    pool.Shutdown();
    EXPECT_EQ(log.ids(), (std::vector<int>{1, 2, 3}));
    for (std::thread::id thread : log.threads()) {
      EXPECT_EQ(thread, std::this_thread::get_id());
    }
    // AfterRun gets the word each task had while it ran.
    const uint64_t running =
        NextWord(TaskWord(TaskState::kReady), TaskState::kRunning);
    EXPECT_EQ(after.words(), (std::vector<uint64_t>(3, running)));
    EXPECT_EQ(pool.QueueLength(), 0u);
    EXPECT_EQ(pool.Stats().completed(), 3u);
  }
  EXPECT_EQ(hooks.starts.value(), 0);
}

TEST(ExecutorPoolTest, PostedTasksSkipAfterRun) {
  AfterRuns after;
  RunLog log;
  ExecutorPool pool("posted", after.Callback());
  ExecutorTask* posted = ReadyTask(log.Entry(1));
  posted->posted = true;
  pool.EnqueueNew(posted);
  pool.EnqueueNew(ReadyTask(log.Entry(2)));
  pool.Shutdown();
  EXPECT_EQ(log.ids(), (std::vector<int>{1, 2}));
  EXPECT_EQ(after.words().size(), 1u);
}

// Cancelled or snoozed since it was queued: the pool drops its reference
// and neither runs it nor hands it to AfterRun.
TEST(ExecutorPoolTest, ATaskThatLeftReadyIsDroppedUnrun) {
  AfterRuns after;
  RunLog log;
  ExecutorPool pool("stale", after.Callback());
  ExecutorTask* task = ReadyTask(log.Entry(1));
  task->Ref();  // the test's, to look at it afterwards
  pool.EnqueueNew(task);
  ASSERT_TRUE(
      task->Transition(TaskWord(TaskState::kReady), TaskState::kCancelled));
  pool.NoteLeftReady();
  EXPECT_EQ(pool.QueueLength(), 0u);
  pool.Shutdown();
  EXPECT_TRUE(log.ids().empty());
  EXPECT_TRUE(after.words().empty());
  EXPECT_EQ(StateOf(task->word.load()), TaskState::kCancelled);
  EXPECT_EQ(task->refs.load(), 1u);
  task->Unref();
}

// Snoozed and ready again before its first queueing was handled, a task is
// enqueued a second time: it runs once, under its newest word, and the
// extra reference is dropped. With the helper off, a pool without threads
// leaves the first push in its inbox; with it on, the push is filed at once
// (the helper's check), so the second finds it queued.
TEST(ExecutorPoolTest, ATaskEnqueuedTwiceRunsOnceUnderItsNewestWord) {
  for (bool helper : {false, true}) {
    SCOPED_TRACE(helper ? "queued already" : "in the inbox");
    AfterRuns after;
    RunLog log;
    ExecutorPool pool("twice", after.Callback());
    pool.EnableHelper(helper);
    ExecutorTask* task = ReadyTask(log.Entry(1));
    task->Ref();  // the test's
    pool.EnqueueNew(task);
    const uint64_t first = TaskWord(TaskState::kReady);
    ASSERT_TRUE(task->Transition(first, TaskState::kDelayed));
    pool.NoteLeftReady();
    const uint64_t delayed = NextWord(first, TaskState::kDelayed);
    ASSERT_TRUE(task->Transition(delayed, TaskState::kReady));
    const uint64_t newest = NextWord(delayed, TaskState::kReady);
    task->Ref();  // the second queueing's
    pool.Enqueue(task);
    EXPECT_EQ(pool.QueueLength(), 1u);
    pool.Shutdown();
    EXPECT_EQ(log.ids(), std::vector<int>{1});
    EXPECT_EQ(after.words(),
              std::vector<uint64_t>{NextWord(newest, TaskState::kRunning)});
    EXPECT_EQ(task->refs.load(), 1u);
    task->Unref();
  }
}

TEST(ExecutorPoolTest, WorkersRunTasksOnThreadsNamedForThePool) {
  AfterRuns after;
  Hooks hooks;
  RunLog log;
  ExecutorPool pool("cuckoo-pool-with-a-long-name", after.Callback(),
                    hooks.Get());
  pool.SetThreads(2, /*allow_reduce=*/false);
  hooks.starts.WaitFor(2);
  Counter ran;
  std::mutex mu;
  std::set<std::string> task_threads;
  const std::thread::id test_thread = std::this_thread::get_id();
  for (int i = 0; i < 20; ++i) {
    pool.EnqueueNew(ReadyTask([&] {
      char name[16] = {};
      pthread_getname_np(pthread_self(), name, sizeof(name));
      {
        std::lock_guard<std::mutex> lock(mu);
        task_threads.insert(name);
      }
      EXPECT_NE(std::this_thread::get_id(), test_thread);
      ran.Add();
    }));
  }
  ran.WaitFor(20);
  pool.Shutdown();
  // Names keep 15 characters, what the kernel holds.
  EXPECT_EQ(task_threads, std::set<std::string>{"cuckoo-pool-wit"});
  EXPECT_EQ(hooks.names, std::set<std::string>{"cuckoo-pool-wit"});
  EXPECT_EQ(hooks.starts.value(), 2);
  EXPECT_EQ(hooks.exits.value(), 2);
  EXPECT_EQ(pool.Stats().completed(), 20u);
  EXPECT_EQ(after.words().size(), 20u);
}

TEST(ExecutorPoolTest, SetThreadsGrowsAtOnceAndShrinksOnlyWhenAllowed) {
  AfterRuns after;
  Hooks hooks;
  ExecutorPool pool("sizes", after.Callback(), hooks.Get());
  EXPECT_EQ(pool.threads(), 0);
  pool.SetThreads(3, /*allow_reduce=*/false);
  EXPECT_EQ(pool.threads(), 3);
  EXPECT_EQ(pool.Stats().live_threads, 3);
  pool.SetThreads(1, /*allow_reduce=*/false);
  EXPECT_EQ(pool.threads(), 3);
  pool.SetThreads(1, /*allow_reduce=*/true);
  EXPECT_EQ(pool.threads(), 1);
  hooks.exits.WaitFor(2);  // idle surplus workers retire
  EXPECT_EQ(pool.Stats().live_threads, 1);
  pool.SetThreads(-4, /*allow_reduce=*/true);
  EXPECT_EQ(pool.threads(), 0);
  hooks.exits.WaitFor(3);
  EXPECT_EQ(pool.Stats().live_threads, 0);
  // No worker is left: a task waits for Shutdown, which runs it here.
  RunLog log;
  pool.EnqueueNew(ReadyTask(log.Entry(1)));
  EXPECT_EQ(pool.QueueLength(), 1u);
  EXPECT_TRUE(log.ids().empty());
  pool.Shutdown();
  EXPECT_EQ(log.ids(), std::vector<int>{1});
  EXPECT_EQ(log.threads(),
            std::vector<std::thread::id>{std::this_thread::get_id()});
  EXPECT_EQ(hooks.starts.value(), 3);
}

TEST(ExecutorPoolTest, ReserveAndReleaseCountWhatTheyCould) {
  AfterRuns after;
  ExecutorPool pool("reserve", after.Callback());
  pool.SetThreads(2, /*allow_reduce=*/false);
  EXPECT_EQ(pool.ReserveThreads(-1), 0);
  EXPECT_EQ(pool.ReserveThreads(5), 2);  // only two threads
  EXPECT_EQ(pool.ReserveThreads(1), 0);
  EXPECT_EQ(pool.Stats().reserved, 2);
  // Every thread is held back: the task waits for one to be released.
  Counter ran;
  pool.EnqueueNew(ReadyTask([&ran] { ran.Add(); }));
  EXPECT_EQ(pool.ReleaseThreads(0), 0);
  EXPECT_EQ(ran.value(), 0);
  EXPECT_EQ(pool.ReleaseThreads(1), 1);
  ran.WaitFor(1);
  EXPECT_EQ(pool.ReleaseThreads(5), 1);
  EXPECT_EQ(pool.ReleaseThreads(1), 0);
  EXPECT_EQ(pool.ReleaseThreads(-3), 0);
  EXPECT_EQ(pool.Stats().reserved, 0);
  pool.Shutdown();
}

TEST(ExecutorPoolTest, CancelTaggedHandsBackItsReadyTasks) {
  AfterRuns after;
  RunLog log;
  ExecutorPool pool("tags", after.Callback());
  int tag_a = 0;
  int tag_b = 0;
  std::vector<ExecutorTask*> tagged_a;
  for (int id : {1, 2}) {
    tagged_a.push_back(ReadyTask(log.Entry(id)));
    tagged_a.back()->tag = &tag_a;
    pool.EnqueueNew(tagged_a.back());
  }
  ExecutorTask* b = ReadyTask(log.Entry(3));
  b->tag = &tag_b;
  pool.EnqueueNew(b);
  pool.EnqueueNew(ReadyTask(log.Entry(4)));
  // Tagged too, but cancelled already (stale in the queue).
  ExecutorTask* stale = ReadyTask(log.Entry(5));
  stale->tag = &tag_a;
  stale->Ref();  // the test's
  pool.EnqueueNew(stale);
  ASSERT_TRUE(
      stale->Transition(TaskWord(TaskState::kReady), TaskState::kCancelled));
  pool.NoteLeftReady();

  std::vector<ExecutorTask*> out;
  pool.CancelTagged(&tag_a, &out);
  EXPECT_EQ(std::set<ExecutorTask*>(out.begin(), out.end()),
            std::set<ExecutorTask*>(tagged_a.begin(), tagged_a.end()));
  for (ExecutorTask* task : out) {
    EXPECT_EQ(StateOf(task->word.load()), TaskState::kCancelled);
  }
  EXPECT_EQ(pool.QueueLength(), 2u);
  for (ExecutorTask* task : out) task->Unref();  // the caller's references
  out.clear();
  pool.CancelTagged(&tag_a, &out);
  EXPECT_TRUE(out.empty());

  pool.Shutdown();
  EXPECT_EQ(log.ids(), (std::vector<int>{3, 4}));
  EXPECT_EQ(after.words().size(), 2u);
  EXPECT_EQ(stale->refs.load(), 1u);
  stale->Unref();
}

TEST(ExecutorPoolTest, StatsCountAndPrintOnOneLine) {
  AfterRuns after;
  ExecutorPool pool("stats", after.Callback());
  pool.NoteCancelled();
  pool.NoteCancelled();
  pool.EnqueueNew(ReadyTask([] {}));
  PoolStats stats = pool.Stats();
  EXPECT_EQ(stats.cancelled, 2u);
  EXPECT_EQ(stats.queue_length, 1u);
  EXPECT_EQ(stats.completed(), 0u);
  EXPECT_EQ(stats.ToString().rfind(
                "threads=0 live=0 running=0 reserved=0 queued=1 ran=0 "
                "cancelled=2 helper_ran=0 wait[",
                0),
            0u)
      << stats.ToString();
  EXPECT_NE(stats.ToString().find("] run["), std::string::npos);
  pool.Shutdown();
  stats = pool.Stats();
  EXPECT_EQ(stats.completed(), 1u);
  EXPECT_EQ(stats.wait.count(), 1u);
  EXPECT_NE(stats.ToString().find(" queued=0 ran=1 "), std::string::npos)
      << stats.ToString();
}

TEST(ExecutorPoolTest, ShutdownRunsWhatTasksQueueWhileItDrains) {
  AfterRuns after;
  ExecutorPool pool("chain", after.Callback());
  pool.SetThreads(2, /*allow_reduce=*/false);
  // Each task queues the next; all of them run before Shutdown returns.
  Counter ran;
  std::function<void(int)> chain = [&](int left) {
    ran.Add();
    if (left > 0) pool.EnqueueNew(ReadyTask([&, left] { chain(left - 1); }));
  };
  pool.EnqueueNew(ReadyTask([&] { chain(99); }));
  pool.Shutdown();
  EXPECT_EQ(ran.value(), 100);
}

TEST(ExecutorPoolTest, DestructionRunsTasksQueuedAfterShutdown) {
  AfterRuns after;
  RunLog log;
  {
    ExecutorPool pool("late", after.Callback());
    pool.SetThreads(1, /*allow_reduce=*/false);
    pool.Shutdown();
    pool.EnqueueNew(ReadyTask(log.Entry(1)));
    EXPECT_TRUE(log.ids().empty());
  }
  EXPECT_EQ(log.ids(), std::vector<int>{1});
  EXPECT_EQ(log.threads(),
            std::vector<std::thread::id>{std::this_thread::get_id()});
}

// The one worker is held by a task of client `busy`; a task of a client
// with nothing running goes to the helper, a thread beyond the configured
// count, unless the helper is off.
TEST(ExecutorPoolTest, HelperRunsAStarvedClientsTaskOnAThreadOfItsOwn) {
  for (bool helper : {true, false}) {
    SCOPED_TRACE(helper ? "helper on" : "helper off");
    AfterRuns after;
    Hooks hooks;
    RunLog log;
    int busy = 0;
    int starved = 0;
    Gate gate;
    Counter blocked;
    std::thread::id worker;
    {
      ExecutorPool pool("helped", after.Callback(), hooks.Get());
      pool.EnableHelper(helper);
      pool.SetThreads(1, /*allow_reduce=*/false);
      ExecutorTask* hold = ReadyTask([&] {
        worker = std::this_thread::get_id();
        blocked.Add();
        gate.Wait();
      });
      hold->client = &busy;
      pool.EnqueueNew(hold);
      blocked.WaitFor(1);
      ExecutorTask* second = ReadyTask(log.Entry(1));
      second->client = &busy;
      pool.EnqueueNew(second);
      ExecutorTask* other = ReadyTask(log.Entry(2));
      other->client = &starved;
      pool.EnqueueNew(other);
      if (helper) {
        while (log.ids().empty()) std::this_thread::yield();
        // The starved client's task ran while the worker was held.
        EXPECT_EQ(log.ids(), std::vector<int>{2});
        EXPECT_NE(log.threads()[0], worker);
        while (pool.Stats().helper_runs < 1) std::this_thread::yield();
      } else {
        EXPECT_TRUE(log.ids().empty());
      }
      gate.Open();
      pool.Shutdown();
      EXPECT_EQ(pool.Stats().helper_runs, helper ? 1u : 0u);
    }
    if (helper) {
      EXPECT_EQ(log.ids(), (std::vector<int>{2, 1}));
    } else {
      std::vector<int> ids = log.ids();
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(ids, (std::vector<int>{1, 2}));
    }
    // Every thread the pool started has ended by now.
    EXPECT_EQ(hooks.starts.value(), helper ? 2 : 1);
    EXPECT_EQ(hooks.exits.value(), hooks.starts.value());
  }
}

TEST(ExecutorPoolTest, LoweredCpuPriorityAppliesToTheWorkersNextTasks) {
  const int nice_before = NiceOfThisThread();
  AfterRuns after;
  ExecutorPool pool("nice", after.Callback());
  pool.SetThreads(1, /*allow_reduce=*/false);
  std::mutex mu;
  std::vector<int> nices;
  auto record_nice = [&] {
    std::lock_guard<std::mutex> lock(mu);
    nices.push_back(NiceOfThisThread());
  };
  Counter ran;
  pool.LowerCPUPriority(ROCKSDB_NAMESPACE::CpuPriority::kLow);
  pool.EnqueueNew(ReadyTask([&] {
    record_nice();
    ran.Add();
  }));
  ran.WaitFor(1);
  // Only ever lowered: asking for normal again changes nothing.
  pool.LowerCPUPriority(ROCKSDB_NAMESPACE::CpuPriority::kNormal);
  pool.EnqueueNew(ReadyTask([&] {
    record_nice();
    ran.Add();
  }));
  ran.WaitFor(2);
  pool.Shutdown();
  EXPECT_EQ(nices, (std::vector<int>{19, 19}));
  EXPECT_EQ(NiceOfThisThread(), nice_before);
}

}  // namespace
}  // namespace rocksdb_cuckoo
