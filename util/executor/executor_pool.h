// The worker threads of one executor pool (one per Env::Priority in
// AsyncExecutorEnv) and their ready queue.
//
// Enqueue is a lock-free push onto an inbox (sharded by producer thread, so
// producers on different cores do not pass one cache line around). A push
// that finds a worker asleep wakes one (or, when all are busy with long
// tasks, looks for a starved client, below), taking the pool's mutex
// briefly; it never waits for a task. Workers move the inbox into the
// FairReadyQueue under the mutex, run tasks outside it, and when there is
// nothing they may run, watch the inbox briefly (SpinForWork) and then sleep
// on their own ThreadParker. A worker goes to sleep only after checking the
// inbox once more, and Enqueue wakes one only after its push, so no task is
// left behind with every worker asleep.
//
// Fair turns between clients need one more thing when tasks are long: if
// every worker is busy with other clients' tasks (a DB flooding the pool
// with compactions), a client with nothing running would still wait for a
// whole task to end. The pool's helper, one thread beyond the configured
// count, started on first need, runs only such starved clients' tasks, one
// at a time, and sleeps otherwise.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/env.h"
#include "util/executor/adaptive_mutex.h"
#include "util/executor/executor_task.h"
#include "util/executor/fair_ready_queue.h"
#include "util/executor/latency_histogram.h"
#include "util/executor/task_inbox.h"
#include "util/executor/thread_parker.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

// A snapshot of one pool.
struct PoolStats {
  int threads = 0;            // the configured count
  int live_threads = 0;       // started and not retired (above `threads` while
                              // surplus workers finish their task)
  int running = 0;            // tasks running now
  int reserved = 0;           // threads held back by ReserveThreads
  uint64_t queue_length = 0;  // ready tasks not started
  uint64_t cancelled = 0;     // tasks cancelled (any state)
  uint64_t helper_runs = 0;   // tasks of starved clients run by the helper
  LatencyDistribution wait;   // from ready to started, per run
  LatencyDistribution run;    // run time, per run

  uint64_t completed() const { return run.count(); }
  // One line: "threads=.. running=.. queued=.. ran=.. cancelled=..
  // wait[p50 .. p99 ..] run[...]".
  std::string ToString() const;
};

class ExecutorPool {
 public:
  // Called by a worker right after a task's run returns, with the word the
  // task had while running; the worker drops its reference afterwards.
  using AfterRun = std::function<void(ExecutorTask*, uint64_t running_word)>;

  // Run on each thread of the pool as it starts and before it ends.
  struct ThreadHooks {
    std::function<void()> on_start;
    std::function<void()> on_exit;
  };

  // Threads are named `thread_name` (at most 15 characters are kept).
  ExecutorPool(std::string thread_name, AfterRun after_run,
               ThreadHooks hooks = ThreadHooks());
  // Runs what is still queued on the calling thread. Shutdown() must have
  // been called.
  ~ExecutorPool();

  ExecutorPool(const ExecutorPool&) = delete;
  ExecutorPool& operator=(const ExecutorPool&) = delete;

  // Queues a task already in kReady, taking over one reference to it.
  void Enqueue(ExecutorTask* task);
  // Enqueue for a task no other thread has seen yet (it cannot be linked
  // anywhere), which saves an atomic exchange.
  void EnqueueNew(ExecutorTask* task);
  // A ready task of this pool left kReady elsewhere (cancelled, snoozed).
  void NoteLeftReady() { Count(kLeftReady); }
  void NoteCancelled() { Count(kCancelled); }
  // Cancels every ready task tagged `tag`; appends them to *out, one
  // reference each for the caller.
  void CancelTagged(const void* tag, std::vector<ExecutorTask*>* out);

  // Grows the pool at once; shrinking lets surplus workers finish their
  // current task first. Never waits for a task.
  void SetThreads(int count, bool allow_reduce);
  int threads() const;
  // Holds back up to `count` idle threads from taking tasks (RocksDB's
  // compactions use them for their own subcompaction threads); returns how
  // many were reserved. ReleaseThreads gives them back.
  int ReserveThreads(int count);
  int ReleaseThreads(int count);
  // Whether the pool may start (or wake) its helper for starved clients.
  void EnableHelper(bool enabled) {
    helper_enabled_.store(enabled, std::memory_order_relaxed);
  }
  // Applied by each worker before its next task.
  void LowerIOPriority();
  void LowerCPUPriority(ROCKSDB_NAMESPACE::CpuPriority priority);

  unsigned QueueLength() const;
  PoolStats Stats() const;

  // Runs every queued task (and those they queue) on the workers, or on the
  // calling thread when there are none, then joins the workers.
  void Shutdown();

 private:
  struct Worker {
    ThreadParker parker;
    std::thread thread;
    bool idle = false;    // in idle_; guarded by mu_
    bool exited = false;  // guarded by mu_
    LatencyHistogram wait;
    LatencyHistogram run;
    // Only the worker's own thread reads or writes these.
    bool io_lowered = false;
    ROCKSDB_NAMESPACE::CpuPriority cpu =
        ROCKSDB_NAMESPACE::CpuPriority::kNormal;
  };
  using Inbox =
      TaskInbox<&ExecutorTask::ready_next, &ExecutorTask::in_ready_inbox>;
  using Mutex = AdaptiveMutex;
  using Lock = std::unique_lock<Mutex>;

  void WorkerMain(Worker* worker);
  // Moves the inbox into ready_.
  // REQUIRES: mu_ held.
  void FileInbox();
  // Surplus workers (live_ above target_ after a shrink) only finish the
  // task they run, so they do not count as room.
  // REQUIRES: mu_ held.
  int Capacity() const { return std::min(live_, target_) - reserved_; }
  // REQUIRES: mu_ held.
  bool MayStartTask() const { return running_ < Capacity(); }
  // Workers are running tasks and none may start another: the helper's cue
  // (a pool without threads runs nothing, not even on the helper).
  // REQUIRES: mu_ held.
  bool AllWorkersBusy() const { return running_ > 0 && !MayStartTask(); }
  // The most recently idle worker, taken off idle_; the caller Unparks it
  // once mu_ is released.
  // REQUIRES: mu_ held.
  Worker* PopIdle();
  // For the threads other than workers that file the inbox (the helper,
  // HelpStarved, CancelTagged): a worker that counted itself idle and then
  // found the inbox empty, because one of them had just emptied it, is going
  // to sleep. So after filing they take the idle worker to wake (Unpark it
  // once mu_ is released) if a ready task could start; nullptr if none.
  // REQUIRES: mu_ held.
  Worker* PopIdleForReadyTasks();
  // Wakes up to `count` idle workers.
  // REQUIRES: mu_ held through *lock (released while it unparks them).
  void WakeIdle(int count, Lock* lock);
  // REQUIRES: mu_ held.
  void StartWorker();
  // Joins the workers that have retired and keeps their statistics.
  // REQUIRES: mu_ held.
  void JoinExited();
  // A task taken from the queue and marked running.
  struct Started {
    ExecutorTask* task;
    uint64_t running_word;
    const void* client;
  };
  // Short tasks (recent average run under kShortTaskNanos) are taken as
  // many at a time as make about kBatchNanos of work, up to kMaxBatch, but
  // no more than this worker's share of the queue: a stream of tiny tasks
  // then costs one lock round trip per batch rather than per task, while a
  // task taken into a batch waits behind at most that much of it. Long ones
  // (flushes, compactions) go one by one, so none waits behind another on a
  // busy worker while a worker is free. (A fixed batch size, whatever the
  // tasks' length, cost more CPU per job in a flood of empty ones.)
  static constexpr int kMaxBatch = 128;
  static constexpr uint64_t kBatchNanos = 10000;
  static constexpr uint64_t kShortTaskNanos = 20000;
  // Whether the recent average run is long (racy: a hint, read lock-free).
  bool TasksAreLong() const {
    return avg_run_nanos_.load(std::memory_order_relaxed) >= kShortTaskNanos;
  }
  // REQUIRES: mu_ held.
  int BatchLimit() const;
  // Whether a worker that leaves ready tasks behind should wake another.
  // Always for long tasks, each of which needs a thread of its own. Short
  // ones are waited for by a CPU, not a thread: while as many workers are
  // awake as the process has CPUs, one more would only take CPU time from
  // the workers holding the tasks, and delay the very tasks it would start.
  // REQUIRES: mu_ held.
  bool AnotherWorkerHelps() const;
  // Takes up to `limit` tasks that are still ready and marks them running.
  // Each must then go through RunBatch and FinishBatch.
  // REQUIRES: mu_ held.
  int StartBatch(Started* batch, int limit);
  // Runs a batch from StartBatch on the calling thread.
  // REQUIRES: mu_ not held.
  void RunBatch(Worker* worker, const Started* batch, int n);
  // Counts the batch's clients' tasks as ended; after RunBatch.
  // REQUIRES: mu_ held.
  void FinishBatch(const Started* batch, int n);
  // Runs every queued task on the calling thread (no workers left).
  // REQUIRES: mu_ held through *lock (released while tasks run).
  void DrainHere(Lock* lock);
  // REQUIRES: mu_ not held.
  void WakeOne();
  // After a push; `first_of_burst`: the push found its inbox shard empty.
  // REQUIRES: mu_ not held.
  void WakeIfIdle(bool first_of_burst);
  // Before a worker sleeps: watches the inbox for up to kSpinNanos, with
  // mu_ released, and says whether a task came. Waking a sleeping thread
  // takes far longer than a hand-over to a running one (longer still on a
  // virtual machine), so a task that follows the last one closely starts at
  // once instead. One worker per pool spins at a time, which bounds the CPU
  // it costs.
  // REQUIRES: mu_ held through *lock (released while it watches).
  bool SpinForWork(Lock* lock);
  static constexpr uint64_t kSpinNanos = 50000;
  // Wakes (or starts) the helper if a starved client has a task and every
  // worker is busy.
  // REQUIRES: mu_ not held.
  void HelpStarved();
  void HelperMain(Worker* helper);
  // Takes one task of a starved client and marks it running; the caller
  // runs it and then calls ready_.Finished(client).
  // REQUIRES: mu_ held.
  bool StartStarved(Started* started);

  // For the life of one of the pool's threads: names it, runs the hooks.
  class ThreadScope {
   public:
    explicit ThreadScope(const ExecutorPool* pool);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

   private:
    const ExecutorPool* const pool_;
  };

  const std::string thread_name_;
  const AfterRun after_run_;
  const ThreadHooks hooks_;
  // CPUs this process may run on, when the pool was made.
  const int cpus_;

  // Counted by many threads, so striped (no shared cache line): the stripe
  // of the caller's CPU, one lookup per count (one count per operation).
  enum Counter { kEnqueued, kLeftReady, kCancelled, kNumCounters };
  void Count(Counter counter) const;

  Inbox inbox_;
  StripedCounters counters_;
  // What every Enqueue reads, on a line that workers write only when they
  // go to sleep, wake or spin.
  // Mirrors of idle_.size() and reserved_ for Enqueue's lock-free check.
  alignas(64) std::atomic<int> idle_count_{0};
  std::atomic<int> reserved_count_{0};
  std::atomic<bool> helper_enabled_{true};
  std::atomic<bool> spinning_{false};
  // Written by workers once a batch, on a line of their own.
  // Tasks taken from the queue; written under mu_, read without.
  alignas(64) std::atomic<uint64_t> started_{0};
  // Recent average run time, deciding between batches and single tasks;
  // starts high so that batching waits for evidence of short tasks.
  std::atomic<uint64_t> avg_run_nanos_{1000000};
  std::atomic<bool> io_low_{false};
  std::atomic<int> cpu_priority_{
      static_cast<int>(ROCKSDB_NAMESPACE::CpuPriority::kNormal)};

  alignas(64) mutable Mutex mu_;
  // Guarded by mu_ (Shutdown reads workers_ without it, once no one can
  // change it).
  FairReadyQueue ready_;
  std::vector<ExecutorTask*> filing_;  // FileInbox's scratch list
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;  // most recently idle last (warm caches first)
  int target_ = 0;
  int live_ = 0;
  int running_ = 0;  // workers running a batch
  Worker* helper_ = nullptr;
  bool helper_idle_ = false;
  uint64_t helper_runs_ = 0;
  int reserved_ = 0;
  bool shutdown_ = false;
  // Samples of workers that have been joined.
  LatencyDistribution retired_wait_;
  LatencyDistribution retired_run_;
};

}  // namespace rocksdb_cuckoo
