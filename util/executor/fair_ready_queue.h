// The ready tasks of one executor pool, in the order its workers take them:
//   1. higher TaskPriority first;
//   2. within a priority, the client (for AsyncExecutorEnv: the DB) with the
//      fewest tasks running in this pool, ties going to the client served
//      longest ago, so that one client flooding the pool cannot make the
//      others wait behind its backlog;
//   3. first in, first out within a client.
// Not thread-safe: the owning pool's mutex guards it. A task is in the queue
// at most once. Choosing costs O(clients with ready tasks), a handful in
// practice (the DBs sharing an Env).
//
// Each client's tasks are kept as an array of pointers rather than linked
// through the tasks: a backlog of tasks is cold in cache, and a linked list
// costs one dependent miss per task taken, while an array lets Pop prefetch
// the tasks that come next, so their misses overlap.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "util/executor/executor_task.h"

namespace rocksdb_cuckoo {

class FairReadyQueue {
 public:
  // Queues a task under `word`, taking over one reference, and returns true;
  // or, if the task is queued already, only records the newer word there and
  // returns false (the caller keeps its reference).
  bool Push(ExecutorTask* task, uint64_t word);
  // Takes the next task in the order above, with the word it was queued
  // under (stale if the task's word has moved on since), and counts it as
  // running for its client until Finished(client), stale or not.
  bool Pop(ExecutorTask** task, uint64_t* word);
  // Call once per task taken by Pop or PopStarved, when it has run or was
  // dropped as stale.
  void Finished(const void* client);
  // Whether some tagged client (a DB) has tasks queued and none running
  // while no untagged task runs ("starved"), and Pop restricted to such
  // clients. Untagged work (a user's own jobs, RocksDB's untagged purges and
  // file opens) is no other DB's: it never makes a DB starved, so one DB
  // beside it runs no more jobs at once than its pool's threads.
  bool HasStarved() const;
  bool PopStarved(ExecutorTask** task, uint64_t* word);
  // Unlinks every task for which remove(task) returns true; `remove` takes
  // over the queue's reference to the tasks it removes.
  template <typename Remove>
  void RemoveIf(Remove remove);

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

 private:
  // Oldest first. A deque grows and shrinks in blocks of pointers, so a
  // burst's memory is returned as it drains.
  using Fifo = std::deque<ExecutorTask*>;
  // Tasks Pop fetches ahead of the one it takes: as many as a worker's batch
  // touches next.
  static constexpr size_t kPrefetchAhead = 8;
  struct Client {
    const void* key = nullptr;
    int running = 0;
    int queued = 0;
    uint64_t last_served = 0;
    Fifo fifo[kNumTaskPriorities];
    // Index in waiting_[priority], or -1 when fifo[priority] is empty.
    int slot[kNumTaskPriorities] = {-1, -1, -1};
  };
  // Idle client records are kept for reuse up to this many in all.
  static constexpr size_t kMaxClients = 64;

  Client* Find(const void* key);
  // Pop's choice among clients with running <= max_running (and only tagged
  // ones if `tagged_only`).
  bool PopFrom(int max_running, bool tagged_only, ExecutorTask** task,
               uint64_t* word);
  bool UntaggedRunning() const;
  void Wait(Client* client, int priority);
  void Unwait(Client* client, int priority);
  void ForgetIdleClients();

  std::vector<std::unique_ptr<Client>> clients_;
  // Per priority, the clients with tasks of that priority.
  std::vector<Client*> waiting_[kNumTaskPriorities];
  uint64_t serve_clock_ = 0;
  size_t size_ = 0;
};

template <typename Remove>
void FairReadyQueue::RemoveIf(Remove remove) {
  for (const auto& client : clients_) {
    for (int p = 0; p < kNumTaskPriorities; ++p) {
      Fifo& fifo = client->fifo[p];
      const auto removed = [&](ExecutorTask* task) {
        if (!remove(task)) return false;
        task->in_ready_queue = false;
        --client->queued;
        --size_;
        return true;
      };
      fifo.erase(std::remove_if(fifo.begin(), fifo.end(), removed), fifo.end());
      if (fifo.empty() && client->slot[p] >= 0) Unwait(client.get(), p);
    }
  }
}

}  // namespace rocksdb_cuckoo
