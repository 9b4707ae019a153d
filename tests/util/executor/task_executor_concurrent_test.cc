// TaskExecutor: priorities, fairness, delayed/snoozed/cancelled tasks,
// cancel-by-tag counts, resizing and reserving while busy, statistics, and
// destruction with work queued. Runs under TSan (label `concurrent`).

#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/blocking_helpers.h"
#include "util/executor/task_executor.h"

namespace rocksdb_cuckoo {
namespace {

using cuckoo_test::Counter;
using cuckoo_test::Gate;
using std::chrono::hours;
using std::chrono::milliseconds;

constexpr int kPool = 0;

// Records the order in which tasks ran.
class RunLog {
 public:
  void Append(int id) {
    std::lock_guard<std::mutex> lock(mu_);
    ids_.push_back(id);
  }
  std::vector<int> ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_;
  }

 private:
  std::mutex mu_;
  std::vector<int> ids_;
};

TaskOptions WithPriority(TaskPriority priority) {
  TaskOptions options;
  options.priority = priority;
  return options;
}

TaskOptions WithClient(const void* client) {
  TaskOptions options;
  options.client = client;
  return options;
}

TaskOptions WithDelay(std::chrono::nanoseconds delay) {
  TaskOptions options;
  options.delay = delay;
  return options;
}

// A task's state moves on right after its run returns; wait for that.
void WaitForState(const TaskHandle& handle, TaskState state) {
  while (handle.state() != state) std::this_thread::yield();
}

// Keeps the calling thread on its core (sleeping would hand the timing to
// the kernel's wake-up).
void BusyWaitMicros(int64_t micros) {
  const int64_t until = SteadyNanos() + micros * 1000;
  while (SteadyNanos() < until) {
  }
}

// Posts a task that appends `id` to `log` and counts itself in `ran`.
void PostLogged(TaskExecutor* executor, int id, RunLog* log, Counter* ran,
                const TaskOptions& options) {
  executor->Post(
      kPool,
      [id, log, ran] {
        log->Append(id);
        ran->Add();
      },
      options);
}

// Occupies the pool's only worker until the gate opens.
void BlockWorker(TaskExecutor* executor, Gate* gate, Counter* started,
                 const TaskOptions& options = TaskOptions()) {
  executor->Post(
      kPool,
      [gate, started] {
        started->Add();
        gate->Wait();
      },
      options);
  started->WaitFor(1);
}

// Adds a task whose first run holds the pool's only worker until `gate`
// opens (later runs return at once), and waits for that run to start.
TaskHandle AddHeldOnFirstRun(TaskExecutor* executor, Gate* gate,
                             Counter* runs) {
  TaskHandle handle = executor->Add(kPool, [gate, runs] {
    runs->Add();
    if (runs->value() == 1) gate->Wait();
  });
  runs->WaitFor(1);
  return handle;
}

// Opens `gate` and returns once a task posted behind all that is queued has
// run: a single worker went past every one of them.
void OpenAndRunPastQueued(TaskExecutor* executor, Gate* gate) {
  Counter after;
  executor->Post(kPool, [&after] { after.Add(); });
  gate->Open();
  after.WaitFor(1);
}

TEST(TaskExecutorTest, RunsEveryPostedTask) {
  TaskExecutor executor({"a", "b"});
  executor.SetThreads(0, 2);
  executor.SetThreads(1, 3);
  Counter ran;
  constexpr int kTasks = 2000;
  for (int i = 0; i < kTasks; ++i) {
    executor.Post(i % 2, [&ran] { ran.Add(); });
  }
  ran.WaitFor(kTasks);
  EXPECT_EQ(ran.value(), kTasks);
}

// Many producers at once, each pushing onto its own shard of the inboxes
// (more producers than shards, so some share one): every task, ready or
// delayed, runs exactly once, and a task cancelled right after it was added
// never runs.
TEST(TaskExecutorTest, ManyProducersLoseNoTask) {
  TaskExecutor executor({"a", "b"});
  executor.SetThreads(0, 2);
  executor.SetThreads(1, 1);
  constexpr int kProducers = 12;
  constexpr int kPerProducer = 600;
  std::vector<std::atomic<int>> runs(kProducers * kPerProducer);
  std::atomic<int> cancelled{0};
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        const int id = p * kPerProducer + i;
        TaskOptions options;
        options.delay = std::chrono::microseconds(id % 3 * 100);
        TaskHandle handle = executor.Add(
            id % 2, [&runs, id] { runs[id]++; }, options);
        if (id % 5 == 0 && executor.Cancel(handle)) cancelled++;
      }
    });
  }
  for (std::thread& t : producers) t.join();
  executor.Shutdown();  // runs what is ready, cancels what is delayed
  int ran_once = 0;
  for (size_t id = 0; id < runs.size(); ++id) {
    EXPECT_LE(runs[id].load(), 1) << id;
    ran_once += runs[id].load();
  }
  // Shutdown cancels only delayed tasks: with delays of at most 200 µs and
  // the joins above, some may still be waiting, so count what did not run.
  const int not_run = static_cast<int>(runs.size()) - ran_once;
  EXPECT_GE(not_run, cancelled.load());
  EXPECT_EQ(
      static_cast<uint64_t>(not_run),
      executor.GetPoolStats(0).cancelled + executor.GetPoolStats(1).cancelled);
}

// A task posted just as the only worker stops watching the inbox and goes
// to sleep must still run. (With long tasks, a push that finds no idle
// worker files the inbox itself, looking for a starved client; it used to
// leave the task in the ready queue while the worker, finding the inbox
// empty, slept.) Posts land at every offset around the end of the worker's
// watch; each must run before the next is posted.
TEST(TaskExecutorTest, ATaskPostedAsTheWorkerFallsAsleepRuns) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Counter ran;
  for (int i = 0; i < 3000; ++i) {
    // Long enough (over 20 µs) that the pool treats its tasks as long.
    executor.Post(kPool, [&ran] {
      BusyWaitMicros(25);
      ran.Add();
    });
    ran.WaitFor(i + 1);
    BusyWaitMicros(i % 120);
  }
  EXPECT_EQ(ran.value(), 3000);
}

TEST(TaskExecutorTest, HigherPriorityRunsFirstFifoWithin) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);

  RunLog log;
  Counter ran;
  const TaskPriority priorities[] = {TaskPriority::kLow, TaskPriority::kHigh,
                                     TaskPriority::kNormal};
  for (int i = 0; i < 9; ++i) {
    PostLogged(&executor, i, &log, &ran, WithPriority(priorities[i % 3]));
  }
  gate.Open();
  ran.WaitFor(9);
  // High (1, 4, 7), then normal (2, 5, 8), then low (0, 3, 6).
  EXPECT_EQ(log.ids(), (std::vector<int>{1, 4, 7, 2, 5, 8, 0, 3, 6}));
}

TEST(TaskExecutorTest, ClientsTakeTurns) {
  TaskExecutor executor({"pool"});
  // Order alone: no extra thread for the client with nothing running.
  executor.EnableStarvationHelper(false);
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);

  int flood_client = 0;
  int quiet_client = 0;
  RunLog log;
  Counter ran;
  for (int i = 0; i < 10; ++i) {
    PostLogged(&executor, i, &log, &ran, WithClient(&flood_client));
  }
  for (int i = 100; i < 102; ++i) {
    PostLogged(&executor, i, &log, &ran, WithClient(&quiet_client));
  }
  gate.Open();
  ran.WaitFor(12);
  // The quiet client's two tasks alternate with the flood instead of
  // waiting behind all ten; each client's own order is kept.
  EXPECT_EQ(log.ids(),
            (std::vector<int>{0, 100, 1, 101, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(TaskExecutorTest, ClientWithNothingRunningGoesFirst) {
  TaskExecutor executor({"pool"});
  // Order alone: no extra thread for the client with nothing running.
  executor.EnableStarvationHelper(false);
  executor.SetThreads(kPool, 2);
  int busy_client = 0;
  int other_client = 0;
  // The busy client holds one worker with a long task and queues more.
  Gate long_task;
  Counter long_started;
  executor.Post(
      kPool,
      [&] {
        long_started.Add();
        long_task.Wait();
      },
      WithClient(&busy_client));
  long_started.WaitFor(1);
  Gate short_task;
  Counter short_started;
  executor.Post(
      kPool,
      [&] {
        short_started.Add();
        short_task.Wait();
      },
      WithClient(&other_client));
  short_started.WaitFor(1);
  // Both workers are busy; queue the busy client's backlog first, then one
  // task of the other client.
  RunLog log;
  Counter ran;
  for (int i = 0; i < 3; ++i) {
    PostLogged(&executor, i, &log, &ran, WithClient(&busy_client));
  }
  PostLogged(&executor, 100, &log, &ran, WithClient(&other_client));
  // The other client's worker frees up; its next task still loses to no
  // one: the busy client has a task running, the other has none now.
  short_task.Open();
  ran.WaitFor(1);
  EXPECT_EQ(log.ids().front(), 100);
  long_task.Open();
  ran.WaitFor(4);
}

// One worker is stuck in a long task of client `busy`; a task of a client
// with nothing running does not wait for it: the pool's helper runs it.
TEST(TaskExecutorTest, HelperRunsAStarvedClientsTask) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  int busy = 0;
  int starved = 0;
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started, WithClient(&busy));
  RunLog log;
  Counter ran;
  PostLogged(&executor, 1, &log, &ran, WithClient(&busy));
  PostLogged(&executor, 2, &log, &ran, WithClient(&starved));
  ran.WaitFor(1);
  EXPECT_EQ(log.ids(), std::vector<int>{2});
  EXPECT_EQ(executor.QueueLength(kPool), 1u);  // busy's second task waits
  while (executor.GetPoolStats(kPool).helper_runs < 1) {
    std::this_thread::yield();
  }
  gate.Open();
  ran.WaitFor(2);
  EXPECT_EQ(log.ids(), (std::vector<int>{2, 1}));
  EXPECT_EQ(executor.GetPoolStats(kPool).helper_runs, 1u);
}

// A long untagged task (a user's own Env::Schedule job) holds the pool's
// only worker: a DB's task waits for it, as with RocksDB's own thread pool,
// since untagged work is no other DB's.
TEST(TaskExecutorTest, UntaggedLongTaskLeavesNoDbStarved) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  int db = 0;
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);  // untagged
  Counter ran;
  TaskHandle handle =
      executor.Add(kPool, [&ran] { ran.Add(); }, WithClient(&db));
  // Long enough for the helper to have run it, were it allowed to.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(handle.state(), TaskState::kReady);
  EXPECT_EQ(ran.value(), 0);
  gate.Open();
  ran.WaitFor(1);
  EXPECT_EQ(executor.GetPoolStats(kPool).helper_runs, 0u);
}

TEST(TaskExecutorTest, WithoutTheHelperThreadCountsAreHardLimits) {
  TaskExecutor executor({"pool"});
  executor.EnableStarvationHelper(false);
  executor.SetThreads(kPool, 1);
  int busy = 0;
  int starved = 0;
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started, WithClient(&busy));
  Counter ran;
  TaskHandle handle = executor.Add(
      kPool, [&ran] { ran.Add(); }, WithClient(&starved));
  EXPECT_EQ(handle.state(), TaskState::kReady);
  EXPECT_EQ(executor.QueueLength(kPool), 1u);
  gate.Open();
  ran.WaitFor(1);
  EXPECT_EQ(executor.GetPoolStats(kPool).helper_runs, 0u);
}

TEST(TaskExecutorTest, CancelPendingTaskRunsOnCancelOnce) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);

  std::atomic<int> ran{0};
  std::atomic<int> cancelled{0};
  TaskOptions options;
  options.on_cancel = [&cancelled] { cancelled.fetch_add(1); };
  TaskHandle handle = executor.Add(
      kPool, [&ran] { ran.fetch_add(1); }, options);
  EXPECT_EQ(handle.state(), TaskState::kReady);
  EXPECT_TRUE(executor.Cancel(handle));
  EXPECT_FALSE(executor.Cancel(handle));
  EXPECT_EQ(handle.state(), TaskState::kCancelled);
  EXPECT_EQ(cancelled.load(), 1);

  // A task after it proves the worker went past the cancelled one.
  OpenAndRunPastQueued(&executor, &gate);
  EXPECT_EQ(ran.load(), 0);
  EXPECT_EQ(executor.GetPoolStats(kPool).cancelled, 1u);
}

// A task cancelled in the ready queue and whose handle is then dropped has
// only the queue's reference left, as a posted task has: the worker that
// meets it must still find it cancelled, not run it.
TEST(TaskExecutorTest, ACancelledTaskStaysCancelledAfterItsHandleIsGone) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate first_gate;
  Counter first_started;
  BlockWorker(&executor, &first_gate, &first_started);
  // Queued behind the first blocker: a second one, then the victim. Long
  // tasks are taken one at a time, so the worker files both and takes only
  // the second blocker, leaving the victim in the ready queue.
  Gate second_gate;
  Counter second_started;
  executor.Post(kPool, [&] {
    second_started.Add();
    second_gate.Wait();
  });
  std::atomic<int> ran{0};
  TaskHandle handle = executor.Add(kPool, [&ran] { ran.fetch_add(1); });
  first_gate.Open();
  second_started.WaitFor(1);
  EXPECT_TRUE(executor.Cancel(handle));
  handle = TaskHandle();
  OpenAndRunPastQueued(&executor, &second_gate);
  EXPECT_EQ(ran.load(), 0);
}

// Dropping the handle of a running task that was snoozed meanwhile keeps
// the rerun the snooze asked for.
TEST(TaskExecutorTest, ARerunOutlivesItsHandle) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter runs;
  TaskHandle handle = AddHeldOnFirstRun(&executor, &gate, &runs);
  executor.Snooze(handle, std::chrono::nanoseconds(0));
  handle = TaskHandle();
  gate.Open();
  runs.WaitFor(2);
  EXPECT_EQ(runs.value(), 2);
}

TEST(TaskExecutorTest, CancelDoesNotStopARunningTask) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  Counter finished;
  std::atomic<int> cancelled{0};
  TaskOptions options;
  options.on_cancel = [&cancelled] { cancelled.fetch_add(1); };
  TaskHandle handle = executor.Add(
      kPool,
      [&] {
        started.Add();
        gate.Wait();
        finished.Add();
      },
      options);
  started.WaitFor(1);
  EXPECT_FALSE(executor.Cancel(handle));
  gate.Open();
  finished.WaitFor(1);
  EXPECT_EQ(cancelled.load(), 0);
}

TEST(TaskExecutorTest, CancelTaggedCountsExactlyAcrossReadyAndDelayed) {
  TaskExecutor executor({"a", "b"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);

  int tag_x = 0;
  int tag_y = 0;
  std::atomic<int> x_cancelled{0};
  std::atomic<int> x_ran{0};
  Counter y_ran;
  auto tagged = [](const void* tag, std::chrono::nanoseconds delay,
                   std::function<void()> on_cancel) {
    TaskOptions options;
    options.tag = tag;
    options.delay = delay;
    options.on_cancel = std::move(on_cancel);
    return options;
  };
  auto count_x_cancel = [&x_cancelled] { x_cancelled.fetch_add(1); };
  for (int i = 0; i < 5; ++i) {
    executor.Post(
        kPool, [&x_ran] { x_ran.fetch_add(1); },
        tagged(&tag_x, std::chrono::nanoseconds(0), count_x_cancel));
  }
  for (int i = 0; i < 2; ++i) {
    executor.Post(
        kPool, [&x_ran] { x_ran.fetch_add(1); },
        tagged(&tag_x, hours(1), count_x_cancel));
  }
  // Same tag on the other pool: not this pool's to cancel.
  executor.Post(
      1, [] {}, tagged(&tag_x, hours(1), count_x_cancel));
  for (int i = 0; i < 3; ++i) {
    executor.Post(
        kPool, [&y_ran] { y_ran.Add(); },
        tagged(&tag_y, std::chrono::nanoseconds(0), nullptr));
  }
  EXPECT_EQ(executor.QueueLength(kPool), 8u);

  EXPECT_EQ(executor.CancelTagged(kPool, &tag_x), 7);
  EXPECT_EQ(x_cancelled.load(), 7);
  EXPECT_EQ(executor.CancelTagged(kPool, &tag_x), 0);
  EXPECT_EQ(executor.QueueLength(kPool), 3u);

  gate.Open();
  y_ran.WaitFor(3);
  EXPECT_EQ(x_ran.load(), 0);
  EXPECT_EQ(executor.CancelTagged(1, &tag_x), 1);
}

// Producers add tagged tasks while another thread cancels by tag: each task
// either runs or is cancelled, exactly once, and CancelTagged's counts add
// up to the on_cancel calls.
TEST(TaskExecutorTest, CancelTaggedRacingWorkersNeverDoubleCounts) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 3);
  constexpr int kProducers = 3;
  constexpr int kPerProducer = 3000;
  int tags[kProducers];
  std::atomic<int> ran{0};
  std::atomic<int> on_cancel_calls{0};
  std::atomic<int> counted{0};
  std::atomic<bool> producing{true};

  std::thread canceller([&] {
    int round = 0;
    while (producing.load()) {
      counted.fetch_add(executor.CancelTagged(kPool, &tags[round++ % 3]));
    }
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        TaskOptions options;
        options.tag = &tags[p];
        options.on_cancel = [&] { on_cancel_calls.fetch_add(1); };
        executor.Post(
            kPool, [&ran] { ran.fetch_add(1); }, std::move(options));
      }
    });
  }
  for (auto& t : producers) t.join();
  producing.store(false);
  canceller.join();
  for (int& tag : tags) counted.fetch_add(executor.CancelTagged(kPool, &tag));
  // Everything not cancelled runs; wait until every task is accounted for.
  while (ran.load() + on_cancel_calls.load() < kProducers * kPerProducer) {
    std::this_thread::yield();
  }
  EXPECT_EQ(ran.load() + on_cancel_calls.load(), kProducers * kPerProducer);
  EXPECT_EQ(counted.load(), on_cancel_calls.load());
}

TEST(TaskExecutorTest, DelayedTaskRunsNoSoonerThanItsDelay) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Counter ran;
  std::atomic<int64_t> ran_at{0};
  const int64_t added_at = SteadyNanos();
  TaskHandle handle = executor.Add(
      kPool,
      [&] {
        ran_at.store(SteadyNanos());
        ran.Add();
      },
      WithDelay(milliseconds(30)));
  ran.WaitFor(1);
  EXPECT_GE(ran_at.load() - added_at, milliseconds(30).count() * 1000000);
  WaitForState(handle, TaskState::kDone);
}

TEST(TaskExecutorTest, DelayedTasksRunInWakeOrder) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  RunLog log;
  Counter ran;
  // Added latest-first; the timer must still hand them over earliest-first.
  // Each wake time lies within its Post's call plus the delay; a stalled
  // caller can shift them past each other, so only the order of tasks whose
  // windows do not overlap is certain (normally all of them).
  constexpr int kTasks = 5;
  int64_t earliest[kTasks];
  int64_t latest[kTasks];
  for (int i = kTasks - 1; i >= 0; --i) {
    const milliseconds delay(10 * (i + 1));
    const int64_t before = SteadyNanos();
    PostLogged(&executor, i, &log, &ran, WithDelay(delay));
    earliest[i] = before + std::chrono::nanoseconds(delay).count();
    latest[i] = SteadyNanos() + std::chrono::nanoseconds(delay).count();
  }
  ran.WaitFor(kTasks);
  const std::vector<int> order = log.ids();
  ASSERT_EQ(order.size(), size_t{kTasks});
  int position[kTasks];
  for (int p = 0; p < kTasks; ++p) position[order[p]] = p;
  for (int a = 0; a < kTasks; ++a) {
    for (int b = 0; b < kTasks; ++b) {
      if (latest[a] < earliest[b]) {
        EXPECT_LT(position[a], position[b]) << a << " is due before " << b;
      }
    }
  }
}

TEST(TaskExecutorTest, SnoozeMovesAWaitingTaskEitherWay) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Counter ran;
  TaskHandle handle = executor.Add(
      kPool, [&ran] { ran.Add(); }, WithDelay(hours(1)));
  executor.Snooze(handle, hours(2));  // later
  EXPECT_EQ(handle.state(), TaskState::kDelayed);
  executor.Snooze(handle, std::chrono::nanoseconds(0));  // earlier: due now
  ran.WaitFor(1);
  WaitForState(handle, TaskState::kDone);
  // Finished: nothing to snooze any more.
  executor.Snooze(handle, std::chrono::nanoseconds(0));
  EXPECT_EQ(handle.state(), TaskState::kDone);
  EXPECT_EQ(ran.value(), 1);
}

TEST(TaskExecutorTest, SnoozeTakesAReadyTaskOutOfTheQueue) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);
  std::atomic<int> ran{0};
  TaskHandle handle = executor.Add(kPool, [&ran] { ran.fetch_add(1); });
  EXPECT_EQ(executor.QueueLength(kPool), 1u);
  executor.Snooze(handle, hours(1));
  EXPECT_EQ(handle.state(), TaskState::kDelayed);
  EXPECT_EQ(executor.QueueLength(kPool), 0u);
  OpenAndRunPastQueued(&executor, &gate);
  EXPECT_EQ(ran.load(), 0);
  EXPECT_TRUE(executor.Cancel(handle));
}

TEST(TaskExecutorTest, SnoozeWhileRunningRunsItAgain) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter runs;
  TaskHandle handle = AddHeldOnFirstRun(&executor, &gate, &runs);
  executor.Snooze(handle, std::chrono::nanoseconds(0));
  EXPECT_EQ(handle.state(), TaskState::kRunningRerun);
  gate.Open();
  runs.WaitFor(2);
  EXPECT_EQ(runs.value(), 2);
}

TEST(TaskExecutorTest, TaskCanSnoozeItselfPeriodically) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Counter runs;
  std::mutex handle_mu;  // the task reads the handle that Add returns
  TaskHandle handle;
  {
    std::lock_guard<std::mutex> lock(handle_mu);
    handle = executor.Add(
        kPool,
        [&] {
          runs.Add();
          std::lock_guard<std::mutex> lock(handle_mu);
          if (runs.value() < 3) executor.Snooze(handle, milliseconds(1));
        },
        WithDelay(milliseconds(1)));
  }
  runs.WaitFor(3);
  WaitForState(handle, TaskState::kDone);
  EXPECT_EQ(runs.value(), 3);
}

TEST(TaskExecutorTest, SnoozeAndWaitReturnsAfterTheRunEnds) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  std::atomic<bool> run_ended{false};
  TaskHandle handle = executor.Add(kPool, [&] {
    started.Add();
    gate.Wait();
    run_ended.store(true);
  });
  started.WaitFor(1);

  std::atomic<bool> answer{false};
  std::atomic<bool> saw_run_ended{false};
  std::thread waiter([&] {
    answer.store(executor.SnoozeAndWait(handle, hours(1)));
    saw_run_ended.store(run_ended.load());
  });
  // The snooze lands at once (the task shows a rerun pending); the waiter
  // is held until the run ends.
  while (handle.state() != TaskState::kRunningRerun) std::this_thread::yield();
  gate.Open();
  waiter.join();
  EXPECT_TRUE(answer.load());
  EXPECT_TRUE(saw_run_ended.load());
  EXPECT_EQ(handle.state(), TaskState::kDelayed);
  EXPECT_TRUE(executor.Cancel(handle));
  EXPECT_FALSE(executor.SnoozeAndWait(handle, hours(1)));
}

TEST(TaskExecutorTest, CancelDropsAPendingRerun) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter runs;
  std::atomic<int> cancelled{0};
  TaskOptions options;
  options.on_cancel = [&cancelled] { cancelled.fetch_add(1); };
  TaskHandle handle = executor.Add(
      kPool,
      [&] {
        runs.Add();
        gate.Wait();
      },
      options);
  runs.WaitFor(1);
  executor.Snooze(handle, std::chrono::nanoseconds(0));
  EXPECT_TRUE(executor.Cancel(handle));
  EXPECT_EQ(cancelled.load(), 1);
  OpenAndRunPastQueued(&executor, &gate);
  EXPECT_EQ(runs.value(), 1);
  EXPECT_EQ(handle.state(), TaskState::kDone);
}

// Threads snooze and cancel the same tasks while they run: every task ends
// (done or cancelled), runs at most twice (once more per snooze), and
// on_cancel runs once per successful Cancel.
TEST(TaskExecutorTest, ConcurrentSnoozeAndCancelKeepTheStateMachineExact) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 2);
  constexpr int kTasks = 2000;
  std::vector<std::atomic<int>> runs(kTasks);
  std::vector<std::atomic<int>> on_cancel_calls(kTasks);
  std::vector<TaskHandle> handles;
  for (int i = 0; i < kTasks; ++i) {
    TaskOptions options;
    options.delay = std::chrono::microseconds(i % 7 * 50);
    options.on_cancel = [&on_cancel_calls, i] { on_cancel_calls[i]++; };
    handles.push_back(executor.Add(
        kPool, [&runs, i] { runs[i]++; }, options));
  }
  std::atomic<int> successful_cancels{0};
  std::thread snoozer([&] {
    for (int i = 0; i < kTasks; i += 2) {
      executor.Snooze(handles[i], std::chrono::microseconds(i % 5 * 40));
    }
  });
  std::thread canceller([&] {
    for (int i = 0; i < kTasks; i += 3) {
      if (executor.Cancel(handles[i])) successful_cancels++;
    }
  });
  snoozer.join();
  canceller.join();
  int total_on_cancel = 0;
  for (int i = 0; i < kTasks; ++i) {
    TaskState state;
    while ((state = handles[i].state()) != TaskState::kDone &&
           state != TaskState::kCancelled) {
      std::this_thread::yield();
    }
    EXPECT_LE(runs[i].load(), 2) << i;
    EXPECT_LE(on_cancel_calls[i].load(), 1) << i;
    if (state == TaskState::kDone) {
      EXPECT_GE(runs[i].load(), 1) << i;
    } else {
      EXPECT_EQ(on_cancel_calls[i].load(), 1) << i;
    }
    total_on_cancel += on_cancel_calls[i].load();
  }
  EXPECT_EQ(total_on_cancel, successful_cancels.load());
}

// Two threads keep snoozing the same tasks, each time to 3 ms from the
// call, for 30 ms; the timer meanwhile surfaces their entries. Snoozes that
// move a task later change only its wake time (the timer's entry stays), so
// this checks that the timer never runs a task before the wake time of the
// last snooze that took effect: a task's last run starts no earlier than 3
// ms after the earlier of the two threads' last such snoozes began. (A task
// may run more than once if both threads stall for 3 ms: a snooze during a
// run asks for another.)
TEST(TaskExecutorTest, ConcurrentSnoozesNeverLetATaskRunEarly) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 2);
  constexpr int kTasks = 64;
  constexpr auto kDelay = std::chrono::milliseconds(3);
  std::vector<std::atomic<int64_t>> ran_at(kTasks);
  std::vector<std::atomic<int>> runs(kTasks);
  std::vector<TaskHandle> handles;
  TaskOptions options;
  options.delay = kDelay;
  for (int i = 0; i < kTasks; ++i) {
    handles.push_back(executor.Add(
        kPool,
        [&ran_at, &runs, i] {
          ran_at[i].store(SteadyNanos());
          runs[i]++;
        },
        options));
  }
  // Per thread and task: when the last snooze was asked for.
  std::vector<std::vector<int64_t>> last_asked(2, std::vector<int64_t>(kTasks));
  auto snoozer = [&](int thread) {
    const int64_t until = SteadyNanos() + 30 * 1000 * 1000;
    std::minstd_rand rnd(thread + 1);
    while (SteadyNanos() < until) {
      const int i = static_cast<int>(rnd() % kTasks);
      const int64_t asked = SteadyNanos();
      if (executor.SnoozeAndWait(handles[i], kDelay)) {
        last_asked[thread][i] = asked;
      }
    }
  };
  std::thread a(snoozer, 0);
  std::thread b(snoozer, 1);
  a.join();
  b.join();
  for (int i = 0; i < kTasks; ++i) {
    while (handles[i].state() != TaskState::kDone) std::this_thread::yield();
    EXPECT_GE(runs[i].load(), 1) << i;
    const int64_t due =
        std::min(last_asked[0][i], last_asked[1][i]) +
        std::chrono::duration_cast<std::chrono::nanoseconds>(kDelay).count();
    EXPECT_GE(ran_at[i].load(), due) << i;
  }
}

TEST(TaskExecutorTest, ResizingWhileBusyRespectsTheNewCount) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 3);
  Gate gate;
  Counter started;
  std::vector<TaskHandle> handles;
  for (int i = 0; i < 4; ++i) {
    handles.push_back(executor.Add(kPool, [&] {
      started.Add();
      gate.Wait();
    }));
  }
  started.WaitFor(3);
  // Three workers, three tasks running; the fourth must wait.
  EXPECT_EQ(executor.QueueLength(kPool), 1u);
  EXPECT_EQ(handles[3].state(), TaskState::kReady);
  executor.SetThreads(kPool, 4);  // grows at once
  started.WaitFor(4);
  EXPECT_EQ(executor.GetThreads(kPool), 4);

  // Shrink while all four are busy: they finish, three retire.
  executor.SetThreads(kPool, 1);
  EXPECT_EQ(executor.GetThreads(kPool), 1);
  EXPECT_EQ(executor.GetPoolStats(kPool).live_threads, 4);
  gate.Open();
  // Now at most one task runs at a time.
  std::atomic<int> concurrent{0};
  std::atomic<int> most{0};
  Counter ran;
  for (int i = 0; i < 50; ++i) {
    executor.Post(kPool, [&] {
      const int now = concurrent.fetch_add(1) + 1;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::yield();
      concurrent.fetch_sub(1);
      ran.Add();
    });
  }
  ran.WaitFor(50);
  EXPECT_EQ(most.load(), 1);
  EXPECT_EQ(executor.GetPoolStats(kPool).live_threads, 1);
  // Growing again after a shrink, also while the old workers may linger.
  executor.SetThreads(kPool, 2);
  executor.IncThreadsIfNeeded(kPool, 1);  // never shrinks
  EXPECT_EQ(executor.GetThreads(kPool), 2);
}

TEST(TaskExecutorTest, ReservedThreadsTakeNoTasksUntilReleased) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 4);
  EXPECT_EQ(executor.ReserveThreads(kPool, 3), 3);
  EXPECT_EQ(executor.ReserveThreads(kPool, 5), 1);  // only four threads
  EXPECT_EQ(executor.ReleaseThreads(kPool, 1), 1);
  // Three reserved: one thread left for tasks.
  Gate gate;
  Counter started;
  for (int i = 0; i < 3; ++i) {
    executor.Post(kPool, [&] {
      started.Add();
      gate.Wait();
    });
  }
  started.WaitFor(1);
  EXPECT_EQ(executor.QueueLength(kPool), 2u);
  EXPECT_EQ(executor.GetPoolStats(kPool).reserved, 3);
  EXPECT_EQ(executor.ReleaseThreads(kPool, 10), 3);
  started.WaitFor(3);
  gate.Open();
}

TEST(TaskExecutorTest, QueueLengthAndStatistics) {
  TaskExecutor executor({"pool"});
  executor.SetThreads(kPool, 1);
  Gate gate;
  Counter started;
  BlockWorker(&executor, &gate, &started);
  Counter ran;
  std::vector<TaskHandle> handles;
  for (int i = 0; i < 5; ++i) {
    handles.push_back(executor.Add(kPool, [&ran] { ran.Add(); }));
  }
  EXPECT_EQ(executor.QueueLength(kPool), 5u);
  EXPECT_TRUE(executor.Cancel(handles[2]));
  EXPECT_EQ(executor.QueueLength(kPool), 4u);
  PoolStats busy = executor.GetPoolStats(kPool);
  EXPECT_EQ(busy.running, 1);
  EXPECT_EQ(busy.queue_length, 4u);
  gate.Open();
  ran.WaitFor(4);
  // The last task's run is recorded once its worker is done with it; the
  // blocking task and the four others make five runs.
  PoolStats stats;
  do {
    stats = executor.GetPoolStats(kPool);
  } while (stats.completed() < 5);
  EXPECT_EQ(stats.completed(), 5u);
  EXPECT_EQ(stats.wait.count(), 5u);
  EXPECT_EQ(stats.cancelled, 1u);
  EXPECT_EQ(stats.queue_length, 0u);
  EXPECT_NE(executor.StatsString().find("pool: threads=1"), std::string::npos);
}

// More workers than CPUs, tasks known to be short: a worker leaving tasks
// behind wakes no other while the CPUs are taken, so what a burst needs
// must still reach a worker. Each burst's first task waits for its last;
// with the process on one CPU, the last can only run on a second worker.
TEST(TaskExecutorTest, ShortTaskBurstsRunWithMoreWorkersThanCpus) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &all)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  {
    TaskExecutor executor({"bursts"});  // its pool sees one CPU
    executor.SetThreads(kPool, 8);
    Counter ran;
    // Teaches the pool that tasks are short.
    for (int i = 0; i < 400; ++i) executor.Post(kPool, [&ran] { ran.Add(); });
    ran.WaitFor(400);
    constexpr int kBursts = 300;
    constexpr int kBurst = 8;
    for (int b = 0; b < kBursts; ++b) {
      Gate last_ran;
      executor.Post(kPool, [&] {
        last_ran.Wait();
        ran.Add();
      });
      for (int i = 1; i < kBurst - 1; ++i) {
        executor.Post(kPool, [&ran] { ran.Add(); });
      }
      executor.Post(kPool, [&] {
        ran.Add();
        last_ran.Open();
      });
      ran.WaitFor(400 + (b + 1) * kBurst);
    }
    EXPECT_EQ(ran.value(), 400 + kBursts * kBurst);
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
}

// A worker with nothing to do sleeps in the kernel: its state in
// /proc/self/task/<tid>/stat is S, never R for long.
TEST(TaskExecutorTest, IdleWorkersSleep) {
  TaskExecutor executor({"sleepy"});
  executor.SetThreads(kPool, 4);
  Counter ran;
  for (int i = 0; i < 100; ++i) executor.Post(kPool, [&ran] { ran.Add(); });
  ran.WaitFor(100);
  auto worker_states = [] {
    std::string states;
    DIR* dir = opendir("/proc/self/task");
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      const std::string base = std::string("/proc/self/task/") + entry->d_name;
      std::string name;
      std::getline(std::ifstream(base + "/comm"), name);
      if (name != "cuckoo-sleepy") continue;
      std::string stat;
      std::getline(std::ifstream(base + "/stat"), stat);
      states += stat[stat.rfind(')') + 2];
    }
    closedir(dir);
    return states;
  };
  // Each worker gets there after its last task (and its spin); a loaded
  // host may not run them for a while.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string states;
  while ((states = worker_states()) != "SSSS" &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(states, "SSSS");
}

TEST(TaskExecutorTest, DestructionRunsReadyTasksAndCancelsDelayedOnes) {
  std::atomic<int> ran{0};
  std::atomic<int> cancelled{0};
  auto on_cancel = [&cancelled] { cancelled.fetch_add(1); };
  Gate gate;
  {
    TaskExecutor executor({"none", "busy"});
    // Pool 0 has no threads at all: its tasks run during destruction.
    for (int i = 0; i < 50; ++i) {
      executor.Post(0, [&ran] { ran.fetch_add(1); });
    }
    // Pool 1's only worker is held while 50 more queue behind it.
    executor.SetThreads(1, 1);
    Counter started;
    executor.Post(1, [&] {
      started.Add();
      gate.Wait();
    });
    started.WaitFor(1);
    for (int i = 0; i < 50; ++i) {
      executor.Post(1, [&ran] { ran.fetch_add(1); });
    }
    for (int i = 0; i < 10; ++i) {
      TaskOptions options;
      options.delay = hours(1);
      options.on_cancel = on_cancel;
      executor.Post(
          i % 2, [&ran] { ran.fetch_add(1000); }, options);
    }
    gate.Open();
  }
  EXPECT_EQ(ran.load(), 100);
  EXPECT_EQ(cancelled.load(), 10);
}

TEST(TaskExecutorTest, TasksAddedByRunningTasksDuringShutdownAreNotLost) {
  std::atomic<int> ran{0};
  std::atomic<int> cancelled{0};
  {
    TaskExecutor executor({"pool"});
    executor.SetThreads(kPool, 2);
    // Each task queues a follow-up; follow-ups either run or, once the
    // executor is being destroyed, are cancelled: none vanishes.
    for (int i = 0; i < 200; ++i) {
      executor.Post(kPool, [&] {
        ran.fetch_add(1);
        TaskOptions options;
        options.on_cancel = [&cancelled] { cancelled.fetch_add(1); };
        executor.Post(
            kPool, [&ran] { ran.fetch_add(1); }, options);
      });
    }
  }
  EXPECT_EQ(ran.load() + cancelled.load(), 400);
}

}  // namespace
}  // namespace rocksdb_cuckoo
