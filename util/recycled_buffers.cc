#include "util/recycled_buffers.h"

#include <sanitizer/asan_interface.h>

#include <chrono>
#include <cstdlib>
#include <utility>

namespace rocksdb_cuckoo {

uint64_t RecycledBuffers::SteadyClockMicros() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

RecycledBuffers& RecycledBuffers::Shared() {
  // Never destroyed: tables may free their buffers during static
  // destruction.
  static RecycledBuffers* const shared = [] {
    Limits limits;
    limits.trim_when_idle = true;
    return new RecycledBuffers(limits, SteadyClockMicros);
  }();
  return *shared;
}

RecycledBuffers::RecycledBuffers(const Limits& limits,
                                 std::function<uint64_t()> now_micros)
    : limits_(limits), now_micros_(std::move(now_micros)) {}

RecycledBuffers::~RecycledBuffers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  pooled_or_stopping_.notify_all();
  if (trimmer_.joinable()) trimmer_.join();
  for (const Pooled& p : pooled_) {
    ASAN_UNPOISON_MEMORY_REGION(p.buffer, p.capacity);
    free(p.buffer);
  }
}

char* RecycledBuffers::Take(size_t size, size_t align, size_t* capacity) {
  if (size >= limits_.min_buffer_bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    TrimLocked(now_micros_());
    // The smallest that fits, so large buffers stay for large requests;
    // never twice the size or more (a builder's 1 MiB block must not hold a
    // file-sized buffer). Anything smaller would cost fresh pages.
    size_t best = pooled_.size();
    for (size_t i = 0; i < pooled_.size(); i++) {
      const Pooled& p = pooled_[i];
      if (p.align == align && p.capacity >= size && p.capacity / 2 < size &&
          (best == pooled_.size() || p.capacity < pooled_[best].capacity)) {
        best = i;
      }
    }
    if (best < pooled_.size()) {
      char* buffer = pooled_[best].buffer;
      *capacity = pooled_[best].capacity;
      pooled_.erase(pooled_.begin() + best);
      pooled_bytes_ -= *capacity;
      ASAN_UNPOISON_MEMORY_REGION(buffer, *capacity);
      return buffer;
    }
  }
  const size_t rounded = (size + align - 1) / align * align;
  char* buffer = static_cast<char*>(aligned_alloc(align, rounded));
  if (buffer != nullptr) *capacity = rounded;
  return buffer;
}

void RecycledBuffers::Give(char* buffer, size_t capacity, size_t align) {
  if (capacity < limits_.min_buffer_bytes ||
      capacity > limits_.max_pooled_bytes) {
    free(buffer);
    return;
  }
  // Whoever takes it next must not read what this user left.
  ASAN_POISON_MEMORY_REGION(buffer, capacity);
  std::lock_guard<std::mutex> lock(mu_);
  pooled_.push_back(Pooled{buffer, capacity, align, now_micros_()});
  pooled_bytes_ += capacity;
  TrimLocked(pooled_.back().given_at);
  if (limits_.trim_when_idle) {
    if (!trimmer_.joinable()) {
      trimmer_ = std::thread([this] { TrimWhenIdle(); });
    }
    pooled_or_stopping_.notify_one();
  }
}

void RecycledBuffers::TrimWhenIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (pooled_.empty()) {
      pooled_or_stopping_.wait(lock);
      continue;
    }
    const uint64_t due = pooled_.front().given_at + limits_.max_idle_micros + 1;
    const uint64_t now = now_micros_();
    if (now < due) {
      pooled_or_stopping_.wait_for(lock, std::chrono::microseconds(due - now));
    } else {
      TrimLocked(now);
    }
  }
}

void RecycledBuffers::TrimLocked(uint64_t now) {
  size_t drop = 0;  // pooled_ is oldest first
  uint64_t left = pooled_bytes_;
  while (drop < pooled_.size() &&
         (left > limits_.max_pooled_bytes ||
          now - pooled_[drop].given_at > limits_.max_idle_micros)) {
    left -= pooled_[drop].capacity;
    drop++;
  }
  for (size_t i = 0; i < drop; i++) {
    ASAN_UNPOISON_MEMORY_REGION(pooled_[i].buffer, pooled_[i].capacity);
    free(pooled_[i].buffer);
  }
  pooled_.erase(pooled_.begin(), pooled_.begin() + drop);
  pooled_bytes_ = left;
}

uint64_t RecycledBuffers::pooled_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pooled_bytes_;
}

}  // namespace rocksdb_cuckoo
