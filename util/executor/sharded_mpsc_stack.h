// IntrusiveMpscStack split into shards, each on its own cache line, with
// each pushing thread on one shard: producers on different cores do not
// fight over one head pointer (every push would otherwise move that line
// between their cores). The consumer empties every shard.
//
// Threads take shards round robin, in the order they first push; with more
// threads than shards some share one. Order holds within a shard only.
#pragma once

#include <atomic>

#include "util/executor/intrusive_mpsc_stack.h"

namespace rocksdb_cuckoo {

template <typename T, T* T::*kNext>
class ShardedMpscStack {
 public:
  static constexpr int kShards = 8;

  // Returns true if the calling thread's shard was empty before.
  // Sequentially consistent, as is Empty().
  bool Push(T* node) { return shards_[ThreadShard()].stack.Push(node); }

  // Empties every shard: visit(list) for each non-empty one, with its
  // nodes newest first, linked through kNext.
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

}  // namespace rocksdb_cuckoo
