#include "util/executor/delayed_task_queue.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

namespace rocksdb_cuckoo {

namespace {

// std's heap functions build a max-heap; ordering by "later" makes the
// earliest deadline the top.
struct Later {
  template <typename Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    return a.deadline > b.deadline;
  }
};

// When a task in kDelayed is due.
int64_t DueNanos(const ExecutorTask* task) {
  return WakeNanos(WakeOf(task->word.load(std::memory_order_relaxed)));
}

}  // namespace

DelayedTaskQueue::DelayedTaskQueue(Callback due, Callback cancelled)
    : due_(std::move(due)), cancelled_(std::move(cancelled)) {}

DelayedTaskQueue::~DelayedTaskQueue() = default;

void DelayedTaskQueue::WatchNew(ExecutorTask* task) {
  const int64_t wake = DueNanos(task);
  task->in_timer_inbox.store(true, std::memory_order_relaxed);
  inbox_.Push(task);
  Pushed(wake);
}

void DelayedTaskQueue::Watch(ExecutorTask* task) {
  // Read before the push: afterwards the task may already have run and gone.
  const int64_t wake = DueNanos(task);
  // Handshake 1 in util/executor/executor_task.h.
  if (task->in_timer_inbox.exchange(true, std::memory_order_seq_cst)) {
    task->Unref();
  } else {
    inbox_.Push(task);
  }
  Pushed(wake);
}

void DelayedTaskQueue::Pushed(int64_t wake) {
  if (stopped_.load(std::memory_order_seq_cst)) {
    // Stop has emptied the inbox already, or will; whoever gets there first
    // cancels the task, exactly once (handshake 5 in
    // util/executor/executor_task.h).
    std::vector<ExecutorTask*> cancelled;
    {
      std::lock_guard<std::mutex> lock(mu_);
      CancelAll(&cancelled);
    }
    for (ExecutorTask* t : cancelled) cancelled_(t);
    return;
  }
  if (!started_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_.load(std::memory_order_relaxed) && !stopping_) {
      thread_ = std::thread(&DelayedTaskQueue::ThreadMain, this);
      started_.store(true, std::memory_order_release);
    }
  }
  // Counted per thread, not in a shared atomic that every push would
  // bounce between cores. Shared by all DelayedTaskQueues of the thread, which
  // only makes a filing come early.
  thread_local uint64_t pushes = 0;
  if (wake < armed_ns_.load(std::memory_order_seq_cst)) {
    Kick();
  } else if (++pushes >= kInboxBatch && TryTidy()) {
    // (Else the mutex's holder is filing, or the timer thread is awake; the
    // thread's next push tries again.)
    pushes = 0;
  }
}

void DelayedTaskQueue::NoteStaleEntry(const ExecutorTask* task) {
  // Still in the inbox: dropped when filed, never a heap entry.
  if (task->in_timer_inbox.load(std::memory_order_relaxed)) return;
  if (dead_.fetch_add(1, std::memory_order_relaxed) + 1 ==
          purge_at_.load(std::memory_order_relaxed) &&
      !TryTidy()) {
    Kick();
  }
}

bool DelayedTaskQueue::TryTidy() {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  Tidy();
  // Only a task due before the thread's wake time needs the thread now.
  if (!heap_.empty() &&
      heap_.front().deadline < armed_ns_.load(std::memory_order_relaxed)) {
    kicked_ = true;
    lock.unlock();
    cv_.notify_one();
  }
  return true;
}

void DelayedTaskQueue::Kick() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    kicked_ = true;
  }
  cv_.notify_one();
}

void DelayedTaskQueue::PushEntry(const Entry& entry) {
  heap_.push_back(entry);
  std::push_heap(heap_.begin(), heap_.end(), Later());
}

void DelayedTaskQueue::FileInbox() {
  inbox_.TakeAll(&filing_, [](ExecutorTask*) {});
  for (ExecutorTask* task : filing_) {
    const uint64_t word = task->word.load(std::memory_order_relaxed);
    if (StateOf(word) == TaskState::kDelayed) {
      PushEntry({WakeNanos(WakeOf(word)), word, task});
    } else {
      task->Unref();  // cancelled before it was filed
    }
  }
}

void DelayedTaskQueue::Tidy() {
  FileInbox();
  if (dead_.load(std::memory_order_relaxed) >=
      purge_at_.load(std::memory_order_relaxed)) {
    Purge();
  }
}

void DelayedTaskQueue::Purge() {
  size_t kept = 0;
  for (const Entry& entry : heap_) {
    if (SameTurn(entry.task->word.load(std::memory_order_acquire),
                 entry.word)) {
      heap_[kept++] = entry;
    } else {
      entry.task->Unref();
    }
  }
  heap_.resize(kept);
  std::make_heap(heap_.begin(), heap_.end(), Later());
  dead_.store(0, std::memory_order_relaxed);
  purge_at_.store(std::max<uint64_t>(kInboxBatch, kept),
                  std::memory_order_relaxed);
}

bool DelayedTaskQueue::Surface(ExecutorTask* task, uint64_t entry_word,
                               int64_t now) {
  uint64_t word = task->word.load(std::memory_order_acquire);
  // Retried only when a Snooze moved the task later meanwhile.
  while (SameTurn(word, entry_word)) {
    const int64_t wake = WakeNanos(WakeOf(word));
    if (wake > now) {
      PushEntry({wake, word, task});
      return false;
    }
    if (task->Transition(word, TaskState::kReady)) return true;
    word = task->word.load(std::memory_order_acquire);
  }
  task->Unref();  // cancelled or snoozed earlier since
  return false;
}

void DelayedTaskQueue::ThreadMain() {
  pthread_setname_np(pthread_self(), "cuckoo-timer");
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<ExecutorTask*> due;
  while (!stopping_) {
    kicked_ = false;
    Tidy();
    const int64_t now = SteadyNanos();
    while (!heap_.empty() && heap_.front().deadline <= now) {
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      const Entry entry = heap_.back();
      heap_.pop_back();
      ExecutorTask* task = entry.task;
      if (Surface(task, entry.word, now)) due.push_back(task);
    }
    const int64_t armed =
        heap_.empty() ? now + kIdleWakeNanos : heap_.front().deadline;
    armed_ns_.store(armed, std::memory_order_seq_cst);
    if (!due.empty()) {
      lock.unlock();
      for (ExecutorTask* task : due) due_(task);
      due.clear();
      lock.lock();
      continue;
    }
    // A Watch that read the old armed_ns_ pushed before we stored the new
    // one, so it is in the inbox now.
    if (kicked_ || !inbox_.Empty()) continue;
    cv_.wait_until(
        lock,
        std::chrono::steady_clock::time_point(std::chrono::nanoseconds(armed)),
        [this] { return kicked_ || stopping_; });
  }
}

void DelayedTaskQueue::CancelTagged(int pool, const void* tag,
                                    std::vector<ExecutorTask*>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  FileInbox();
  for (const Entry& entry : heap_) {
    ExecutorTask* task = entry.task;
    if (task->pool == pool && task->tag == tag &&
        task->TransitionFromTurn(entry.word, TaskState::kCancelled)) {
      task->Ref();  // the heap entry keeps its own until it surfaces
      out->push_back(task);
      dead_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void DelayedTaskQueue::CancelAll(std::vector<ExecutorTask*>* out) {
  FileInbox();
  for (const Entry& entry : heap_) {
    if (entry.task->TransitionFromTurn(entry.word, TaskState::kCancelled)) {
      out->push_back(entry.task);
    } else {
      entry.task->Unref();
    }
  }
  heap_.clear();
}

void DelayedTaskQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  stopped_.store(true, std::memory_order_seq_cst);
  std::vector<ExecutorTask*> cancelled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CancelAll(&cancelled);
  }
  for (ExecutorTask* task : cancelled) cancelled_(task);
}

}  // namespace rocksdb_cuckoo
