// Blocking helpers for tests of concurrent code. They wait on condition
// variables, never on the clock: a test that would wait forever is a failed
// test, caught by ctest's timeout. They notify while holding their mutex, so
// a waiter that returns and destroys the helper (they live on test stacks)
// cannot do so while a notifier still touches it.
#pragma once

#include <condition_variable>
#include <mutex>

namespace cuckoo_test {

// Closed until Open(); Wait() blocks until then.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// A counter that threads can wait on.
class Counter {
 public:
  void Add(int n = 1) {
    std::lock_guard<std::mutex> lock(mu_);
    value_ += n;
    cv_.notify_all();
  }
  void WaitFor(int at_least) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return value_ >= at_least; });
  }
  int value() {
    std::lock_guard<std::mutex> lock(mu_);
    return value_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int value_ = 0;
};

}  // namespace cuckoo_test
