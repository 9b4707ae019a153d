// An inbox of tasks: the lock-free sharded stack that the pools and the timer
// are handed tasks through, with the per-task flag that says a task is linked
// in it, and the one way to empty it that handshake 1 in
// util/executor/executor_task.h allows.
#pragma once

#include <algorithm>
#include <atomic>
#include <vector>

#include "util/executor/executor_task.h"
#include "util/executor/sharded_mpsc_stack.h"

namespace rocksdb_cuckoo {

template <ExecutorTask* ExecutorTask::*kNext,
          std::atomic<bool> ExecutorTask::*kLinked>
class TaskInbox : public ShardedMpscStack<ExecutorTask, kNext> {
 public:
  // Empties the inbox into *out (cleared first), oldest first within each
  // shard, calling visit(task) on each task as it is reached. Every task's
  // flag is cleared after its link is read (from then on a producer may
  // link the task anew), and one fence follows the last: the task words the
  // caller reads next are at least as new as any that a producer which found
  // its flag still set had written. One fence for the batch, where a
  // sequentially consistent store per task would cost a locked instruction
  // each.
  //
  // Each shard is newest first; one walk collects it (each link is a cache
  // miss the next depends on, as the task was written on another core, so
  // visit is the place to prefetch what comes next) and the collected run
  // is turned around.
  template <typename Visit>
  void TakeAll(std::vector<ExecutorTask*>* out, Visit&& visit) {
    out->clear();
    ShardedMpscStack<ExecutorTask, kNext>::TakeAll([&](ExecutorTask* task) {
      const size_t oldest = out->size();
      while (task != nullptr) {
        out->push_back(task);
        ExecutorTask* next = task->*kNext;
        visit(task);
        // Release: a producer relinks the task only after seeing this, so
        // our reads and writes of the link come first.
        (task->*kLinked).store(false, std::memory_order_release);
        task = next;
      }
      std::reverse(out->begin() + oldest, out->end());
    });
    if (!out->empty()) std::atomic_thread_fence(std::memory_order_seq_cst);
  }
};

}  // namespace rocksdb_cuckoo
