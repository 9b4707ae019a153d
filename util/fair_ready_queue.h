// The ready tasks of one executor pool, in the order its workers take them:
//   1. higher TaskPriority first;
//   2. within a priority, the client (for AsyncExecutorEnv: the DB) with the
//      fewest tasks running in this pool, ties going to the client served
//      longest ago, so that one client flooding the pool cannot make the
//      others wait behind its backlog;
//   3. first in, first out within a client.
// Not thread-safe: the owning pool's mutex guards it. Choosing costs
// O(clients with ready tasks), a handful in practice (DBs sharing an Env).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <memory>
#include <unordered_map>
#include <vector>

#include "util/executor_task.h"

namespace rocksdb_cuckoo {

class FairReadyQueue {
 public:
  // A task and its word when it was queued; the entry is stale when the
  // task's word has moved on since (cancelled or snoozed meanwhile).
  struct Entry {
    ExecutorTask* task;
    uint64_t word;
  };

  void Push(const Entry& entry);
  // Takes the next entry in the order above and counts it as running for
  // its client until Finished(client) (also for a stale entry).
  bool Pop(Entry* out);
  void Finished(const void* client);
  // Removes every entry for which remove(entry) returns true.
  template <typename Remove>
  void RemoveIf(Remove remove);

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

 private:
  struct Client {
    int running = 0;
    uint64_t last_served = 0;
    std::deque<Entry> queue[kNumTaskPriorities];
    // Index in waiting_[priority], or -1 when queue[priority] is empty.
    int slot[kNumTaskPriorities] = {-1, -1, -1};
  };

  Client* Find(const void* key);
  void Unwait(Client* client, int priority);
  // Nothing queued and nothing running: the record can go.
  static bool IsIdle(const Client& client);

  std::unordered_map<const void*, std::unique_ptr<Client>> clients_;
  // Per priority, the clients with entries of that priority.
  std::vector<Client*> waiting_[kNumTaskPriorities];
  uint64_t serve_clock_ = 0;
  size_t size_ = 0;
};

template <typename Remove>
void FairReadyQueue::RemoveIf(Remove remove) {
  for (auto it = clients_.begin(); it != clients_.end();) {
    Client* client = it->second.get();
    for (int p = 0; p < kNumTaskPriorities; ++p) {
      std::deque<Entry>& queue = client->queue[p];
      const size_t before = queue.size();
      std::deque<Entry> kept;
      for (const Entry& entry : queue) {
        if (!remove(entry)) kept.push_back(entry);
      }
      queue.swap(kept);
      size_ -= before - queue.size();
      if (queue.empty() && client->slot[p] >= 0) Unwait(client, p);
    }
    it = IsIdle(*client) ? clients_.erase(it) : std::next(it);
  }
}

}  // namespace rocksdb_cuckoo
