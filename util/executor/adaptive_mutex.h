// A mutex that spins briefly before it sleeps (glibc's adaptive mutex).
//
// An executor pool's workers hold their mutex for well under a microsecond
// at a time (to file new tasks and take a batch). A plain mutex puts a worker
// that finds it taken to sleep in the kernel, and the holder's unlock then
// wakes it: two system calls and a context switch, far longer than the wait
// (and longer still on a virtual machine, where the wake-up is an
// interprocessor interrupt). Spinning a little first avoids both when the
// holder is running. Satisfies Lockable, for std::unique_lock and
// std::lock_guard.
#pragma once

#include <pthread.h>

namespace rocksdb_cuckoo {

class AdaptiveMutex {
 public:
  AdaptiveMutex();
  ~AdaptiveMutex();
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock();
  bool try_lock();
  void unlock();

 private:
  pthread_mutex_t mu_;
};

}  // namespace rocksdb_cuckoo
