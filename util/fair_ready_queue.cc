#include "util/fair_ready_queue.h"

namespace rocksdb_cuckoo {

FairReadyQueue::Client* FairReadyQueue::Find(const void* key) {
  std::unique_ptr<Client>& slot = clients_[key];
  if (slot == nullptr) slot = std::make_unique<Client>();
  return slot.get();
}

bool FairReadyQueue::IsIdle(const Client& client) {
  if (client.running > 0) return false;
  for (const std::deque<Entry>& queue : client.queue) {
    if (!queue.empty()) return false;
  }
  return true;
}

void FairReadyQueue::Unwait(Client* client, int priority) {
  std::vector<Client*>& waiting = waiting_[priority];
  const int slot = client->slot[priority];
  waiting[slot] = waiting.back();
  waiting[slot]->slot[priority] = slot;
  waiting.pop_back();
  client->slot[priority] = -1;
}

void FairReadyQueue::Push(const Entry& entry) {
  Client* client = Find(entry.task->client);
  const int p = static_cast<int>(entry.task->priority);
  client->queue[p].push_back(entry);
  if (client->slot[p] < 0) {
    client->slot[p] = static_cast<int>(waiting_[p].size());
    waiting_[p].push_back(client);
  }
  ++size_;
}

bool FairReadyQueue::Pop(Entry* out) {
  for (int p = kNumTaskPriorities - 1; p >= 0; --p) {
    const std::vector<Client*>& waiting = waiting_[p];
    if (waiting.empty()) continue;
    Client* best = waiting[0];
    for (Client* client : waiting) {
      if (client->running < best->running ||
          (client->running == best->running &&
           client->last_served < best->last_served)) {
        best = client;
      }
    }
    *out = best->queue[p].front();
    best->queue[p].pop_front();
    if (best->queue[p].empty()) Unwait(best, p);
    best->last_served = ++serve_clock_;
    ++best->running;
    --size_;
    return true;
  }
  return false;
}

void FairReadyQueue::Finished(const void* key) {
  auto it = clients_.find(key);
  Client* client = it->second.get();
  --client->running;
  if (IsIdle(*client)) clients_.erase(it);
}

}  // namespace rocksdb_cuckoo
