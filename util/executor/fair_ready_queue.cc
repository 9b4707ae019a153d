#include "util/executor/fair_ready_queue.h"

#include <algorithm>
#include <climits>

namespace rocksdb_cuckoo {

FairReadyQueue::Client* FairReadyQueue::Find(const void* key) {
  for (const auto& client : clients_) {
    if (client->key == key) return client.get();
  }
  if (clients_.size() >= kMaxClients) ForgetIdleClients();
  clients_.push_back(std::make_unique<Client>());
  clients_.back()->key = key;
  return clients_.back().get();
}

void FairReadyQueue::ForgetIdleClients() {
  clients_.erase(std::remove_if(clients_.begin(), clients_.end(),
                                [](const std::unique_ptr<Client>& client) {
                                  return client->running == 0 &&
                                         client->queued == 0;
                                }),
                 clients_.end());
}

void FairReadyQueue::Wait(Client* client, int priority) {
  client->slot[priority] = static_cast<int>(waiting_[priority].size());
  waiting_[priority].push_back(client);
}

void FairReadyQueue::Unwait(Client* client, int priority) {
  std::vector<Client*>& waiting = waiting_[priority];
  const int slot = client->slot[priority];
  waiting[slot] = waiting.back();
  waiting[slot]->slot[priority] = slot;
  waiting.pop_back();
  client->slot[priority] = -1;
}

bool FairReadyQueue::Push(ExecutorTask* task, uint64_t word) {
  task->queued_word = word;
  if (task->in_ready_queue) return false;
  task->in_ready_queue = true;
  Client* client = Find(task->client);
  const int p = static_cast<int>(task->priority);
  Fifo& fifo = client->fifo[p];
  if (fifo.empty()) Wait(client, p);
  fifo.push_back(task);
  ++client->queued;
  ++size_;
  return true;
}

bool FairReadyQueue::Pop(ExecutorTask** task, uint64_t* word) {
  return PopFrom(INT_MAX, /*tagged_only=*/false, task, word);
}

bool FairReadyQueue::PopStarved(ExecutorTask** task, uint64_t* word) {
  return !UntaggedRunning() && PopFrom(0, /*tagged_only=*/true, task, word);
}

bool FairReadyQueue::HasStarved() const {
  if (UntaggedRunning()) return false;
  for (const std::vector<Client*>& waiting : waiting_) {
    for (const Client* client : waiting) {
      if (client->key != nullptr && client->running == 0) return true;
    }
  }
  return false;
}

bool FairReadyQueue::UntaggedRunning() const {
  for (const auto& client : clients_) {
    if (client->key == nullptr) return client->running > 0;
  }
  return false;
}

bool FairReadyQueue::PopFrom(int max_running, bool tagged_only,
                             ExecutorTask** task, uint64_t* word) {
  for (int p = kNumTaskPriorities - 1; p >= 0; --p) {
    Client* best = nullptr;
    for (Client* client : waiting_[p]) {
      if (client->running > max_running) continue;
      if (tagged_only && client->key == nullptr) continue;
      if (best == nullptr || client->running < best->running ||
          (client->running == best->running &&
           client->last_served < best->last_served)) {
        best = client;
      }
    }
    if (best == nullptr) continue;
    Fifo& fifo = best->fifo[p];
    ExecutorTask* head = fifo.front();
    fifo.pop_front();
    if (fifo.empty()) {
      Unwait(best, p);
    } else if (fifo.size() >= kPrefetchAhead) {
      // Every line of it that starting and running it touch.
      ExecutorTask* ahead = fifo[kPrefetchAhead - 1];
      __builtin_prefetch(ahead, 1);
      __builtin_prefetch(&ahead->run, 1);
      __builtin_prefetch(&ahead->queued_word, 1);
    }
    head->in_ready_queue = false;
    *task = head;
    *word = head->queued_word;
    best->last_served = ++serve_clock_;
    ++best->running;
    --best->queued;
    --size_;
    return true;
  }
  return false;
}

void FairReadyQueue::Finished(const void* key) {
  for (const auto& client : clients_) {
    if (client->key == key) {
      --client->running;
      return;
    }
  }
}

}  // namespace rocksdb_cuckoo
