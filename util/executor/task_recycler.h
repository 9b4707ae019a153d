// Reuses ExecutorTask objects instead of returning them to malloc.
//
// A task is usually freed by a worker and allocated by a producer thread:
// with malloc that is a cross-thread free per task. Freed tasks travel
// between threads in batches instead: a freeing thread fills a batch
// privately and hands it over whole, and an allocating thread takes one
// batch and allocates from it without any atomic, so threads meet (on a
// mutex) once per kBatch tasks. The batches kept are bounded (a burst of
// tasks goes back to malloc afterwards) and the most recently freed is
// reused first, while its lines are likely cached.
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
  // Whether tasks are reused at all: not under AddressSanitizer or
  // ThreadSanitizer, so that a use after the last reference is caught rather
  // than hidden by reuse.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  static constexpr bool kRecycles = false;
#else
  static constexpr bool kRecycles = true;
#endif
};

}  // namespace rocksdb_cuckoo
