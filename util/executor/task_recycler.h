// Reuses ExecutorTask objects instead of returning them to malloc.
//
// A task is usually freed by a worker and allocated by a producer thread:
// with malloc that is a cross-thread free per task, and a queue that grows
// by a million tasks costs fresh pages too. Freed tasks go onto one
// lock-free stack; an allocating thread takes the whole stack at once into
// a thread-local list and allocates from there without any atomic. Memory
// is bounded by the most tasks alive at once and kept for reuse.
#pragma once

#include "util/executor/executor_task.h"

namespace rocksdb_cuckoo {

class TaskRecycler {
 public:
  // A task with every field at its initial value.
  static ExecutorTask* Acquire();
  // Takes a task no one refers to any more; destroys its functions now, so
  // that what they captured does not outlive the task.
  static void Release(ExecutorTask* task);
};

}  // namespace rocksdb_cuckoo
