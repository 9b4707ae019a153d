// The executor's delayed tasks: a binary heap ordered by wake time, served by
// one thread (started on first use) that sleeps until the earliest task is
// due (a second at most) and then hands it to its pool.
//
// Watch is a lock-free push onto an inbox that the timer thread files into
// the heap; it wakes the thread only when the new wake time is earlier than
// the one the thread sleeps towards. Once per kInboxBatch pushes, so the
// inbox stays short, the pushing thread files the inbox itself. Cancel and
// Snooze never search the heap: they change the task's word. Heap entries
// recorded in an earlier turn are dropped when they surface (or in a purge once
// they outnumber the live ones); an entry whose task was snoozed later within
// its turn files itself again at the new time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "util/executor/executor_task.h"
#include "util/executor/task_inbox.h"

namespace rocksdb_cuckoo {

class DelayedTaskQueue {
 public:
  // Both get a task with one reference that they take over. `due`: the task
  // is now kReady. `cancelled`: the timer cancelled it (it was kDelayed).
  using Callback = std::function<void(ExecutorTask*)>;
  DelayedTaskQueue(Callback due, Callback cancelled);
  // Stop() must have been called.
  ~DelayedTaskQueue();

  DelayedTaskQueue(const DelayedTaskQueue&) = delete;
  DelayedTaskQueue& operator=(const DelayedTaskQueue&) = delete;

  // Files a task in kDelayed, taking over one reference. Also the way to say
  // a delayed task started a new turn (an earlier wake time, say). After
  // Stop, the task is cancelled instead.
  void Watch(ExecutorTask* task);
  // Watch for a task no other thread has seen yet.
  void WatchNew(ExecutorTask* task);
  // A delayed task was cancelled or snoozed elsewhere: its heap entry is
  // dead weight now (unless it was never filed).
  void NoteStaleEntry(const ExecutorTask* task);
  // Cancels the delayed tasks of `pool` tagged `tag`; appends them to *out,
  // one reference each for the caller.
  void CancelTagged(int pool, const void* tag, std::vector<ExecutorTask*>* out);
  // Stops the thread and cancels every delayed task (through `cancelled`).
  void Stop();

  // Each pushing thread files the inbox once per this many of its pushes
  // (so the inbox stays short); the heap is purged when dead entries exceed
  // max(this, live entries).
  static constexpr uint64_t kInboxBatch = 1024;

 private:
  struct Entry {
    int64_t deadline;
    uint64_t word;
    ExecutorTask* task;
  };
  using Inbox =
      TaskInbox<&ExecutorTask::timer_next, &ExecutorTask::in_timer_inbox>;
  // Until the thread first sleeps, every push wakes it.
  static constexpr int64_t kNever = INT64_MAX;
  // With no task filed the thread still wakes this often, so that a push due
  // later needs no wake-up: timeouts of more than this, added and cancelled
  // before their time (the common case), then cost the timer thread nothing,
  // for one wake a second while idle.
  static constexpr int64_t kIdleWakeNanos = 1000 * 1000 * 1000;

  void ThreadMain();
  // Wakes the timer thread.
  // REQUIRES: mu_ not held.
  void Kick();
  // Files the inbox and purges dead entries on the calling thread, waking
  // the timer thread only if a filed task is due before it wakes anyway:
  // waking a sleeping thread costs far more than the filing (more still on
  // virtual machines). False, having done nothing, if another thread holds
  // the mutex: it never waits.
  // REQUIRES: mu_ not held.
  bool TryTidy();
  // What Watch and WatchNew share once the task is in the inbox.
  // REQUIRES: mu_ not held.
  void Pushed(int64_t wake);
  // Moves the inbox into the heap.
  // REQUIRES: mu_ held.
  void FileInbox();
  // REQUIRES: mu_ held.
  void PushEntry(const Entry& entry);
  // Files the inbox, and purges once dead entries reach purge_at_.
  // REQUIRES: mu_ held.
  void Tidy();
  // An entry's time came: true if its task is due and now kReady; false if
  // it is filed again (snoozed later) or dropped (reference and all).
  // REQUIRES: mu_ held.
  bool Surface(ExecutorTask* task, uint64_t entry_word, int64_t now);
  // Drops the heap's dead entries.
  // REQUIRES: mu_ held.
  void Purge();
  // Cancels every task in the heap and inbox; appends them to *out, one
  // reference each for the caller.
  // REQUIRES: mu_ held.
  void CancelAll(std::vector<ExecutorTask*>* out);

  const Callback due_;
  const Callback cancelled_;

  Inbox inbox_;
  std::atomic<uint64_t> dead_{0};
  std::atomic<uint64_t> purge_at_{kInboxBatch};
  // The wake time the thread sleeps towards.
  std::atomic<int64_t> armed_ns_{kNever};
  std::atomic<bool> started_{false};
  std::atomic<bool> stopped_{false};

  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  bool kicked_ = false;
  bool stopping_ = false;
  std::vector<Entry> heap_;            // min-heap on deadline
  std::vector<ExecutorTask*> filing_;  // FileInbox's scratch list
  // Started once, under mu_; joined by Stop.
  std::thread thread_;
};

}  // namespace rocksdb_cuckoo
