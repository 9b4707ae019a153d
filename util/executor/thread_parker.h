// Puts one thread to sleep until another wakes it, without spinning.
//
// Park() sleeps in the kernel (futex) until Unpark(); an Unpark() that comes
// first is remembered, so the next Park() returns at once (no lost wake-up).
// Unpark() makes a system call only when the owner is really asleep.
#pragma once

#include <atomic>
#include <cstdint>

namespace rocksdb_cuckoo {

class ThreadParker {
 public:
  // Only the owning thread parks.
  void Park();
  // Any thread; wakes the owner or lets its next Park() return at once.
  void Unpark();

 private:
  static constexpr uint32_t kEmpty = 0;
  static constexpr uint32_t kNotified = 1;
  static constexpr uint32_t kSleeping = 2;
  std::atomic<uint32_t> state_{kEmpty};
};

}  // namespace rocksdb_cuckoo
