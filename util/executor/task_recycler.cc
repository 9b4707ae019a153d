#include "util/executor/task_recycler.h"

#include "util/executor/intrusive_mpsc_stack.h"

namespace rocksdb_cuckoo {

namespace {

using FreeStack = IntrusiveMpscStack<ExecutorTask, &ExecutorTask::free_next>;

// Never destroyed: threads may free tasks during static destruction.
FreeStack& SharedFree() {
  static FreeStack* stack = new FreeStack;
  return *stack;
}

// The allocating thread's private list; given back when the thread ends.
struct LocalFree {
  ExecutorTask* head = nullptr;
  ~LocalFree() {
    while (head != nullptr) {
      ExecutorTask* next = head->free_next;
      SharedFree().Push(head);
      head = next;
    }
  }
};

thread_local LocalFree local_free;

}  // namespace

// Under AddressSanitizer or ThreadSanitizer, tasks go back to malloc so that
// a use after the last reference is caught rather than hidden by reuse.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kRecycle = false;
#else
constexpr bool kRecycle = true;
#endif

void ExecutorTask::Unref() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    TaskRecycler::Release(this);
  }
}

ExecutorTask* TaskRecycler::Acquire() {
  if (!kRecycle) return new ExecutorTask;
  if (local_free.head == nullptr) local_free.head = SharedFree().TakeAll();
  ExecutorTask* task = local_free.head;
  if (task == nullptr) return new ExecutorTask;
  local_free.head = task->free_next;
  // The next task's first line was last written by whichever thread freed
  // it, most likely on another core: fetch it now, while the caller fills
  // in this one, rather than stall on it at the next Add.
  if (local_free.head != nullptr) __builtin_prefetch(local_free.head, 1);
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
  SharedFree().Push(task);
}

}  // namespace rocksdb_cuckoo
