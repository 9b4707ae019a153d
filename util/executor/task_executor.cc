#include "util/executor/task_executor.h"

#include "util/executor/task_recycler.h"

namespace rocksdb_cuckoo {

TaskExecutor::TaskExecutor(
    const std::vector<std::string>& pool_names,
    const std::function<ExecutorPool::ThreadHooks(int pool)>& thread_hooks)
    : pool_names_(pool_names),
      timer_([this](ExecutorTask* task) { pools_[task->pool]->Enqueue(task); },
             [this](ExecutorTask* task) {
               RunOnCancel(task);
               task->Unref();
             }) {
  for (size_t i = 0; i < pool_names_.size(); i++) {
    pools_.push_back(std::make_unique<ExecutorPool>(
        "cuckoo-" + pool_names_[i],
        [this](ExecutorTask* task, uint64_t running_word) {
          AfterRun(task, running_word);
        },
        thread_hooks ? thread_hooks(static_cast<int>(i))
                     : ExecutorPool::ThreadHooks()));
  }
}

TaskExecutor::~TaskExecutor() { Shutdown(); }

void TaskExecutor::Shutdown() {
  if (shutting_down_.exchange(true, std::memory_order_seq_cst)) return;
  // The timer first, so that nothing becomes ready while the pools drain;
  // a task snoozed during the drain is cancelled by the stopped timer.
  timer_.Stop();
  for (auto& pool : pools_) pool->Shutdown();
}

ExecutorTask* TaskExecutor::NewTask(int pool, std::function<void()> run,
                                    TaskOptions options, bool posted) {
  ExecutorTask* task = TaskRecycler::Acquire();
  task->run = std::move(run);
  task->on_cancel = std::move(options.on_cancel);
  task->tag = options.tag;
  task->client = options.client;
  task->pool = pool;
  task->priority = options.priority;
  task->posted = posted;
  // One reference for the queue, and one for the handle of an added task.
  task->refs.store(posted ? 1 : 2, std::memory_order_relaxed);
  return task;
}

void TaskExecutor::Submit(ExecutorTask* task, std::chrono::nanoseconds delay) {
  if (shutting_down_.load(std::memory_order_acquire)) {
    task->word.store(TaskWord(TaskState::kCancelled),
                     std::memory_order_relaxed);
    RunOnCancel(task);
    task->Unref();
    return;
  }
  if (delay.count() <= 0) {
    task->word.store(TaskWord(TaskState::kReady), std::memory_order_relaxed);
    pools_[task->pool]->EnqueueNew(task);
  } else {
    task->word.store(TaskWord(TaskState::kDelayed, WakeAfter(delay)),
                     std::memory_order_relaxed);
    timer_.WatchNew(task);
  }
}

TaskHandle TaskExecutor::Add(int pool, std::function<void()> run,
                             TaskOptions options) {
  const std::chrono::nanoseconds delay = options.delay;
  ExecutorTask* task =
      NewTask(pool, std::move(run), std::move(options), /*posted=*/false);
  Submit(task, delay);
  return TaskHandle(task);
}

void TaskExecutor::Post(int pool, std::function<void()> run,
                        TaskOptions options) {
  const std::chrono::nanoseconds delay = options.delay;
  Submit(NewTask(pool, std::move(run), std::move(options), /*posted=*/true),
         delay);
}

void TaskExecutor::RunOnCancel(ExecutorTask* task) {
  pools_[task->pool]->NoteCancelled();
  if (task->on_cancel) task->on_cancel();
}

bool TaskExecutor::Cancel(const TaskHandle& handle) {
  ExecutorTask* task = handle.task_;
  uint64_t word = task->word.load(std::memory_order_acquire);
  for (;;) {
    switch (StateOf(word)) {
      case TaskState::kReady:
        if (task->Transition(word, TaskState::kCancelled)) {
          // The queue entry, now stale, keeps its reference until a worker
          // drops it.
          pools_[task->pool]->NoteLeftReady();
          RunOnCancel(task);
          return true;
        }
        break;
      case TaskState::kDelayed:
        if (task->Transition(word, TaskState::kCancelled)) {
          timer_.NoteStaleEntry(task);
          RunOnCancel(task);
          return true;
        }
        break;
      case TaskState::kRunningRerun:
        // The run in progress goes on; the one it was to be followed by not.
        if (task->Transition(word, TaskState::kRunning)) {
          RunOnCancel(task);
          return true;
        }
        break;
      default:
        return false;
    }
    word = task->word.load(std::memory_order_acquire);  // lost a race
  }
}

TaskState TaskExecutor::SnoozeTask(ExecutorTask* task,
                                   std::chrono::nanoseconds delay) {
  const uint64_t wake = WakeAfter(delay);
  uint64_t word = task->word.load(std::memory_order_acquire);
  for (;;) {
    const TaskState state = StateOf(word);
    switch (state) {
      case TaskState::kDone:
      case TaskState::kCancelled:
        return state;
      case TaskState::kDelayed:
        if (wake >= WakeOf(word)) {
          // Later: the timer's entry, due no later than the old time, stays
          // live and finds the new time in the word.
          if (task->Replace(word, WithWake(word, wake))) return state;
          break;
        }
        [[fallthrough]];  // earlier: as for a ready task
      case TaskState::kReady:
        // A new turn makes the old timer or ready-queue entry stale; the
        // timer files the task afresh.
        if (task->Replace(word, NextWord(word, TaskState::kDelayed, wake))) {
          if (state == TaskState::kReady) {
            pools_[task->pool]->NoteLeftReady();
          } else {
            timer_.NoteStaleEntry(task);
          }
          task->Ref();
          timer_.Watch(task);
          return state;
        }
        break;
      case TaskState::kRunning:
      case TaskState::kRunningRerun:
        // AfterRun files it when the run ends.
        if (task->Replace(word,
                          NextWord(word, TaskState::kRunningRerun, wake))) {
          return state;
        }
        break;
    }
    word = task->word.load(std::memory_order_acquire);  // lost a race
  }
}

void TaskExecutor::Snooze(const TaskHandle& handle,
                          std::chrono::nanoseconds delay) {
  SnoozeTask(handle.task_, delay);
}

bool TaskExecutor::SnoozeAndWait(const TaskHandle& handle,
                                 std::chrono::nanoseconds delay) {
  ExecutorTask* task = handle.task_;
  const TaskState before = SnoozeTask(task, delay);
  if (before == TaskState::kDone || before == TaskState::kCancelled) {
    return false;
  }
  if (before == TaskState::kRunning || before == TaskState::kRunningRerun) {
    auto running = [task] {
      const TaskState state =
          StateOf(task->word.load(std::memory_order_seq_cst));
      return state == TaskState::kRunning || state == TaskState::kRunningRerun;
    };
    run_end_waiters_.fetch_add(1, std::memory_order_seq_cst);
    {
      std::unique_lock<std::mutex> lock(run_end_mu_);
      run_end_cv_.wait(lock, [&] { return !running(); });
    }
    run_end_waiters_.fetch_sub(1, std::memory_order_relaxed);
  }
  return true;
}

void TaskExecutor::AfterRun(ExecutorTask* task, uint64_t running_word) {
  uint64_t word = running_word;
  for (;;) {
    if (StateOf(word) == TaskState::kRunning) {
      if (task->Transition(word, TaskState::kDone)) break;
    } else if (task->Transition(word, TaskState::kDelayed)) {
      // Snoozed while running: run again when due.
      task->Ref();
      timer_.Watch(task);
      break;
    }
    word = task->word.load(std::memory_order_acquire);
  }
  // Handshake 4 in util/executor/executor_task.h: a SnoozeAndWait that
  // counted itself before the transition above sees the run ended or is
  // told.
  if (run_end_waiters_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(run_end_mu_); }
    run_end_cv_.notify_all();
  }
}

int TaskExecutor::CancelTagged(int pool, const void* tag) {
  std::vector<ExecutorTask*> cancelled;
  pools_[pool]->CancelTagged(tag, &cancelled);
  timer_.CancelTagged(pool, tag, &cancelled);
  for (ExecutorTask* task : cancelled) {
    RunOnCancel(task);
    task->Unref();
  }
  return static_cast<int>(cancelled.size());
}

std::string TaskExecutor::StatsString() const {
  std::string out;
  for (int pool = 0; pool < num_pools(); ++pool) {
    out += pool_names_[pool] + ": " + GetPoolStats(pool).ToString() + "\n";
  }
  return out;
}

}  // namespace rocksdb_cuckoo
