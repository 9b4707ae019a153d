// Checksums for table files, of whole regions or chunk by chunk, with the
// algorithm chosen by the user (RocksDB's ChecksumType values;
// kxxHash/kxxHash64 are not offered).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/table.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::ChecksumType;

bool IsSupportedChecksum(ChecksumType type);
const char* ChecksumName(ChecksumType type);

// Checksum of [data, data + size). kNoChecksum yields 0.
uint64_t ComputeChecksum(ChecksumType type, const char* data, size_t size);

// Streams data through the chosen checksum without holding it all.
class ChecksumStream {
 public:
  explicit ChecksumStream(ChecksumType type);
  ~ChecksumStream();
  ChecksumStream(const ChecksumStream&) = delete;
  ChecksumStream& operator=(const ChecksumStream&) = delete;

  void Update(const char* data, size_t size);
  uint64_t Digest() const;

 private:
  ChecksumType type_;
  uint32_t crc_ = 0;
  void* xxh3_state_ = nullptr;  // XXH3_state_t, opaque to keep xxhash.h out
};

// Streams data through one checksum per `chunk_size` bytes (the last chunk
// may be shorter), so a reader can verify any chunk on its own.
class ChunkChecksums {
 public:
  ChunkChecksums(ChecksumType type, uint64_t chunk_size);

  void Update(const char* data, size_t size);
  // Appends the checksum of every chunk so far, fixed64 each, the last
  // partial chunk included, and starts over.
  void Finish(std::string* dst);

 private:
  const ChecksumType type_;
  const uint64_t chunk_size_;
  uint64_t filled_ = 0;  // bytes in the current chunk
  std::unique_ptr<ChecksumStream> current_;
  std::string sums_;
};

}  // namespace rocksdb_cuckoo
