#include "util/recycled_buffers.h"

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

namespace rocksdb_cuckoo {

namespace {

// `bytes` (a multiple of `unit`) of fresh memory at a unit-aligned address,
// or nullptr.
char* MapAligned(size_t bytes, size_t unit) {
  void* mapping = mmap(nullptr, bytes + unit, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(mapping);
  const uintptr_t aligned = (start + unit - 1) & ~(uintptr_t{unit} - 1);
  if (aligned > start) munmap(mapping, aligned - start);
  const uintptr_t end = start + bytes + unit;
  if (end > aligned + bytes) {
    munmap(reinterpret_cast<void*>(aligned + bytes), end - aligned - bytes);
  }
  return reinterpret_cast<char*>(aligned);
}

// Leaves no poisoned shadow behind: whatever is mapped there next is clean.
void Unmap(char* buffer, size_t bytes) {
  ASAN_UNPOISON_MEMORY_REGION(buffer, bytes);
  munmap(buffer, bytes);
}

}  // namespace

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
  for (const Run& run : pooled_) {
    Unmap(run.begin, run.units * limits_.unit_bytes);
  }
}

char* RecycledBuffers::Take(size_t size, size_t align, size_t* capacity) {
  return TakeBuffer(size, align, capacity, /*reuse=*/true);
}

char* RecycledBuffers::TakeFresh(size_t size, size_t align, size_t* capacity) {
  return TakeBuffer(size, align, capacity, /*reuse=*/false);
}

char* RecycledBuffers::TakeBuffer(size_t size, size_t align, size_t* capacity,
                                  bool reuse) {
  const size_t unit = limits_.unit_bytes;
  if (size < limits_.min_buffer_bytes) {
    char* buffer = static_cast<char*>(
        aligned_alloc(align, (size + align - 1) / align * align));
    if (buffer != nullptr) *capacity = size;
    return buffer;
  }
  const size_t units = (size + unit - 1) / unit;
  std::vector<Run> parts;
  if (reuse) {
    std::lock_guard<std::mutex> lock(mu_);
    TrimLocked(now_micros_());
    // A run that holds the request whole needs no move: the smallest, so
    // that large runs stay for large requests.
    size_t best = pooled_.size();
    for (size_t i = 0; i < pooled_.size(); i++) {
      if (pooled_[i].units >= units &&
          (best == pooled_.size() || pooled_[i].units < pooled_[best].units)) {
        best = i;
      }
    }
    if (best < pooled_.size()) {
      Run& run = pooled_[best];
      run.units -= units;
      char* buffer = run.begin + run.units * unit;
      if (run.units == 0) pooled_.erase(pooled_.begin() + best);
      pooled_units_ -= units;
      ASAN_UNPOISON_MEMORY_REGION(buffer, units * unit);
      *capacity = units * unit;
      return buffer;
    }
    // Else every unit there is, the newest first, and fresh ones after.
    size_t left = units;
    while (left > 0 && !pooled_.empty()) {
      Run& run = pooled_.back();
      const size_t n = std::min(left, run.units);
      run.units -= n;
      parts.push_back(Run{run.begin + run.units * unit, n, 0});
      if (run.units == 0) pooled_.pop_back();
      pooled_units_ -= n;
      left -= n;
    }
  }
  char* buffer = MoveIntoOneRange(parts, units);
  if (buffer != nullptr) *capacity = units * unit;
  return buffer;
}

char* RecycledBuffers::MoveIntoOneRange(const std::vector<Run>& parts,
                                        size_t units) {
  const size_t unit = limits_.unit_bytes;
  char* range = MapAligned(units * unit, unit);
  size_t at = 0;
  for (const Run& part : parts) {
    ASAN_UNPOISON_MEMORY_REGION(part.begin, part.units * unit);
    for (size_t u = 0; u < part.units; u++, at++) {
      char* from = part.begin + u * unit;
      // One unit at a time: a run given back may span several mappings
      // (it may itself have been put together here), and one mremap moves
      // only within one. Where a move fails, the range keeps a fresh unit.
      if (range == nullptr ||
          mremap(from, unit, unit, MREMAP_MAYMOVE | MREMAP_FIXED,
                 range + at * unit) == MAP_FAILED) {
        munmap(from, unit);
      }
    }
  }
  return range;
}

void RecycledBuffers::Give(char* buffer, size_t capacity) {
  if (capacity < limits_.min_buffer_bytes ||
      capacity > limits_.max_pooled_bytes) {
    Free(buffer, capacity);
    return;
  }
  // Whoever takes it next must not read what this user left.
  ASAN_POISON_MEMORY_REGION(buffer, capacity);
  std::lock_guard<std::mutex> lock(mu_);
  const size_t units = capacity / limits_.unit_bytes;
  pooled_.push_back(Run{buffer, units, now_micros_()});
  pooled_units_ += units;
  TrimLocked(pooled_.back().given_at);
  if (limits_.trim_when_idle) {
    if (!trimmer_.joinable()) {
      trimmer_ = std::thread([this] { TrimWhenIdle(); });
    }
    pooled_or_stopping_.notify_one();
  }
}

void RecycledBuffers::Free(char* buffer, size_t capacity) {
  if (capacity < limits_.min_buffer_bytes) {
    ASAN_UNPOISON_MEMORY_REGION(buffer, capacity);
    free(buffer);
  } else {
    Unmap(buffer, capacity);
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
  const size_t unit = limits_.unit_bytes;
  size_t drop = 0;  // pooled_ is oldest first
  uint64_t left = pooled_units_;
  while (drop < pooled_.size() &&
         (left * unit > limits_.max_pooled_bytes ||
          now - pooled_[drop].given_at > limits_.max_idle_micros)) {
    left -= pooled_[drop].units;
    Unmap(pooled_[drop].begin, pooled_[drop].units * unit);
    drop++;
  }
  pooled_.erase(pooled_.begin(), pooled_.begin() + drop);
  pooled_units_ = left;
}

uint64_t RecycledBuffers::pooled_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pooled_units_ * limits_.unit_bytes;
}

}  // namespace rocksdb_cuckoo
