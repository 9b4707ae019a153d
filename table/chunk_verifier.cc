#include "table/chunk_verifier.h"

#include <algorithm>
#include <string>

#include "util/coding.h"

namespace rocksdb_cuckoo {

ChunkVerifier::ChunkVerifier(ChecksumType type, const char* region,
                             uint64_t size, const char* sums, const char* name,
                             PinnedFileMemory* loader, uint64_t region_offset)
    : type_(type),
      region_(region),
      size_(size),
      sums_(sums),
      name_(name),
      loader_(loader),
      region_offset_(region_offset),
      locks_(new std::mutex[kLockStripes]) {
  if (loader != nullptr) {
    const uint64_t groups =
        (Layout::NumChunks(size) + kChunksPerLoad - 1) / kChunksPerLoad;
    loaded_.reset(new bool[groups]());
  }
  const uint64_t words = (Layout::NumChunks(size) + 63) / 64;
  verified_.reset(new std::atomic<uint64_t>[words]);
  for (uint64_t i = 0; i < words; i++) {
    verified_[i].store(0, std::memory_order_relaxed);
  }
}

Status ChunkVerifier::Verify(uint64_t offset, uint64_t size) const {
  if (size == 0 || offset >= size_ || size > size_ - offset) {
    return Status::Corruption(std::string("CuckooHashTable: read past the ") +
                              name_ + " region (offset " +
                              std::to_string(offset) + ")");
  }
  const uint64_t last = (offset + size - 1) >> kChecksumChunkShift;
  for (uint64_t chunk = offset >> kChecksumChunkShift; chunk <= last; chunk++) {
    if (IsVerified(chunk)) continue;
    Status s = VerifyFirstTime(chunk);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status ChunkVerifier::VerifyFirstTime(uint64_t chunk,
                                      bool in_background) const {
  const uint64_t group = chunk / kChunksPerLoad;
  std::lock_guard<std::mutex> lock(locks_[group % kLockStripes]);
  if (IsVerified(chunk)) return Status::OK();
  if (loader_ != nullptr && !loaded_[group]) {
    const uint64_t begin = (group * kChunksPerLoad) << kChecksumChunkShift;
    const uint64_t offset = region_offset_ + begin;
    const uint64_t size =
        std::min(kChunksPerLoad << kChecksumChunkShift, size_ - begin);
    const Status s = in_background ? loader_->LoadInBackground(offset, size)
                                   : loader_->Load(offset, size);
    if (!s.ok()) return s;
    loaded_[group] = true;
  }
  Status s = VerifyChunk(chunk);
  if (!s.ok()) return s;
  verified_[chunk >> 6].fetch_or(uint64_t{1} << (chunk & 63),
                                 std::memory_order_release);
  return Status::OK();
}

Status ChunkVerifier::VerifyAll() const {
  for (uint64_t chunk = 0; chunk < Layout::NumChunks(size_); chunk++) {
    Status s = IsVerified(chunk) ? VerifyChunk(chunk) : VerifyFirstTime(chunk);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

bool ChunkVerifier::VerifyRemaining(const std::atomic<bool>& stop) const {
  if (verified_ == nullptr) return true;
  for (uint64_t chunk = 0; chunk < Layout::NumChunks(size_); chunk++) {
    if (stop.load(std::memory_order_relaxed)) return false;
    if (!IsVerified(chunk)) {
      VerifyFirstTime(chunk, /*in_background=*/true).PermitUncheckedError();
    }
  }
  return true;
}

Status ChunkVerifier::VerifyChunk(uint64_t chunk) const {
  const uint64_t begin = chunk << kChecksumChunkShift;
  const uint64_t size = std::min(kChecksumChunkSize, size_ - begin);
  if (ComputeChecksum(type_, region_ + begin, size) !=
      ROCKSDB_NAMESPACE::DecodeFixed64(sums_ + 8 * chunk)) {
    return Status::Corruption(std::string("CuckooHashTable: checksum "
                                          "mismatch in ") +
                              name_ + " region, chunk at offset " +
                              std::to_string(begin));
  }
  return Status::OK();
}

}  // namespace rocksdb_cuckoo
