// Whole-region checksums for table files, with the algorithm chosen by the
// user (RocksDB's ChecksumType values; kxxHash/kxxHash64 are not offered).
#pragma once

#include <cstddef>
#include <cstdint>
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

}  // namespace rocksdb_cuckoo
