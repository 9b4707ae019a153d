// The bytes of an open table file, mapped (allow_mmap_reads) or loaded into
// an aligned heap buffer, and kept alive while any value that Get() handed
// out is still pinned by the caller.
//
// Get() pins values instead of copying them, and a PinnableSlice may outlive
// the table reader (a compaction can evict the file while the application
// holds the value). Each pin is counted on a per-thread stripe, so lookups
// from different cores never write the same cache line; the memory is freed
// by whichever comes last: the reader closing it or the last unpin.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "rocksdb/cleanable.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
class RandomAccessFileReader;
}

namespace rocksdb_cuckoo {

class PinnedFileMemory {
 public:
  // Brings the whole file into memory: maps it when `mmap` (the file was
  // opened with allow_mmap_reads), reads it into a buffer otherwise.
  static ROCKSDB_NAMESPACE::Status Open(
      std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader>&& file,
      uint64_t file_size, bool mmap, PinnedFileMemory** memory);

  const char* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool loaded() const { return buffer_ != nullptr; }
  ROCKSDB_NAMESPACE::RandomAccessFileReader* file() const {
    return file_.get();
  }

  // Adds a pin and registers its release as a cleanup of `cleanable`.
  void PinTo(ROCKSDB_NAMESPACE::Cleanable* cleanable);

  // The owner is done: frees now, or at the last outstanding unpin.
  void Close();

 private:
  static constexpr int kStripes = 16;
  struct alignas(64) Stripe {
    std::atomic<int64_t> pins{0};
  };

  PinnedFileMemory() = default;
  ~PinnedFileMemory();
  static void Unpin(void* memory, void* stripe);
  // Frees this object if closed and no pin is left; safe to race.
  void FreeIfUnused();

  Stripe stripes_[kStripes];
  std::atomic<bool> closed_{false};
  std::atomic<bool> freed_{false};
  std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader> file_;
  char* buffer_ = nullptr;  // owned, only when loaded
  const char* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace rocksdb_cuckoo
