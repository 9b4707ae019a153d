#include "util/executor_pool.h"

#include <pthread.h>

#include <algorithm>
#include <cstdio>

#include "util/thread_priority.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::CpuPriority;

std::string PoolStats::ToString() const {
  char head[192];
  snprintf(head, sizeof(head),
           "threads=%d live=%d running=%d reserved=%d queued=%llu ran=%llu "
           "cancelled=%llu",
           threads, live_threads, running, reserved,
           static_cast<unsigned long long>(queue_length),
           static_cast<unsigned long long>(completed()),
           static_cast<unsigned long long>(cancelled));
  return std::string(head) + " wait[" + wait.ToString() + "] run[" +
         run.ToString() + "]";
}

ExecutorPool::ExecutorPool(std::string thread_name, AfterRun after_run)
    : thread_name_(std::move(thread_name)), after_run_(std::move(after_run)) {}

ExecutorPool::~ExecutorPool() {
  // Tasks that arrived after Shutdown's workers left.
  std::unique_lock<std::mutex> lock(mu_);
  DrainHere(&lock);
}

void ExecutorPool::Enqueue(ExecutorTask* task) {
  task->ready_ns.store(SteadyNanos(), std::memory_order_relaxed);
  ready_count_.fetch_add(1, std::memory_order_relaxed);
  // Sequentially consistent with FileInbox's clear-then-read, so a task
  // that is linked already is seen in its new state when filed.
  if (task->in_ready_inbox.exchange(true, std::memory_order_seq_cst)) {
    task->Unref();
  } else {
    inbox_.Push(task);
  }
  if (idle_count_.load(std::memory_order_seq_cst) >
      reserved_count_.load(std::memory_order_relaxed)) {
    WakeOne();
  }
}

void ExecutorPool::WakeOne() {
  Worker* worker = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
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

void ExecutorPool::WakeIdle(int count, std::unique_lock<std::mutex>* lock) {
  std::vector<Worker*> woken;
  while (count-- > 0 && !idle_.empty()) woken.push_back(PopIdle());
  lock->unlock();
  for (Worker* worker : woken) worker->parker.Unpark();
  lock->lock();
}

void ExecutorPool::FileInbox() {
  ExecutorTask* task = Inbox::Reverse(inbox_.TakeAll());
  while (task != nullptr) {
    ExecutorTask* next = task->ready_next;
    task->in_ready_inbox.store(false, std::memory_order_seq_cst);
    const uint64_t word = task->word.load(std::memory_order_seq_cst);
    if (StateOf(word) == TaskState::kReady) {
      ready_.Push({task, word});
    } else {
      task->Unref();  // cancelled or snoozed before it was filed
    }
    task = next;
  }
}

bool ExecutorPool::StartNext(ExecutorTask** task, uint64_t* running_word) {
  FairReadyQueue::Entry entry;
  while (ready_.Pop(&entry)) {
    if (entry.task->Transition(entry.word, TaskState::kRunning)) {
      *task = entry.task;
      *running_word = NextWord(entry.word, TaskState::kRunning);
      ++running_;
      return true;
    }
    // Stale: cancelled or snoozed since it was queued.
    ready_.Finished(entry.task->client);
    entry.task->Unref();
  }
  return false;
}

void ExecutorPool::Run(Worker* worker, ExecutorTask* task,
                       uint64_t running_word) {
  ready_count_.fetch_sub(1, std::memory_order_relaxed);
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
  const int64_t start = SteadyNanos();
  worker->wait.Record(static_cast<uint64_t>(std::max<int64_t>(
      0, start - task->ready_ns.load(std::memory_order_relaxed))));
  task->run();
  worker->run.Record(static_cast<uint64_t>(SteadyNanos() - start));
  after_run_(task, running_word);
}

void ExecutorPool::WorkerMain(Worker* worker) {
  pthread_setname_np(pthread_self(), thread_name_.substr(0, 15).c_str());
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (live_ > target_) break;  // surplus after a shrink: retire
    FileInbox();
    ExecutorTask* task = nullptr;
    uint64_t running_word = 0;
    if (MayStartTask() && StartNext(&task, &running_word)) {
      const void* client = task->client;
      lock.unlock();
      Run(worker, task, running_word);
      task->Unref();
      lock.lock();
      --running_;
      ready_.Finished(client);
      continue;
    }
    // At shutdown the workers still running drain what is left.
    if (shutdown_) break;

    worker->idle = true;
    idle_.push_back(worker);
    idle_count_.fetch_add(1, std::memory_order_seq_cst);
    lock.unlock();
    // An Enqueue that pushed before we counted ourselves idle did not see
    // us; look once more before sleeping.
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

void ExecutorPool::DrainHere(std::unique_lock<std::mutex>* lock) {
  Worker self;
  for (;;) {
    FileInbox();
    ExecutorTask* task = nullptr;
    uint64_t running_word = 0;
    if (!StartNext(&task, &running_word)) break;
    const void* client = task->client;
    lock->unlock();
    Run(&self, task, running_word);
    task->Unref();
    lock->lock();
    --running_;
    ready_.Finished(client);
  }
  self.wait.AddTo(&retired_wait_);
  self.run.AddTo(&retired_run_);
}

void ExecutorPool::CancelTagged(const void* tag,
                                std::vector<ExecutorTask*>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  FileInbox();
  ready_.RemoveIf([&](const FairReadyQueue::Entry& entry) {
    if (entry.task->tag != tag) return false;
    if (entry.task->Transition(entry.word, TaskState::kCancelled)) {
      ready_count_.fetch_sub(1, std::memory_order_relaxed);
      out->push_back(entry.task);  // the entry's reference goes with it
    } else {
      entry.task->Unref();  // stale entry
    }
    return true;
  });
}

void ExecutorPool::SetThreads(int count, bool allow_reduce) {
  std::unique_lock<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  return target_;
}

int ExecutorPool::ReserveThreads(int count) {
  std::lock_guard<std::mutex> lock(mu_);
  const int available = std::max(0, Capacity() - running_);
  const int reserved = std::min(std::max(count, 0), available);
  reserved_ += reserved;
  reserved_count_.store(reserved_, std::memory_order_relaxed);
  return reserved;
}

int ExecutorPool::ReleaseThreads(int count) {
  std::unique_lock<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  // Only ever lowered, as RocksDB's own pools do.
  const int wanted = static_cast<int>(priority);
  if (wanted < cpu_priority_.load(std::memory_order_relaxed)) {
    cpu_priority_.store(wanted, std::memory_order_relaxed);
  }
}

unsigned ExecutorPool::QueueLength() const {
  // Briefly negative while a cancel and the matching enqueue race.
  return static_cast<unsigned>(
      std::max<int64_t>(0, ready_count_.load(std::memory_order_relaxed)));
}

PoolStats ExecutorPool::Stats() const {
  PoolStats stats;
  std::lock_guard<std::mutex> lock(mu_);
  stats.threads = target_;
  stats.live_threads = live_;
  stats.running = running_;
  stats.reserved = reserved_;
  stats.queue_length = QueueLength();
  stats.cancelled = cancelled_.load(std::memory_order_relaxed);
  stats.wait = retired_wait_;
  stats.run = retired_run_;
  for (const auto& worker : workers_) {
    worker->wait.AddTo(&stats.wait);
    worker->run.AddTo(&stats.run);
  }
  return stats;
}

void ExecutorPool::Shutdown() {
  std::unique_lock<std::mutex> lock(mu_);
  shutdown_ = true;
  reserved_ = 0;  // every worker helps drain
  reserved_count_.store(0, std::memory_order_relaxed);
  WakeIdle(static_cast<int>(idle_.size()), &lock);
  lock.unlock();
  // SetThreads does nothing once shutdown_ is set, so workers_ is stable.
  for (const auto& worker : workers_) worker->thread.join();
  lock.lock();
  JoinExited();
  DrainHere(&lock);
}

}  // namespace rocksdb_cuckoo
