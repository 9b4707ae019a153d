// TaskExecutor: background work on pools of worker threads, with priorities,
// delayed tasks, non-blocking cancel and snooze, fair turns between clients,
// and per-pool statistics. AsyncExecutorEnv runs RocksDB's flushes and
// compactions on one (a pool per Env::Priority).
//
//   TaskExecutor executor({"low", "high"});
//   executor.SetThreads(/*pool=*/0, 4);
//   TaskOptions options;
//   options.delay = 100ms;
//   TaskHandle h = executor.Add(0, [] { ... }, options);
//   executor.Snooze(h, 1s);   // returns at once
//   executor.Cancel(h);       // true: it will not run; on_cancel was called
//
// Nothing here waits for a worker: Add, Post, Cancel and Snooze are
// lock-free pushes and compare-and-swaps (an Add that finds its pool's
// inbox empty takes the pool's mutex briefly, to wake a sleeping worker).
// SnoozeAndWait is the one call that waits, for callers that must know a
// running task's current run has ended.
//
// Each pool has its own threads; within a pool, ready tasks run in
// TaskPriority order, and among tasks of one priority the client with the
// fewest tasks running goes first (FairReadyQueue); a client starved by
// others' long tasks gets the pool's helper thread (ExecutorPool).
// Destroying the executor runs every ready task and cancels every delayed
// one: no task is dropped without either running or having its on_cancel
// called.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rocksdb/env.h"
#include "util/executor/delayed_task_queue.h"
#include "util/executor/executor_pool.h"
#include "util/executor/executor_task.h"

namespace rocksdb_cuckoo {

struct TaskOptions {
  TaskPriority priority = TaskPriority::kNormal;
  // Runs no sooner than this after Add. Wake times reach nine years past
  // the first one the process asked for; a task due beyond that runs then.
  std::chrono::nanoseconds delay{0};
  // CancelTagged(pool, tag) cancels every pending task with this tag.
  const void* tag = nullptr;
  // Tasks of one client share turns with other clients' (nullptr is a
  // client too).
  const void* client = nullptr;
  // Called once if the task is cancelled before it runs, on the cancelling
  // thread (or, at shutdown, the destroying one).
  std::function<void()> on_cancel;
};

class TaskExecutor {
 public:
  // One pool per name; pool i's threads are named "cuckoo-<name>" and run
  // thread_hooks(i), if given, as they start and end. Pools start with no
  // threads.
  explicit TaskExecutor(
      const std::vector<std::string>& pool_names,
      const std::function<ExecutorPool::ThreadHooks(int pool)>& thread_hooks =
          nullptr);
  // Shutdown().
  ~TaskExecutor();

  TaskExecutor(const TaskExecutor&) = delete;
  TaskExecutor& operator=(const TaskExecutor&) = delete;

  // Runs every ready task, cancels every delayed one and joins all threads;
  // from then on Add and Post cancel their task at once. Statistics stay
  // readable. Only the first call does anything.
  void Shutdown();

  int num_pools() const { return static_cast<int>(pools_.size()); }

  // Queues `run` on `pool`. After Shutdown has begun, the task is cancelled
  // at once instead.
  TaskHandle Add(int pool, std::function<void()> run,
                 TaskOptions options = TaskOptions());
  // Add without a handle: the task can be cancelled only by tag.
  void Post(int pool, std::function<void()> run,
            TaskOptions options = TaskOptions());

  // Cancels a pending run: true if the task was waiting (delayed or ready)
  // or was running with a rerun pending; on_cancel has then been called.
  // False if it had finished, been cancelled, or is running with no rerun
  // (a run in progress is never interrupted). Never blocks.
  bool Cancel(const TaskHandle& handle);
  // Makes the task's next run start `delay` from now: a waiting task moves
  // (earlier or later), a running one runs again when due after this run
  // ends. No effect on a finished or cancelled task. Never blocks.
  void Snooze(const TaskHandle& handle, std::chrono::nanoseconds delay);
  // Snooze for callers that need the answer: if the task is running, waits
  // for that run to end. Returns true if the task is then due at now+delay
  // (and not running), false if it had finished or been cancelled. Not from
  // the task's own run, which it would wait for.
  bool SnoozeAndWait(const TaskHandle& handle, std::chrono::nanoseconds delay);
  // Cancels every waiting task of `pool` tagged `tag` and returns how many,
  // exactly; their on_cancel functions have run when it returns. Running
  // tasks are not counted.
  int CancelTagged(int pool, const void* tag);

  void SetThreads(int pool, int count) {
    pools_[pool]->SetThreads(count, true);
  }
  void IncThreadsIfNeeded(int pool, int count) {
    pools_[pool]->SetThreads(count, false);
  }
  int GetThreads(int pool) const { return pools_[pool]->threads(); }
  int ReserveThreads(int pool, int count) {
    return pools_[pool]->ReserveThreads(count);
  }
  int ReleaseThreads(int pool, int count) {
    return pools_[pool]->ReleaseThreads(count);
  }
  // On by default: each pool may run one thread beyond its count, only for
  // the tasks of a client that has none running while every worker is busy
  // with other clients' long tasks (see ExecutorPool). Off: the counts are
  // hard limits.
  void EnableStarvationHelper(bool enabled) {
    for (auto& pool : pools_) pool->EnableHelper(enabled);
  }
  void LowerIOPriority(int pool) { pools_[pool]->LowerIOPriority(); }
  void LowerCPUPriority(int pool, ROCKSDB_NAMESPACE::CpuPriority priority) {
    pools_[pool]->LowerCPUPriority(priority);
  }

  // Ready tasks not started.
  unsigned QueueLength(int pool) const { return pools_[pool]->QueueLength(); }
  PoolStats GetPoolStats(int pool) const { return pools_[pool]->Stats(); }
  // A line per pool: "<name>: " + PoolStats::ToString().
  std::string StatsString() const;

 private:
  ExecutorTask* NewTask(int pool, std::function<void()> run,
                        TaskOptions options, bool posted);
  // Queues a new task holding one reference for its queue.
  void Submit(ExecutorTask* task, std::chrono::nanoseconds delay);
  // What Snooze and SnoozeAndWait share; returns the state it moved from.
  TaskState SnoozeTask(ExecutorTask* task, std::chrono::nanoseconds delay);
  // Counts the cancellation and runs on_cancel.
  void RunOnCancel(ExecutorTask* task);
  void AfterRun(ExecutorTask* task, uint64_t running_word);

  const std::vector<std::string> pool_names_;
  std::vector<std::unique_ptr<ExecutorPool>> pools_;
  DelayedTaskQueue timer_;
  std::atomic<bool> shutting_down_{false};

  // SnoozeAndWait sleeps here until a run ends.
  std::mutex run_end_mu_;
  std::condition_variable run_end_cv_;
  std::atomic<int> run_end_waiters_{0};
};

}  // namespace rocksdb_cuckoo
