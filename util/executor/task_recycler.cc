#include "util/executor/task_recycler.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace rocksdb_cuckoo {

namespace {

// Full batches of freed tasks (chains linked through free_next), most
// recently freed last. A thread takes the newest, whose lines are the
// likeliest to be cached still. Up to kMaxPooledBatches are kept; a batch
// that finds the pool full (a burst of tasks is draining) goes back to malloc
// at once, on the thread that freed it: its tasks ran just now, so walking
// and freeing them hits the cache, where freeing an old batch instead would
// miss on every task of it.
class BatchPool {
 public:
  static constexpr size_t kMaxPooledBatches = 512;

  void Put(ExecutorTask* batch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (batches_.size() < kMaxPooledBatches) {
        batches_.push_back(batch);
        num_batches_.store(batches_.size(), std::memory_order_relaxed);
        return;
      }
    }
    while (batch != nullptr) {
      ExecutorTask* next = batch->free_next;
      delete batch;
      batch = next;
    }
  }

  ExecutorTask* Take() {
    // While tasks pile up in queues none come back, and every allocation
    // would take the mutex only to find nothing.
    if (num_batches_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    if (batches_.empty()) return nullptr;
    ExecutorTask* batch = batches_.back();
    batches_.pop_back();
    num_batches_.store(batches_.size(), std::memory_order_relaxed);
    return batch;
  }

 private:
  std::mutex mu_;
  std::vector<ExecutorTask*> batches_;
  // batches_.size(), readable without the mutex.
  std::atomic<size_t> num_batches_{0};
};

// Never destroyed: threads may free tasks during static destruction.
BatchPool& SharedBatches() {
  static BatchPool* pool = new BatchPool;
  return *pool;
}

// A thread's private lists. Trivially destructible, so that they stay
// usable to the end of the thread: RetireLocalLists hands them to the pool
// when the thread's other thread-locals are destroyed, and from then on
// (static destruction included) the thread allocates and frees one task at
// a time.
struct LocalLists {
  ExecutorTask* free = nullptr;   // a batch taken from the pool
  ExecutorTask* batch = nullptr;  // freed here, not yet shared
  int batch_size = 0;
  bool registered = false;  // RetireLocalLists constructed
  bool retired = false;
};

thread_local LocalLists local;

void ShareBatch() {
  if (local.batch != nullptr) SharedBatches().Put(local.batch);
  local.batch = nullptr;
  local.batch_size = 0;
}

struct RetireLocalLists {
  ~RetireLocalLists() {
    ShareBatch();
    if (local.free != nullptr) SharedBatches().Put(local.free);
    local.free = nullptr;
    local.retired = true;
  }
};
thread_local RetireLocalLists retire_local_lists;

// Whether this thread may use its lists (registering their retirement on
// first use).
bool UseLocal() {
  if (!local.registered) {
    local.registered = true;
    static_cast<void>(&retire_local_lists);  // constructs it
  }
  return !local.retired;
}

}  // namespace

void ExecutorTask::Unref() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    TaskRecycler::Release(this);
  }
}

ExecutorTask* TaskRecycler::Acquire() {
  if (!kRecycles || !UseLocal()) return new ExecutorTask;
  if (local.free == nullptr) local.free = SharedBatches().Take();
  ExecutorTask* task = local.free;
  if (task == nullptr) return new ExecutorTask;
  local.free = task->free_next;
  // The next task's first line was last written by whichever thread freed
  // it, most likely on another core: fetch it now, while the caller fills
  // in this one, rather than stall on it at the next Add.
  if (local.free != nullptr) __builtin_prefetch(local.free, 1);
  task->tag = nullptr;
  task->client = nullptr;
  task->pool = 0;
  task->priority = TaskPriority::kNormal;
  task->posted = false;
  task->word.store(0, std::memory_order_relaxed);
  task->ready_tick.store(0, std::memory_order_relaxed);
  task->refs.store(0, std::memory_order_relaxed);
  task->in_ready_inbox.store(false, std::memory_order_relaxed);
  task->in_timer_inbox.store(false, std::memory_order_relaxed);
  task->in_ready_queue = false;
  task->queued_word = 0;
  return task;
}

void TaskRecycler::Release(ExecutorTask* task) {
  if (!kRecycles || !UseLocal()) {
    delete task;
    return;
  }
  task->run = nullptr;
  task->on_cancel = nullptr;
  task->free_next = local.batch;
  local.batch = task;
  if (++local.batch_size == kBatch) ShareBatch();
}

}  // namespace rocksdb_cuckoo
