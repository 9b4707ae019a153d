// Verifies a bulk region of a table file chunk by chunk, the first time a
// reader touches each chunk: opening a file then reads only its small
// regions, and damage is still reported before a lookup uses damaged bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "rocksdb/status.h"
#include "table/cuckoo_hash_table_format.h"
#include "util/checksum.h"

namespace rocksdb_cuckoo {

class ChunkVerifier {
 public:
  // Trusts every byte: the region was verified as a whole, or the file has
  // no checksums.
  ChunkVerifier() = default;
  // `sums`: one fixed64 checksum per kChecksumChunkSize bytes of the
  // `size`-byte region at `region`, themselves already verified.
  ChunkVerifier(ChecksumType type, const char* region, uint64_t size,
                const char* sums, const char* name);

  // True if [offset, offset + size) of the region lies in intact chunks,
  // verifying those no reader has verified yet; otherwise false, with
  // *error naming the damage. Threads may verify one chunk at once: each
  // computes the same answer, and a chunk is marked only once it matched.
  bool Check(uint64_t offset, uint64_t size, Status* error) const {
    if (verified_ == nullptr) return true;
    if (size > 0 && offset < size_ && size <= size_ - offset) {
      const uint64_t last = (offset + size - 1) >> kChecksumChunkShift;
      uint64_t chunk = offset >> kChecksumChunkShift;
      while (chunk <= last && IsVerified(chunk)) chunk++;
      if (chunk > last) return true;
    }
    *error = Verify(offset, size);
    return error->ok();
  }
  // Verifies every chunk again, marked or not.
  Status VerifyAll() const;

 private:
  bool IsVerified(uint64_t chunk) const {
    return (verified_[chunk >> 6].load(std::memory_order_relaxed) >>
            (chunk & 63)) &
           1;
  }
  Status Verify(uint64_t offset, uint64_t size) const;
  Status VerifyChunk(uint64_t chunk) const;

  ChecksumType type_ = ROCKSDB_NAMESPACE::kNoChecksum;
  const char* region_ = nullptr;
  uint64_t size_ = 0;
  const char* sums_ = nullptr;
  const char* name_ = "";
  // One bit per chunk; relaxed is enough: the bytes a bit vouches for were
  // in place before the reader was shared and never change.
  std::unique_ptr<std::atomic<uint64_t>[]> verified_;
};

}  // namespace rocksdb_cuckoo
