// The worker threads of one executor pool (one per Env::Priority in
// AsyncExecutorEnv) and their ready queue.
//
// Enqueue is a lock-free push onto an inbox; it takes the pool's mutex only
// to wake a sleeping worker, and never waits for a task to finish. Workers
// move the inbox into the FairReadyQueue under the mutex, run tasks outside
// it, and sleep on their own ThreadParker (no spinning) when there is
// nothing they may run. A worker goes to sleep only after checking the inbox
// once more, and Enqueue wakes one only after its push, so no task is left
// behind with every worker asleep.
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
#include "util/executor_task.h"
#include "util/fair_ready_queue.h"
#include "util/intrusive_mpsc_stack.h"
#include "util/latency_histogram.h"
#include "util/thread_parker.h"

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

  // Threads are named `thread_name` (at most 15 characters are kept).
  ExecutorPool(std::string thread_name, AfterRun after_run);
  // Runs what is still queued on the calling thread; call Shutdown first.
  ~ExecutorPool();

  ExecutorPool(const ExecutorPool&) = delete;
  ExecutorPool& operator=(const ExecutorPool&) = delete;

  // Queues a task already in kReady, taking over one reference to it.
  void Enqueue(ExecutorTask* task);
  // A ready task of this pool left kReady elsewhere (cancelled, snoozed).
  void NoteLeftReady() { ready_count_.fetch_sub(1, std::memory_order_relaxed); }
  void NoteCancelled() { cancelled_.fetch_add(1, std::memory_order_relaxed); }
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
  using Inbox = IntrusiveMpscStack<ExecutorTask, &ExecutorTask::ready_next>;

  void WorkerMain(Worker* worker);
  // Each of these requires mu_.
  void FileInbox();
  // Surplus workers (live_ above target_ after a shrink) only finish the
  // task they run, so they do not count as room.
  int Capacity() const { return std::min(live_, target_) - reserved_; }
  bool MayStartTask() const { return running_ < Capacity(); }
  Worker* PopIdle();
  void WakeIdle(int count, std::unique_lock<std::mutex>* lock);
  void StartWorker();
  void JoinExited();
  // Takes the next entry that still holds a ready task and marks it running.
  bool StartNext(ExecutorTask** task, uint64_t* running_word);
  // Runs a started task on the calling thread; requires mu_ not held.
  void Run(Worker* worker, ExecutorTask* task, uint64_t running_word);
  // Runs every queued task on the calling thread (no workers left).
  void DrainHere(std::unique_lock<std::mutex>* lock);
  void WakeOne();

  const std::string thread_name_;
  const AfterRun after_run_;

  Inbox inbox_;
  std::atomic<int64_t> ready_count_{0};
  std::atomic<uint64_t> cancelled_{0};
  // Mirrors of idle_.size() and reserved_ for Enqueue's lock-free check.
  std::atomic<int> idle_count_{0};
  std::atomic<int> reserved_count_{0};
  std::atomic<bool> io_low_{false};
  std::atomic<int> cpu_priority_{
      static_cast<int>(ROCKSDB_NAMESPACE::CpuPriority::kNormal)};

  mutable std::mutex mu_;
  FairReadyQueue ready_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;  // most recently idle last (warm caches first)
  int target_ = 0;
  int live_ = 0;
  int running_ = 0;
  int reserved_ = 0;
  bool shutdown_ = false;
  // Samples of workers that have been joined.
  LatencyDistribution retired_wait_;
  LatencyDistribution retired_run_;
};

}  // namespace rocksdb_cuckoo
