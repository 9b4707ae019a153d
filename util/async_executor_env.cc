#include "util/async_executor_env.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "monitoring/thread_status_util.h"
#include "rocksdb/thread_status.h"
#include "rocksdb/utilities/options_type.h"
#include "util/executor/task_executor.h"
#include "util/option_checks.h"
#include "util/plugin_usage.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::CpuPriority;
using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::OptionType;
using ROCKSDB_NAMESPACE::OptionTypeFlags;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::OptionVerificationType;
using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr int kMaxThreads = 1024;

Status CheckThreads(const std::string& name, const int& threads) {
  return CheckInRange(AsyncExecutorEnv::kClassName(), name, threads, 0,
                      kMaxThreads);
}

OptionTypeInfo ThreadsOption(size_t offset) {
  return CheckedOption<int>(offset, OptionType::kInt, CheckThreads);
}

const std::unordered_map<std::string, OptionTypeInfo> kOptionTypeInfo = {
    {"high_pri_threads",
     ThreadsOption(offsetof(AsyncExecutorEnvOptions, high_pri_threads))},
    {"low_pri_threads",
     ThreadsOption(offsetof(AsyncExecutorEnvOptions, low_pri_threads))},
    {"bottom_pri_threads",
     ThreadsOption(offsetof(AsyncExecutorEnvOptions, bottom_pri_threads))},
    {"user_pri_threads",
     ThreadsOption(offsetof(AsyncExecutorEnvOptions, user_pri_threads))},
    {"fair_share",
     {offsetof(AsyncExecutorEnvOptions, fair_share), OptionType::kBoolean,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"starvation_helper",
     {offsetof(AsyncExecutorEnvOptions, starvation_helper),
      OptionType::kBoolean, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"stats_file",
     {offsetof(AsyncExecutorEnvOptions, stats_file), OptionType::kString,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
};

// RocksDB's thread type of the threads of pool i (see PoolNames).
ROCKSDB_NAMESPACE::ThreadStatus::ThreadType ThreadTypeOf(int pool) {
  using ROCKSDB_NAMESPACE::ThreadStatus;
  switch (pool) {
    case Env::BOTTOM:
      return ThreadStatus::BOTTOM_PRIORITY;
    case Env::LOW:
      return ThreadStatus::LOW_PRIORITY;
    case Env::HIGH:
      return ThreadStatus::HIGH_PRIORITY;
    default:
      return ThreadStatus::USER;
  }
}

// Executor pool i serves Env::Priority i (BOTTOM, LOW, HIGH, USER).
const std::vector<std::string>& PoolNames() {
  static const std::vector<std::string> names = {"bottom", "low", "high",
                                                 "user"};
  return names;
}

bool ValidPool(Env::Priority pri) {
  return pri >= Env::BOTTOM && pri < Env::TOTAL;
}

// RocksDB never schedules on TOTAL; should anyone, LOW (Env's default pool)
// runs the job rather than losing it.
int PoolOf(Env::Priority pri) {
  return ValidPool(pri) ? static_cast<int>(pri) : static_cast<int>(Env::LOW);
}

// The fairness client of a job. RocksDB tags a DB's jobs with its DBImpl's
// address plus a small TaskType offset (DBImpl::GetTaskTag; 0 or 1 in
// 7.8.3), so clearing the low bits makes all of one DB's jobs one client.
// DBImpl objects are far larger than 16 bytes, so two DBs never merge.
const void* ClientOf(const void* tag) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(tag) &
                                       ~uintptr_t{15});
}

// Registers each thread of pool `pool` with RocksDB's thread status, as
// RocksDB's own pools do: GetThreadList then shows each thread by its pool,
// and the flush or compaction it runs (enable_thread_tracking).
ExecutorPool::ThreadHooks ThreadStatusHooks(Env* env, int pool) {
  const ROCKSDB_NAMESPACE::ThreadStatus::ThreadType type = ThreadTypeOf(pool);
  return {[env, type] {
            ROCKSDB_NAMESPACE::ThreadStatusUtil::RegisterThread(env, type);
          },
          [] { ROCKSDB_NAMESPACE::ThreadStatusUtil::UnregisterThread(); }};
}

}  // namespace

struct AsyncExecutorEnv::Impl {
  explicit Impl(Env* env)
      : executor(PoolNames(),
                 [env](int pool) { return ThreadStatusHooks(env, pool); }) {}

  TaskExecutor executor;
  std::mutex started_mu;
  std::vector<std::thread> started;  // guarded by started_mu
};

AsyncExecutorEnv::AsyncExecutorEnv(Env* target,
                                   const AsyncExecutorEnvOptions& options)
    : RefusesUnknownOptions(target),
      options_(options),
      impl_(std::make_unique<Impl>(this)) {
  RegisterOptions(&options_, &kOptionTypeInfo);
  ApplyOptions();
}

AsyncExecutorEnv::~AsyncExecutorEnv() {
  WaitForJoin();
  impl_->executor.Shutdown();  // so the statistics count every job
  if (!options_.stats_file.empty()) {
    if (FILE* f = fopen(options_.stats_file.c_str(), "a")) {
      fprintf(f, "%s\n%s", kClassName(), StatsString().c_str());
      fclose(f);
    }
  }
}

TaskExecutor& AsyncExecutorEnv::executor() { return impl_->executor; }

std::string AsyncExecutorEnv::StatsString() const {
  return impl_->executor.StatsString();
}

void AsyncExecutorEnv::ApplyOptions() {
  impl_->executor.EnableStarvationHelper(options_.starvation_helper);
  impl_->executor.IncThreadsIfNeeded(Env::HIGH, options_.high_pri_threads);
  impl_->executor.IncThreadsIfNeeded(Env::LOW, options_.low_pri_threads);
  impl_->executor.IncThreadsIfNeeded(Env::BOTTOM, options_.bottom_pri_threads);
  impl_->executor.IncThreadsIfNeeded(Env::USER, options_.user_pri_threads);
}

Status AsyncExecutorEnv::PrepareOptions(const ConfigOptions& config_options) {
  // First the options' own checks; then apply them, as they may have been
  // configured since the constructor.
  const Status s = SchedulingEnvWrapper::PrepareOptions(config_options);
  if (s.ok()) ApplyOptions();
  return s;
}

void AsyncExecutorEnv::Schedule(void (*function)(void* arg), void* arg,
                                Priority pri, void* tag,
                                void (*unschedFunction)(void* arg)) {
  TaskOptions options;
  options.tag = tag;
  options.client = options_.fair_share ? ClientOf(tag) : nullptr;
  if (unschedFunction != nullptr) {
    options.on_cancel = [unschedFunction, arg] { unschedFunction(arg); };
  }
  impl_->executor.Post(
      PoolOf(pri),
      [function, arg] {
        CountPluginUse(PluginUse::kEnvJobRun);
        function(arg);
      },
      std::move(options));
}

int AsyncExecutorEnv::UnSchedule(void* tag, Priority pri) {
  return ValidPool(pri) ? impl_->executor.CancelTagged(pri, tag) : 0;
}

void AsyncExecutorEnv::StartThread(void (*function)(void* arg), void* arg) {
  std::lock_guard<std::mutex> lock(impl_->started_mu);
  impl_->started.emplace_back(function, arg);
}

void AsyncExecutorEnv::WaitForJoin() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(impl_->started_mu);
    threads.swap(impl_->started);
  }
  for (std::thread& thread : threads) {
    // A started thread may end the process (exit() runs this Env's
    // destructor on that thread); joining itself would throw and abort.
    if (thread.get_id() == std::this_thread::get_id()) {
      thread.detach();
    } else {
      thread.join();
    }
  }
}

unsigned int AsyncExecutorEnv::GetThreadPoolQueueLen(Priority pri) const {
  return ValidPool(pri) ? impl_->executor.QueueLength(pri) : 0;
}

int AsyncExecutorEnv::ReserveThreads(int threads_to_be_reserved, Priority pri) {
  return ValidPool(pri)
             ? impl_->executor.ReserveThreads(pri, threads_to_be_reserved)
             : 0;
}

int AsyncExecutorEnv::ReleaseThreads(int threads_to_be_released, Priority pri) {
  return ValidPool(pri)
             ? impl_->executor.ReleaseThreads(pri, threads_to_be_released)
             : 0;
}

void AsyncExecutorEnv::SetBackgroundThreads(int number, Priority pri) {
  if (ValidPool(pri)) impl_->executor.SetThreads(pri, number);
}

int AsyncExecutorEnv::GetBackgroundThreads(Priority pri) {
  return ValidPool(pri) ? impl_->executor.GetThreads(pri) : 0;
}

void AsyncExecutorEnv::IncBackgroundThreadsIfNeeded(int number, Priority pri) {
  if (ValidPool(pri)) impl_->executor.IncThreadsIfNeeded(pri, number);
}

void AsyncExecutorEnv::LowerThreadPoolIOPriority(Priority pool) {
  if (ValidPool(pool)) impl_->executor.LowerIOPriority(pool);
}

void AsyncExecutorEnv::LowerThreadPoolCPUPriority(Priority pool) {
  if (ValidPool(pool))
    impl_->executor.LowerCPUPriority(pool, CpuPriority::kLow);
}

Status AsyncExecutorEnv::LowerThreadPoolCPUPriority(Priority pool,
                                                    CpuPriority pri) {
  if (!ValidPool(pool)) {
    return Status::InvalidArgument(kClassName(), "no such thread pool");
  }
  impl_->executor.LowerCPUPriority(pool, pri);
  return Status::OK();
}

}  // namespace rocksdb_cuckoo
