// Verifies a bulk region of a table file chunk by chunk, the first time a
// reader touches each chunk: opening a file then reads only its small
// regions, and damage is still reported before a lookup uses damaged bytes.
// A file read into memory (not mapped) is also loaded as reads reach it, a
// few chunks at a time: the first touch reads them from the file, then
// verifies the chunk touched.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "rocksdb/status.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/pinned_file_memory.h"
#include "util/checksum.h"

namespace rocksdb_cuckoo {

class ChunkVerifier {
 public:
  // Trusts every byte: the region was verified as a whole, or the file has
  // no checksums.
  ChunkVerifier() = default;
  // `sums`: one fixed64 checksum per kChecksumChunkSize bytes of the
  // `size`-byte region at `region`, themselves already verified. With
  // `loader`, the region lies in its buffer at file offset `region_offset`
  // and no chunk is loaded yet.
  ChunkVerifier(ChecksumType type, const char* region, uint64_t size,
                const char* sums, const char* name,
                PinnedFileMemory* loader = nullptr, uint64_t region_offset = 0);

  // True if [offset, offset + size) of the region lies in intact chunks,
  // verifying (and loading) those no reader has verified yet; otherwise
  // false, with *error naming the damage or the failed read. Safe from any
  // number of threads, as are VerifyAll and VerifyRemaining.
  bool Check(uint64_t offset, uint64_t size, Status* error) const {
    if (IsReady(offset, size)) return true;
    *error = Verify(offset, size);
    return error->ok();
  }
  // Whether [offset, offset + size) may be read now without a Check: every
  // chunk of it is verified (so loaded), or the region is trusted. Reads
  // nothing and verifies nothing.
  bool IsReady(uint64_t offset, uint64_t size) const {
    if (verified_ == nullptr) return true;
    if (size == 0 || offset >= size_ || size > size_ - offset) return false;
    const uint64_t last = (offset + size - 1) >> kChecksumChunkShift;
    for (uint64_t c = offset >> kChecksumChunkShift; c <= last; c++) {
      if (!IsVerified(c)) return false;
    }
    return true;
  }
  // Verifies every chunk again, marked or not (loading those not loaded).
  Status VerifyAll() const;
  // Loads and verifies, in file order, the chunks no reader has verified
  // yet, until `stop` reads true; returns false if it stopped early. A chunk
  // that is damaged or cannot be read is left unmarked, for the reads that
  // reach it to report.
  bool VerifyRemaining(const std::atomic<bool>& stop) const;

 private:
  static constexpr uint64_t kLockStripes = 16;
  // Chunks read from the file at once: reads reach chunks in random order,
  // and a cold file is read far faster in large reads than in one small
  // read per chunk.
  static constexpr uint64_t kChunksPerLoad = 8;

  // Acquire: a chunk's bit is set after its bytes were loaded.
  bool IsVerified(uint64_t chunk) const {
    return (verified_[chunk >> 6].load(std::memory_order_acquire) >>
            (chunk & 63)) &
           1;
  }
  // Check's slow path: verifies the range's chunks not marked yet.
  // REQUIRES: none of locks_ held.
  Status Verify(uint64_t offset, uint64_t size) const;
  // Loads (if need be) the chunks around it, verifies and marks a chunk,
  // unless another thread has marked it meanwhile. `in_background`: on the
  // background loader's thread (PinnedFileMemory::LoadInBackground).
  // REQUIRES: the chunk's stripe lock not held (it takes it).
  Status VerifyFirstTime(uint64_t chunk, bool in_background = false) const;
  // REQUIRES: no load writes the chunk: it is marked verified, or its
  // stripe lock is held (with a loader, after its group's load).
  Status VerifyChunk(uint64_t chunk) const;

  ChecksumType type_ = ROCKSDB_NAMESPACE::kNoChecksum;
  const char* region_ = nullptr;
  uint64_t size_ = 0;
  const char* sums_ = nullptr;
  const char* name_ = "";
  PinnedFileMemory* loader_ = nullptr;
  uint64_t region_offset_ = 0;
  // One bit per chunk, set once the chunk is loaded and matched.
  std::unique_ptr<std::atomic<uint64_t>[]> verified_;
  // With a loader: whether each group of kChunksPerLoad chunks is loaded;
  // guarded by the group's lock. A group is loaded, and its chunks verified, by
  // one thread at a time, holding its stripe's lock: a load never writes bytes
  // that another thread reads.
  std::unique_ptr<bool[]> loaded_;
  // locks_[g % kLockStripes], group g's stripe lock, guards loaded_[g], the
  // loading of group g's bytes and the setting of its chunks' bits.
  std::unique_ptr<std::mutex[]> locks_;
};

}  // namespace rocksdb_cuckoo
