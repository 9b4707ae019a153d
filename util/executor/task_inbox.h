// An inbox of tasks: how the pools and the timer are handed tasks without a
// lock. Any number of producer threads push; one consumer at a time (the
// owner, under its mutex) empties it whole.
//
// Three layers, inside out:
//   - IntrusiveMpscStack: a lock-free stack whose nodes carry their own link
//     (the member pointer kNext), so a push allocates nothing and costs one
//     compare-and-swap. There is no pop of a single node, so the ABA problem
//     cannot arise.
//   - ShardedMpscStack: that stack split into shards, each on its own cache
//     line, each pushing thread on one shard, so producers on different cores
//     do not fight over one head pointer (every push would otherwise move
//     that line between their cores). Threads take shards round robin, in
//     the order they first push; with more threads than shards some share
//     one. Order holds within a shard only.
//   - TaskInbox: the sharded stack of ExecutorTasks with the per-task flag
//     that says a task is linked in it, and the one way to empty it that
//     handshake 1 in util/executor/executor_task.h allows.
#pragma once

#include <algorithm>
#include <atomic>
#include <vector>

#include "util/executor/executor_task.h"

namespace rocksdb_cuckoo {

template <typename T, T* T::*kNext>
class IntrusiveMpscStack {
 public:
  // Returns true if the stack was empty before. Sequentially consistent, as
  // is Empty(): handshake 2 in util/executor/executor_task.h.
  bool Push(T* node) {
    T* head = head_.load(std::memory_order_relaxed);
    do {
      node->*kNext = head;
    } while (!head_.compare_exchange_weak(head, node, std::memory_order_seq_cst,
                                          std::memory_order_relaxed));
    return head == nullptr;
  }

  // Returns every node pushed so far, newest first, linked through kNext.
  // One consumer at a time.
  T* TakeAll() { return head_.exchange(nullptr, std::memory_order_acquire); }

  bool Empty() const {
    return head_.load(std::memory_order_seq_cst) == nullptr;
  }

 private:
  std::atomic<T*> head_{nullptr};
};

template <typename T, T* T::*kNext>
class ShardedMpscStack {
 public:
  static constexpr int kShards = 8;

  // Returns true if the calling thread's shard was empty before.
  // Sequentially consistent, as is Empty().
  bool Push(T* node) { return shards_[ThreadShard()].stack.Push(node); }

  // Empties every shard: visit(list) for each non-empty one, with its
  // nodes newest first, linked through kNext. One consumer at a time.
  template <typename Visit>
  void TakeAll(Visit&& visit) {
    for (Shard& shard : shards_) {
      // A look first: an exchange would take the line of an empty shard
      // from the core of the thread that pushes there.
      if (shard.stack.Empty()) continue;
      if (T* list = shard.stack.TakeAll()) visit(list);
    }
  }

  bool Empty() const {
    for (const Shard& shard : shards_) {
      if (!shard.stack.Empty()) return false;
    }
    return true;
  }

 private:
  struct alignas(64) Shard {
    IntrusiveMpscStack<T, kNext> stack;
  };

  static int ThreadShard() {
    static std::atomic<unsigned> next{0};
    thread_local const int shard = static_cast<int>(
        next.fetch_add(1, std::memory_order_relaxed) % kShards);
    return shard;
  }

  Shard shards_[kShards];
};

template <ExecutorTask* ExecutorTask::*kNext,
          std::atomic<bool> ExecutorTask::*kLinked>
class TaskInbox : public ShardedMpscStack<ExecutorTask, kNext> {
 public:
  // Empties the inbox into *out (cleared first), oldest first within each
  // shard, calling visit(task) on each task as it is reached. One consumer
  // at a time. Every task's flag is cleared after its link is read (from
  // then on a producer may link the task anew), and one fence follows the
  // last: the task words the caller reads next are at least as new as any
  // that a producer which found its flag still set had written. One fence
  // for the batch, where a sequentially consistent store per task would cost
  // a locked instruction each.
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
