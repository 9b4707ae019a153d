#include "util/executor/task_recycler.h"

#include "util/executor/intrusive_mpsc_stack.h"

namespace rocksdb_cuckoo {

namespace {

using FreeStack = IntrusiveMpscStack<ExecutorTask, &ExecutorTask::free_next>;

// Never destroyed: threads may free tasks during static destruction. On a
// cache line of its own, away from whatever the heap puts beside it.
FreeStack& SharedFree() {
  struct alignas(64) Padded {
    FreeStack stack;
  };
  static Padded* padded = new Padded;
  return padded->stack;
}

// A thread's private lists. Trivially destructible, so that they stay
// usable to the end of the thread: RetireLocalLists hands them to the shared
// stack when the thread's other thread-locals are destroyed, and from then
// on (static destruction included) the thread uses the shared stack
// directly.
struct LocalLists {
  ExecutorTask* free = nullptr;        // taken from the shared stack
  ExecutorTask* batch = nullptr;       // freed here, not yet shared
  ExecutorTask* batch_last = nullptr;  // the oldest in `batch`
  int batch_size = 0;
  bool registered = false;  // RetireLocalLists constructed
  bool retired = false;
};
thread_local LocalLists local;

void ShareBatch() {
  if (local.batch != nullptr) {
    SharedFree().PushChain(local.batch, local.batch_last);
  }
  local.batch = local.batch_last = nullptr;
  local.batch_size = 0;
}

struct RetireLocalLists {
  ~RetireLocalLists() {
    ShareBatch();
    if (local.free != nullptr) {
      ExecutorTask* last = local.free;
      while (last->free_next != nullptr) last = last->free_next;
      SharedFree().PushChain(local.free, last);
      local.free = nullptr;
    }
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

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kRecycle = false;
#else
constexpr bool kRecycle = true;
#endif
const bool TaskRecycler::kRecycles = kRecycle;

void ExecutorTask::Unref() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    TaskRecycler::Release(this);
  }
}

ExecutorTask* TaskRecycler::Acquire() {
  if (!kRecycle || !UseLocal()) return new ExecutorTask;
  if (local.free == nullptr) local.free = SharedFree().TakeAll();
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
  if (!kRecycle) {
    delete task;
    return;
  }
  task->run = nullptr;
  task->on_cancel = nullptr;
  if (!UseLocal()) {
    SharedFree().Push(task);
    return;
  }
  task->free_next = local.batch;
  if (local.batch == nullptr) local.batch_last = task;
  local.batch = task;
  if (++local.batch_size == TaskRecycler::kBatch) ShareBatch();
}

}  // namespace rocksdb_cuckoo
