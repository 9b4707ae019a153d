#include "util/executor/executor_pool.h"

#include <pthread.h>
#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdio>

#include "util/executor/cycle_clock.h"
#include "util/executor/task_recycler.h"
#include "util/executor/thread_priority.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::CpuPriority;

namespace {

int AllowedCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// One step of a spin-wait: tells the core the thread is waiting, so a
// sibling hardware thread gets its resources and leaving the loop does not
// flush the pipeline. Nothing on targets without such a hint.
inline void SpinPause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

std::string PoolStats::ToString() const {
  char head[192];
  snprintf(head, sizeof(head),
           "threads=%d live=%d running=%d reserved=%d queued=%llu ran=%llu "
           "cancelled=%llu helper_ran=%llu",
           threads, live_threads, running, reserved,
           static_cast<unsigned long long>(queue_length),
           static_cast<unsigned long long>(completed()),
           static_cast<unsigned long long>(cancelled),
           static_cast<unsigned long long>(helper_runs));
  return std::string(head) + " wait[" + wait.ToString() + "] run[" +
         run.ToString() + "]";
}

ExecutorPool::ExecutorPool(std::string thread_name, AfterRun after_run,
                           ThreadHooks hooks)
    : thread_name_(std::move(thread_name)),
      after_run_(std::move(after_run)),
      hooks_(std::move(hooks)),
      cpus_(AllowedCpus()),
      counters_(kNumCounters, StripeMode::kCore) {
  CycleClock::NanosPerTick();  // calibrate now, not in a worker's first task
}

ExecutorPool::~ExecutorPool() {
  // Tasks that arrived after Shutdown's workers left.
  Lock lock(mu_);
  DrainHere(&lock);
}

void ExecutorPool::EnqueueNew(ExecutorTask* task) {
  // Not visible to any other thread yet, so plain stores do.
  task->ready_tick.store(CycleClock::Now(), std::memory_order_relaxed);
  task->in_ready_inbox.store(true, std::memory_order_relaxed);
  Count(kEnqueued);
  WakeIfIdle(inbox_.Push(task));
}

void ExecutorPool::Enqueue(ExecutorTask* task) {
  task->ready_tick.store(CycleClock::Now(), std::memory_order_relaxed);
  Count(kEnqueued);
  // Handshake 1 in util/executor/executor_task.h: a task that is linked
  // already is seen in its new state when filed.
  if (task->in_ready_inbox.exchange(true, std::memory_order_seq_cst)) {
    task->Unref();
  } else {
    WakeIfIdle(inbox_.Push(task));
  }
}

void ExecutorPool::Count(Counter counter) const {
  counters_.Local().Add(counter, 1);
}

// A spinning worker takes the first task of a burst by itself; every other
// task wakes a sleeping worker while there is one, so a burst spreads over
// the idle workers at once instead of one wake-up after another. With no
// idle worker a push costs two loads, no lock and no system call.
void ExecutorPool::WakeIfIdle(bool first_of_burst) {
  // Handshake 2 in util/executor/executor_task.h.
  if (first_of_burst && spinning_.load(std::memory_order_seq_cst)) return;
  if (idle_count_.load(std::memory_order_seq_cst) >
      reserved_count_.load(std::memory_order_relaxed)) {
    WakeOne();
  } else if (first_of_burst &&
             helper_enabled_.load(std::memory_order_relaxed) &&
             TasksAreLong()) {
    // Every worker is busy and tasks are long: the one that just arrived
    // may belong to a client that would otherwise wait for a whole task.
    HelpStarved();
  }
}

void ExecutorPool::HelpStarved() {
  Worker* wake = nullptr;
  {
    std::lock_guard<Mutex> lock(mu_);
    if (shutdown_) return;
    FileInbox();
    wake = PopIdleForReadyTasks();
    if (wake == nullptr && AllWorkersBusy() && ready_.HasStarved()) {
      if (helper_ == nullptr) {
        workers_.push_back(std::make_unique<Worker>());
        helper_ = workers_.back().get();
        helper_->thread = std::thread(&ExecutorPool::HelperMain, this, helper_);
      } else if (helper_idle_) {
        helper_idle_ = false;
        wake = helper_;
      }
    }
  }
  if (wake != nullptr) wake->parker.Unpark();
}

ExecutorPool::Worker* ExecutorPool::PopIdleForReadyTasks() {
  if (ready_.empty() || !MayStartTask() ||
      static_cast<int>(idle_.size()) <= reserved_) {
    return nullptr;
  }
  return PopIdle();
}

bool ExecutorPool::StartStarved(Started* started) {
  ExecutorTask* task = nullptr;
  uint64_t word = 0;
  while (ready_.PopStarved(&task, &word)) {
    if (task->Transition(word, TaskState::kRunning)) {
      *started = {task, NextWord(word, TaskState::kRunning), task->client};
      started_.store(started_.load(std::memory_order_relaxed) + 1,
                     std::memory_order_relaxed);
      return true;
    }
    ready_.Finished(task->client);
    task->Unref();
  }
  return false;
}

ExecutorPool::ThreadScope::ThreadScope(const ExecutorPool* pool) : pool_(pool) {
  pthread_setname_np(pthread_self(), pool->thread_name_.substr(0, 15).c_str());
  if (pool->hooks_.on_start) pool->hooks_.on_start();
}

ExecutorPool::ThreadScope::~ThreadScope() {
  if (pool_->hooks_.on_exit) pool_->hooks_.on_exit();
}

void ExecutorPool::HelperMain(Worker* helper) {
  ThreadScope scope(this);
  Lock lock(mu_);
  while (!shutdown_) {
    FileInbox();
    if (Worker* idle = PopIdleForReadyTasks()) {
      lock.unlock();
      idle->parker.Unpark();
      lock.lock();
      continue;
    }
    Started started;
    // Only while the workers cannot: a free worker serves the starved
    // client first anyway.
    if (AllWorkersBusy() && StartStarved(&started)) {
      lock.unlock();
      RunBatch(helper, &started, 1);
      lock.lock();
      ready_.Finished(started.client);
      ++helper_runs_;
      continue;
    }
    helper_idle_ = true;
    lock.unlock();
    helper->parker.Park();
    lock.lock();
  }
  helper->exited = true;
}

void ExecutorPool::WakeOne() {
  Worker* worker = nullptr;
  {
    std::lock_guard<Mutex> lock(mu_);
    if (static_cast<int>(idle_.size()) > reserved_) worker = PopIdle();
  }
  // A popped worker cannot exit before this wakes it, so it is still there.
  if (worker != nullptr) worker->parker.Unpark();
}

ExecutorPool::Worker* ExecutorPool::PopIdle() {
  if (idle_.empty()) return nullptr;
  Worker* worker = idle_.back();
  idle_.pop_back();
  worker->idle = false;
  idle_count_.fetch_sub(1, std::memory_order_relaxed);
  return worker;
}

void ExecutorPool::WakeIdle(int count, Lock* lock) {
  std::vector<Worker*> woken;
  while (count-- > 0 && !idle_.empty()) woken.push_back(PopIdle());
  lock->unlock();
  for (Worker* worker : woken) worker->parker.Unpark();
  lock->lock();
}

void ExecutorPool::FileInbox() {
  // The walk also fetches the lines that filing and running will need.
  inbox_.TakeAll(&filing_, [](ExecutorTask* task) {
    __builtin_prefetch(&task->run);
    __builtin_prefetch(&task->queued_word, 1);
  });
  for (ExecutorTask* filed : filing_) {
    const uint64_t word = filed->word.load(std::memory_order_relaxed);
    // Not ready any more (cancelled or snoozed before it was filed), or
    // queued already (its place there now carries the newer word).
    if (StateOf(word) != TaskState::kReady || !ready_.Push(filed, word)) {
      filed->Unref();
    }
  }
}

int ExecutorPool::BatchLimit() const {
  if (TasksAreLong()) return 1;
  const size_t share = ready_.size() / static_cast<size_t>(std::max(1, live_));
  const uint64_t avg =
      std::max<uint64_t>(1, avg_run_nanos_.load(std::memory_order_relaxed));
  const size_t worth = static_cast<size_t>(kBatchNanos / avg);
  return static_cast<int>(std::min<size_t>(
      {kMaxBatch, std::max<size_t>(1, worth), std::max<size_t>(1, share)}));
}

bool ExecutorPool::AnotherWorkerHelps() const {
  if (TasksAreLong()) return true;
  const int awake = live_ - static_cast<int>(idle_.size());
  return awake < cpus_;
}

int ExecutorPool::StartBatch(Started* batch, int limit) {
  int n = 0;
  ExecutorTask* task = nullptr;
  uint64_t word = 0;
  while (n < limit && ready_.Pop(&task, &word)) {
    if (task->posted || task->Transition(word, TaskState::kRunning)) {
      batch[n++] = {task, NextWord(word, TaskState::kRunning), task->client};
    } else {
      // Stale: cancelled or snoozed since it was queued.
      ready_.Finished(task->client);
      task->Unref();
    }
  }
  started_.store(started_.load(std::memory_order_relaxed) + n,
                 std::memory_order_relaxed);
  return n;
}

void ExecutorPool::RunBatch(Worker* worker, const Started* batch, int n) {
  if (io_low_.load(std::memory_order_relaxed) && !worker->io_lowered) {
    LowerCurrentThreadIOPriority();
    worker->io_lowered = true;
  }
  const auto cpu =
      static_cast<CpuPriority>(cpu_priority_.load(std::memory_order_relaxed));
  if (cpu < worker->cpu) {
    SetCurrentThreadCpuPriority(cpu);
    worker->cpu = cpu;
  }
  // One stamp between two tasks ends the one and starts the next.
  const uint64_t batch_start = CycleClock::Now();
  uint64_t start = batch_start;
  for (int i = 0; i < n; ++i) {
    ExecutorTask* task = batch[i].task;
    const uint64_t ready = task->ready_tick.load(std::memory_order_relaxed);
    worker->wait.Record(CycleClock::ToNanos(start > ready ? start - ready : 0));
    task->run();
    const uint64_t end = CycleClock::Now();
    worker->run.Record(CycleClock::ToNanos(end - start));
    if (task->posted) {
      TaskRecycler::Release(task);
    } else {
      after_run_(task, batch[i].running_word);
      task->Unref();
    }
    start = end;
  }
  // A rough moving average over batches (racy updates just lose a sample),
  // updated once a batch: the line is shared by every worker of the pool.
  const uint64_t mean = CycleClock::ToNanos(start - batch_start) / n;
  const uint64_t avg = avg_run_nanos_.load(std::memory_order_relaxed);
  avg_run_nanos_.store(avg - avg / 8 + mean / 8, std::memory_order_relaxed);
}

void ExecutorPool::FinishBatch(const Started* batch, int n) {
  --running_;
  for (int i = 0; i < n; ++i) ready_.Finished(batch[i].client);
}

void ExecutorPool::WorkerMain(Worker* worker) {
  ThreadScope scope(this);
  Started batch[kMaxBatch];
  Lock lock(mu_);
  for (;;) {
    if (live_ > target_) break;  // surplus after a shrink: retire
    FileInbox();
    const int n = MayStartTask() ? StartBatch(batch, BatchLimit()) : 0;
    if (n > 0) {
      ++running_;
      // More left than this batch: a sleeping worker may start on it now.
      Worker* another = !ready_.empty() && MayStartTask() &&
                                static_cast<int>(idle_.size()) > reserved_ &&
                                AnotherWorkerHelps()
                            ? PopIdle()
                            : nullptr;
      lock.unlock();
      if (another != nullptr) another->parker.Unpark();
      RunBatch(worker, batch, n);
      lock.lock();
      FinishBatch(batch, n);
      continue;
    }
    // At shutdown the workers still running drain what is left.
    if (shutdown_) break;
    // Spin before sleeping. What changed meanwhile (a task, Shutdown, a
    // shrink, released reservations: their wake-ups reach only sleeping
    // workers) is looked at again from the top.
    if (SpinForWork(&lock) || shutdown_ || live_ > target_ ||
        (!ready_.empty() && MayStartTask())) {
      continue;
    }

    worker->idle = true;
    idle_.push_back(worker);
    idle_count_.fetch_add(1, std::memory_order_seq_cst);
    lock.unlock();
    // An Enqueue that pushed before we counted ourselves idle did not see
    // us; look once more before sleeping (handshake 2 in
    // util/executor/executor_task.h).
    if (!inbox_.Empty()) {
      lock.lock();
      if (worker->idle) {
        idle_.erase(std::find(idle_.begin(), idle_.end(), worker));
        worker->idle = false;
        idle_count_.fetch_sub(1, std::memory_order_relaxed);
        continue;
      }
      lock.unlock();  // someone popped us and is about to Unpark
    }
    worker->parker.Park();
    lock.lock();
  }
  --live_;
  worker->exited = true;
}

bool ExecutorPool::SpinForWork(Lock* lock) {
  if (spinning_.exchange(true, std::memory_order_seq_cst)) return false;
  lock->unlock();
  static const uint64_t spin_ticks = static_cast<uint64_t>(
      static_cast<double>(kSpinNanos) / CycleClock::NanosPerTick());
  const uint64_t deadline = CycleClock::Now() + spin_ticks;
  bool found = false;
  while (!(found = !inbox_.Empty()) && CycleClock::Now() < deadline) {
    SpinPause();
  }
  // Handshake 2: a push that saw us spinning did not wake anyone; having
  // stopped, we go idle and look at the inbox once more before sleeping.
  spinning_.store(false, std::memory_order_seq_cst);
  lock->lock();
  return found;
}

void ExecutorPool::StartWorker() {
  workers_.push_back(std::make_unique<Worker>());
  Worker* worker = workers_.back().get();
  ++live_;
  worker->thread = std::thread(&ExecutorPool::WorkerMain, this, worker);
}

void ExecutorPool::JoinExited() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    Worker* worker = it->get();
    if (!worker->exited) {
      ++it;
      continue;
    }
    // It set `exited` last, under mu_, and needs mu_ no more. Shutdown may
    // have joined it already.
    if (worker->thread.joinable()) worker->thread.join();
    worker->wait.AddTo(&retired_wait_);
    worker->run.AddTo(&retired_run_);
    it = workers_.erase(it);
  }
}

void ExecutorPool::DrainHere(Lock* lock) {
  Worker self;
  Started batch[kMaxBatch];
  for (;;) {
    FileInbox();
    const int n = StartBatch(batch, kMaxBatch);
    if (n == 0) break;
    ++running_;
    lock->unlock();
    RunBatch(&self, batch, n);
    lock->lock();
    FinishBatch(batch, n);
  }
  self.wait.AddTo(&retired_wait_);
  self.run.AddTo(&retired_run_);
}

void ExecutorPool::CancelTagged(const void* tag,
                                std::vector<ExecutorTask*>* out) {
  Worker* wake = nullptr;
  {
    std::lock_guard<Mutex> lock(mu_);
    FileInbox();
    ready_.RemoveIf([&](ExecutorTask* task) {
      if (task->tag != tag) return false;
      if (task->Transition(task->queued_word, TaskState::kCancelled)) {
        NoteLeftReady();
        out->push_back(task);  // the queue's reference goes with it
      } else {
        task->Unref();  // stale
      }
      return true;
    });
    wake = PopIdleForReadyTasks();
  }
  if (wake != nullptr) wake->parker.Unpark();
}

void ExecutorPool::SetThreads(int count, bool allow_reduce) {
  Lock lock(mu_);
  if (shutdown_) return;
  count = std::max(count, 0);
  if (count > target_ || (allow_reduce && count < target_)) target_ = count;
  JoinExited();
  while (live_ < target_) StartWorker();
  // Idle surplus workers retire as soon as they wake; busy ones after their
  // current task.
  if (live_ > target_) WakeIdle(live_ - target_, &lock);
}

int ExecutorPool::threads() const {
  std::lock_guard<Mutex> lock(mu_);
  return target_;
}

int ExecutorPool::ReserveThreads(int count) {
  std::lock_guard<Mutex> lock(mu_);
  const int available = std::max(0, Capacity() - running_);
  const int reserved = std::min(std::max(count, 0), available);
  reserved_ += reserved;
  reserved_count_.store(reserved_, std::memory_order_relaxed);
  return reserved;
}

int ExecutorPool::ReleaseThreads(int count) {
  Lock lock(mu_);
  const int released = std::min(std::max(count, 0), reserved_);
  reserved_ -= released;
  reserved_count_.store(reserved_, std::memory_order_relaxed);
  if (!ready_.empty() || !inbox_.Empty()) WakeIdle(released, &lock);
  return released;
}

void ExecutorPool::LowerIOPriority() {
  io_low_.store(true, std::memory_order_relaxed);
}

void ExecutorPool::LowerCPUPriority(CpuPriority priority) {
  std::lock_guard<Mutex> lock(mu_);
  // Only ever lowered, as RocksDB's own pools do.
  const int wanted = static_cast<int>(priority);
  if (wanted < cpu_priority_.load(std::memory_order_relaxed)) {
    cpu_priority_.store(wanted, std::memory_order_relaxed);
  }
}

unsigned ExecutorPool::QueueLength() const {
  // The three counts are read one after another, so the difference can be
  // briefly off (never negative: clamped) while tasks move.
  const int64_t queued =
      static_cast<int64_t>(counters_.Sum(kEnqueued)) -
      static_cast<int64_t>(started_.load(std::memory_order_relaxed)) -
      static_cast<int64_t>(counters_.Sum(kLeftReady));
  return static_cast<unsigned>(std::max<int64_t>(0, queued));
}

PoolStats ExecutorPool::Stats() const {
  PoolStats stats;
  std::lock_guard<Mutex> lock(mu_);
  stats.threads = target_;
  stats.live_threads = live_;
  stats.running = running_;
  stats.reserved = reserved_;
  stats.queue_length = QueueLength();
  stats.cancelled = counters_.Sum(kCancelled);
  stats.helper_runs = helper_runs_;
  stats.wait = retired_wait_;
  stats.run = retired_run_;
  for (const auto& worker : workers_) {
    worker->wait.AddTo(&stats.wait);
    worker->run.AddTo(&stats.run);
  }
  return stats;
}

void ExecutorPool::Shutdown() {
  Lock lock(mu_);
  shutdown_ = true;
  reserved_ = 0;  // every worker helps drain
  reserved_count_.store(0, std::memory_order_relaxed);
  WakeIdle(static_cast<int>(idle_.size()), &lock);
  Worker* helper = helper_idle_ ? helper_ : nullptr;
  helper_idle_ = false;
  lock.unlock();
  if (helper != nullptr) helper->parker.Unpark();
  // SetThreads and HelpStarved do nothing once shutdown_ is set, so
  // workers_ is stable.
  for (const auto& worker : workers_) worker->thread.join();
  lock.lock();
  JoinExited();
  DrainHere(&lock);
}

}  // namespace rocksdb_cuckoo
