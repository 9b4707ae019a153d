#include "util/executor/thread_parker.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rocksdb_cuckoo {

namespace {

// The futex word is the atomic's value; std::atomic<uint32_t> is a plain
// 32-bit integer on Linux, which is what the kernel expects.
void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
}

void FutexWakeOne(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1,
          nullptr, nullptr, 0);
}

}  // namespace

// Handshake 3 in util/executor/executor_task.h.
void ThreadParker::Park() {
  uint32_t expected = kEmpty;
  if (state_.compare_exchange_strong(expected, kSleeping,
                                     std::memory_order_acquire)) {
    // Spurious returns (signals, EAGAIN) just look again.
    do {
      FutexWait(&state_, kSleeping);
    } while (state_.load(std::memory_order_acquire) == kSleeping);
  }
  state_.store(kEmpty, std::memory_order_relaxed);
}

void ThreadParker::Unpark() {
  if (state_.exchange(kNotified, std::memory_order_release) == kSleeping) {
    FutexWakeOne(&state_);
  }
}

}  // namespace rocksdb_cuckoo
