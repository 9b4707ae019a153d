// Reuses ExecutorTask objects instead of returning them to malloc.
//
// A task is usually freed by a worker and allocated by a producer thread:
// with malloc that is a cross-thread free per task, and a queue that grows
// by a million tasks costs fresh pages too. A freeing thread collects freed
// tasks in a thread-local batch and pushes each full batch onto one shared
// lock-free stack with one compare-and-swap (one per task would bounce the
// stack's head between the workers' cores); an allocating thread takes the
// whole stack at once into a thread-local list and allocates from there
// without any atomic. Memory is bounded by the most tasks alive at once plus
// one batch per thread, and kept for reuse.
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
  // Freed tasks a thread collects before other threads can reuse them; a
  // thread that ends shares what it holds.
  static constexpr int kBatch = 32;
  // Whether tasks are reused at all (not under AddressSanitizer or
  // ThreadSanitizer, so that a use after the last reference is caught rather
  // than hidden by reuse).
  static const bool kRecycles;
};

}  // namespace rocksdb_cuckoo
