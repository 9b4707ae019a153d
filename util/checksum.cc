#include "util/checksum.h"

#include <algorithm>

#include "util/coding.h"
#include "util/crc32c.h"
#include "util/xxhash.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::kCRC32c;
using ROCKSDB_NAMESPACE::kNoChecksum;
using ROCKSDB_NAMESPACE::kXXH3;

bool IsSupportedChecksum(ChecksumType type) {
  return type == kNoChecksum || type == kCRC32c || type == kXXH3;
}

const char* ChecksumName(ChecksumType type) {
  switch (type) {
    case kNoChecksum:
      return "kNoChecksum";
    case kCRC32c:
      return "kCRC32c";
    case kXXH3:
      return "kXXH3";
    default:
      return "unsupported";
  }
}

uint64_t ComputeChecksum(ChecksumType type, const char* data, size_t size) {
  switch (type) {
    case kCRC32c:
      return ROCKSDB_NAMESPACE::crc32c::Value(data, size);
    case kXXH3:
      return XXH3_64bits(data, size);
    default:
      return 0;
  }
}

ChecksumStream::ChecksumStream(ChecksumType type) : type_(type) {
  if (type_ == kXXH3) {
    auto* state = XXH3_createState();
    XXH3_64bits_reset(state);
    xxh3_state_ = state;
  }
}

ChecksumStream::~ChecksumStream() {
  if (xxh3_state_ != nullptr) {
    XXH3_freeState(static_cast<XXH3_state_t*>(xxh3_state_));
  }
}

void ChecksumStream::Update(const char* data, size_t size) {
  if (type_ == kXXH3) {
    XXH3_64bits_update(static_cast<XXH3_state_t*>(xxh3_state_), data, size);
  } else if (type_ == kCRC32c) {
    crc_ = ROCKSDB_NAMESPACE::crc32c::Extend(crc_, data, size);
  }
}

uint64_t ChecksumStream::Digest() const {
  if (type_ == kXXH3) {
    return XXH3_64bits_digest(static_cast<XXH3_state_t*>(xxh3_state_));
  }
  return type_ == kCRC32c ? crc_ : 0;
}

ChunkChecksums::ChunkChecksums(ChecksumType type, uint64_t chunk_size)
    : type_(type),
      chunk_size_(chunk_size),
      current_(new ChecksumStream(type)) {}

void ChunkChecksums::Update(const char* data, size_t size) {
  while (size > 0) {
    const size_t take =
        static_cast<size_t>(std::min<uint64_t>(size, chunk_size_ - filled_));
    current_->Update(data, take);
    filled_ += take;
    data += take;
    size -= take;
    if (filled_ == chunk_size_) {
      ROCKSDB_NAMESPACE::PutFixed64(&sums_, current_->Digest());
      current_.reset(new ChecksumStream(type_));
      filled_ = 0;
    }
  }
}

void ChunkChecksums::Finish(std::string* dst) {
  if (filled_ > 0) ROCKSDB_NAMESPACE::PutFixed64(&sums_, current_->Digest());
  dst->append(sums_);
  sums_.clear();
  current_.reset(new ChecksumStream(type_));
  filled_ = 0;
}

}  // namespace rocksdb_cuckoo
