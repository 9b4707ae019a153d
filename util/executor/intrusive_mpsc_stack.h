// A lock-free stack that any number of threads push onto and one consumer
// empties at once (TakeAll). Nodes carry their own link (the member pointer
// kNext), so a push allocates nothing and costs one compare-and-swap. There
// is no pop of a single node, so the ABA problem cannot arise.
#pragma once

#include <atomic>

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
  T* TakeAll() { return head_.exchange(nullptr, std::memory_order_acquire); }

  bool Empty() const {
    return head_.load(std::memory_order_seq_cst) == nullptr;
  }

 private:
  std::atomic<T*> head_{nullptr};
};

}  // namespace rocksdb_cuckoo
