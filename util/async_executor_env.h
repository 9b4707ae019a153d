// AsyncExecutorEnv: an Env whose background thread pools are a TaskExecutor.
//
// It wraps another Env (Env::Default() unless the `target` option names
// one) and takes over every thread-pool call of the Env interface for the
// HIGH, LOW, BOTTOM and USER pools: Schedule, UnSchedule, StartThread and
// WaitForJoin, GetThreadPoolQueueLen, Set/Get/IncBackgroundThreads(IfNeeded),
// Lower*Priority, Reserve/ReleaseThreads. Files, clocks and the rest are the
// wrapped Env's (SchedulingEnvWrapper). Schedule never waits for a worker, DBs
// sharing the Env get fair turns within each pool, and per-pool queue, wait and
// run statistics are available from StatsString() (or the `stats_file` option).
//
// By name (after register_rocksdb_cuckoo or LD_PRELOAD of the library):
//   Env::CreateFromString(cfg, "AsyncExecutorEnv", &env, &guard);
//   Env::CreateFromString(cfg, "id=AsyncExecutorEnv;low_pri_threads=4", ...);
//   db_bench --env_uri=AsyncExecutorEnv ...
#pragma once

#include <memory>
#include <string>

#include "rocksdb/env.h"
#include "util/option_checks.h"
#include "util/scheduling_env_wrapper.h"

namespace rocksdb_cuckoo {

class TaskExecutor;

struct AsyncExecutorEnvOptions {
  static const char* kName() { return "AsyncExecutorEnvOptions"; }

  // Threads each pool has from the start, in [0, 1024]. DB::Open raises LOW
  // and HIGH to what its options need, as with the default Env.
  int high_pri_threads = 0;
  int low_pri_threads = 0;
  int bottom_pri_threads = 0;
  int user_pri_threads = 0;
  // Fair turns between DBs within a pool; false makes each pool plain FIFO
  // (to measure what fairness buys).
  bool fair_share = true;
  // With fair_share: a pool may run one thread beyond its count, only for
  // the jobs of a DB that has none running while every thread is busy with
  // other DBs' long jobs (so a DB flooding the pool with compactions cannot
  // make another's flush wait for a whole compaction). Untagged jobs (the
  // user's own Schedule calls, RocksDB's untagged purges and file opens)
  // are no DB's: beside them the counts hold. False: the thread counts are
  // hard limits.
  bool starvation_helper = true;
  // When set, the executor's statistics are appended to this file when the
  // Env is destroyed: the way to see them from tools like db_bench.
  std::string stats_file;
};

class AsyncExecutorEnv : public RefusesUnknownOptions<SchedulingEnvWrapper> {
 public:
  using Env = ROCKSDB_NAMESPACE::Env;
  using Status = ROCKSDB_NAMESPACE::Status;

  static const char* kClassName() { return "AsyncExecutorEnv"; }

  explicit AsyncExecutorEnv(
      Env* target = Env::Default(),
      const AsyncExecutorEnvOptions& options = AsyncExecutorEnvOptions());
  // Joins the threads StartThread started, then runs what is still queued.
  // Close every DB using this Env first, as with any Env.
  ~AsyncExecutorEnv() override;

  const char* Name() const override { return kClassName(); }

  Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;

  void Schedule(void (*function)(void* arg), void* arg, Priority pri = LOW,
                void* tag = nullptr,
                void (*unschedFunction)(void* arg) = nullptr) override;
  // Removes the queued jobs tagged `tag` and returns exactly how many; their
  // unschedule functions have run when it returns.
  int UnSchedule(void* tag, Priority pri) override;
  void StartThread(void (*function)(void* arg), void* arg) override;
  // Joins every thread started by this Env's StartThread, except the
  // calling thread itself.
  void WaitForJoin() override;
  unsigned int GetThreadPoolQueueLen(Priority pri = LOW) const override;
  int ReserveThreads(int threads_to_be_reserved, Priority pri) override;
  int ReleaseThreads(int threads_to_be_released, Priority pri) override;
  void SetBackgroundThreads(int number, Priority pri = LOW) override;
  int GetBackgroundThreads(Priority pri = LOW) override;
  void IncBackgroundThreadsIfNeeded(int number, Priority pri) override;
  void LowerThreadPoolIOPriority(Priority pool = LOW) override;
  void LowerThreadPoolCPUPriority(Priority pool = LOW) override;
  Status LowerThreadPoolCPUPriority(
      Priority pool, ROCKSDB_NAMESPACE::CpuPriority pri) override;

  // The executor behind the pools (pool i serves Env::Priority i); include
  // util/executor/task_executor.h to use it.
  TaskExecutor& executor();
  // A line per pool (BOTTOM, LOW, HIGH, USER) with its statistics.
  std::string StatsString() const;

 private:
  // The executor and the threads StartThread started: kept out of this
  // header, which every user of the Env includes.
  struct Impl;

  // Hands options_ to the executor. Call after every change to options_
  // (the constructor and PrepareOptions do).
  void ApplyOptions();

  // Registered with RegisterOptions, which keeps its address.
  AsyncExecutorEnvOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rocksdb_cuckoo
