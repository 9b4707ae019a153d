// Large buffers whose pages are in use already, kept for reuse once freed
// instead of going back to the kernel. Memory the kernel hands out anew
// costs a page fault and a zeroing of every page on first touch (in a
// virtual machine, also the host's fault behind it), and the write side
// asks for such memory all the time: each builder holds its entries in
// blocks until it finishes, and each compaction reads its input files into
// buffers. Handing on the pages of the last builder or compaction saves
// all of that.
//
// Pooled memory is kept in units (2 MiB by default, one huge page), each
// aligned to its size, so that any unit serves any request: a request finds
// a pooled run of enough units, or the kernel moves pooled units into one
// new range (mremap: page tables change hands, no byte is copied or zeroed).
// Without that, a compaction's 18 MiB input could not use the 16 MiB
// buffers its predecessors left, nor a builder's 2 MiB blocks.
//
// Only buffers whose pages were all written belong here: a buffer nobody
// touched costs nothing to free and would save nothing when reused.
//
// Bounded: at most max_pooled_bytes sit in the pool (the oldest go first),
// and a unit nobody took within max_idle_micros is freed: at the next
// Take or Give, or, with trim_when_idle, by a thread of the pool's own once
// that time is up, so that memory goes back once a DB's writes stop.
// Buffers below min_buffer_bytes come from aligned_alloc and are never
// pooled (malloc reuses those).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rocksdb_cuckoo {

class RecycledBuffers {
 public:
  struct Limits {
    // A power of two, a multiple of the page size, at least
    // min_buffer_bytes.
    size_t unit_bytes = size_t{2} << 20;
    size_t min_buffer_bytes = size_t{256} << 10;
    uint64_t max_pooled_bytes = uint64_t{256} << 20;
    uint64_t max_idle_micros = 10 * 1000 * 1000;
    bool trim_when_idle = false;
  };

  // The process's pool: the default limits, trim_when_idle.
  static RecycledBuffers& Shared();

  // steady_clock's time in microseconds: the clock of the shared pool.
  static uint64_t SteadyClockMicros();

  // now_micros: a monotonic clock (tests pass their own; with
  // trim_when_idle, it must be SteadyClockMicros).
  RecycledBuffers(const Limits& limits, std::function<uint64_t()> now_micros);
  ~RecycledBuffers();
  RecycledBuffers(const RecycledBuffers&) = delete;
  RecycledBuffers& operator=(const RecycledBuffers&) = delete;

  // A buffer of at least `size` bytes (> 0) aligned to `align` (a power of
  // two, a multiple of sizeof(void*), at most unit_bytes), made of pooled
  // units where there are any. Its contents are undefined. *capacity gets
  // its size. nullptr when out of memory.
  char* Take(size_t size, size_t align, size_t* capacity);
  // As Take, from fresh memory alone: for a buffer parts of which may never
  // be touched (those cost nothing fresh, while pooled pages are in use).
  char* TakeFresh(size_t size, size_t align, size_t* capacity);
  // Takes back a buffer from Take or TakeFresh, every page of which was
  // written: pools it, or frees it.
  void Give(char* buffer, size_t capacity);
  // Frees a buffer from Take or TakeFresh without pooling it, whatever its
  // user left poisoned for AddressSanitizer.
  void Free(char* buffer, size_t capacity);

  uint64_t pooled_bytes() const;

 private:
  // Consecutive units, given back together.
  struct Run {
    char* begin;
    size_t units;
    uint64_t given_at;
  };
  char* TakeBuffer(size_t size, size_t align, size_t* capacity, bool reuse);
  // Moves `parts`' units, in order, into a fresh range of `units` units
  // (fresh memory where they fall short).
  char* MoveIntoOneRange(const std::vector<Run>& parts, size_t units);
  // Frees what overstays max_idle_micros, then the oldest while over
  // max_pooled_bytes. Holds mu_.
  void TrimLocked(uint64_t now);
  // trim_when_idle's thread: trims whenever the oldest unit's time is up.
  void TrimWhenIdle();

  const Limits limits_;
  const std::function<uint64_t()> now_micros_;
  mutable std::mutex mu_;
  std::vector<Run> pooled_;  // oldest first
  uint64_t pooled_units_ = 0;
  std::condition_variable pooled_or_stopping_;
  bool stopping_ = false;
  std::thread trimmer_;  // started by the first Give that pools
};

}  // namespace rocksdb_cuckoo
