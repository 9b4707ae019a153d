// The bytes of an open table file, mapped (allow_mmap_reads) or loaded into
// an aligned buffer, and kept alive
// while any value that Get() handed out is still pinned by the caller. The
// buffer is filled range by range as the reader asks (Load()): opening a file
// need not read all of it.
//
// Get() pins values instead of copying them, and a PinnableSlice may outlive
// the table reader (a compaction can evict the file while the application
// holds the value). References are counted on per-thread stripes, so lookups
// from different cores never write the same cache line.
//
// Ownership: the owner (the reader) holds one reference on every stripe, so
// no stripe can drain while it is open, and a pin never touches shared state.
// Close() drops the owner's reference on each stripe. A stripe that drains
// (after Close, by Close or by the last unpin on it) drops one of
// kStripes references on the object; whoever drops the last one frees it.
// Each stripe drains exactly once, so exactly one thread frees, and nobody
// touches the object after dropping its reference.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "rocksdb/cleanable.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
class EventListener;
class RandomAccessFileReader;
class RateLimiter;
class Statistics;
class SystemClock;
struct ReadOptions;
}  // namespace ROCKSDB_NAMESPACE

namespace rocksdb_cuckoo {

class PinnedFileMemory {
 public:
  // Files up to this size are read in one read when opened, rather than
  // region by region as reads reach them: a compaction over many small
  // files (level 0, flush outputs) then makes one read per file, as a
  // block-based file's tail prefetch does, and every read that can fail (a
  // disk's, or db_stress's injected faults) is one more way for the whole
  // compaction to fail.
  static constexpr uint64_t kWholeFileBytes = 512 << 10;

  // Who sees the background loader's reads (LoadInBackground), as they see
  // the reads of RocksDB's own table readers: the DB's statistics, its rate
  // limiter, its listeners, and the clock that times the reads. Held shared
  // here rather than borrowed from the column family, whose options may be
  // gone before the file is closed. Empty members: not seen.
  struct ReadObservers {
    std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics;
    std::shared_ptr<ROCKSDB_NAMESPACE::RateLimiter> rate_limiter;
    std::vector<std::shared_ptr<ROCKSDB_NAMESPACE::EventListener>> listeners;
    std::shared_ptr<ROCKSDB_NAMESPACE::SystemClock> clock;
  };

  // Uses the file's own mapping when `allow_mmap_reads` is set and the file
  // really is mapped (RepairDB, for one, opens table files without a
  // mapping whatever the option says); otherwise reserves a buffer for it
  // that holds no file bytes until Load() reads them, except a file of at
  // most kWholeFileBytes, which is read whole now.
  static ROCKSDB_NAMESPACE::Status Open(
      std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader>&& file,
      uint64_t file_size, const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      bool allow_mmap_reads, const ReadObservers& observers,
      PinnedFileMemory** memory);

  // A second copy of `source`'s file, read whole now through `source`'s
  // open file with `read_options`, into a buffer of its own: for a scan
  // that reads every byte once (a compaction) of a file nobody has loaded,
  // which would otherwise load the file for good just before it is deleted.
  // The copy holds no file: Load() on it does nothing. `source` must not be
  // mapped.
  static ROCKSDB_NAMESPACE::Status OpenCopy(
      const PinnedFileMemory& source,
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      PinnedFileMemory** copy);

  // Lets the buffer use huge pages, where the kernel allows (THP "madvise"
  // or "always"), in the 2 MiB windows wholly before `end` that do not
  // overlap [hole_begin, hole_end): random lookups into hundreds of MB then
  // miss the TLB far less, and prefetches are not dropped on TLB misses.
  // The windows left out hold what the reader loads as it opens the file:
  // the first touch of a huge page can wait milliseconds for the kernel to
  // compact memory, which opening a DB should not. Before any Load() into
  // those windows; nothing to do on a mapped file.
  void UseHugePages(uint64_t end, uint64_t hole_begin, uint64_t hole_end);

  // Reads [offset, offset + size) of the file into the buffer, and drops
  // the file's pages from the page cache as the buffer comes to hold them.
  // Nothing to do on a mapped file, or a small one (read whole at Open). Each
  // byte is loaded once (a failed load may be tried again); threads may load
  // disjoint ranges at once, and no thread reads a range before its load has
  // returned.
  ROCKSDB_NAMESPACE::Status Load(uint64_t offset, uint64_t size);
  // Load() for the background loader's thread: reads the file through a
  // reader of its own that reports to Open's `observers`, at the rate
  // limiter's low (background) priority, and through RocksDB's I/O tracer
  // while a trace runs. It leaves out only the column family's per-level
  // read histograms: RocksDB destroys a column family before it evicts (and
  // so closes) its table readers, and a read the loader still has in flight
  // then would record into freed memory.
  ROCKSDB_NAMESPACE::Status LoadInBackground(uint64_t offset, uint64_t size);

  const char* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool loaded() const { return buffer_ != nullptr; }
  // Read whole at Open (a small file) or by OpenCopy.
  bool whole_file_loaded() const { return whole_file_loaded_; }
  // Bytes of the file the buffer holds so far (0 when mapped).
  uint64_t loaded_bytes() const {
    return loaded_bytes_.load(std::memory_order_relaxed);
  }
  ROCKSDB_NAMESPACE::RandomAccessFileReader* file() const {
    return file_.get();
  }

  // Adds a pin and registers its release as a cleanup of `cleanable`.
  void PinTo(ROCKSDB_NAMESPACE::Cleanable* cleanable);

  // Pins for a batch of lookups, added with one atomic add rather than one
  // each; those not handed out are dropped with it.
  class Pins;

  // The owner is done: frees now, or at the last outstanding unpin. No pin
  // may be taken after Close(), and no load may be in flight: call once,
  // after the background loader has let go of the file.
  void Close();

 private:
  static constexpr int kStripes = 16;
  struct alignas(64) Stripe {
    std::atomic<int64_t> refs{1};  // the owner's reference, until Close()
  };

  friend class Pins;
  PinnedFileMemory() = default;
  ~PinnedFileMemory();
  // Adds `count` references on the calling CPU's stripe; returns it.
  Stripe* AddPins(int64_t count);
  static void Unpin(void* memory, void* stripe);
  // Drops one reference on `stripe`; frees this object if that was the last
  // reference of the last stripe.
  void Release(Stripe* stripe);
  ROCKSDB_NAMESPACE::Status LoadFrom(
      ROCKSDB_NAMESPACE::RandomAccessFileReader* file,
      const ROCKSDB_NAMESPACE::ReadOptions& read_options, uint64_t offset,
      uint64_t size);

  // Lock-free: each stripe drains once, and the thread that drains the
  // last one frees the object (Release).
  Stripe stripes_[kStripes];
  std::atomic<int> undrained_stripes_{kStripes};
  std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader> file_;
  // What background_file_ reports to; outlives it.
  ReadObservers observers_;
  // The same open file, read by LoadInBackground(); only when not mapped.
  std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader> background_file_;
  // Owned, only when not mapped: from RecycledBuffers (fresh, or for a copy
  // pooled), given back there when freed if all of it was loaded.
  char* buffer_ = nullptr;
  bool whole_file_loaded_ = false;
  size_t buffer_size_ = 0;
  // Bytes loaded, in all and in each 2 MiB window of the file.
  std::atomic<uint64_t> loaded_bytes_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> window_loaded_;
  const char* data_ = nullptr;
  uint64_t size_ = 0;
};

class PinnedFileMemory::Pins {
 public:
  // Adds `count` pins at once (none for 0).
  Pins(PinnedFileMemory* memory, int64_t count);
  ~Pins();
  Pins(const Pins&) = delete;
  Pins& operator=(const Pins&) = delete;

  // As PinnedFileMemory::PinTo, with one of the pins added in advance while
  // any are left.
  void PinTo(ROCKSDB_NAMESPACE::Cleanable* cleanable);

 private:
  PinnedFileMemory* const memory_;
  Stripe* stripe_ = nullptr;
  int64_t left_;
};

}  // namespace rocksdb_cuckoo
