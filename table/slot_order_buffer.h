// The entries a slot-ordered file holds back until Finish() knows their
// slots: all of one size, kept in blocks of 2 MiB (one RecycledBuffers
// unit). Not advised for huge pages: a builder's peak memory grew by its
// whole held data with them (26 MB for 200k entries), for no measured gain.
// Adding never moves what is held (a contiguous buffer that doubles would copy
// it all again, and fault in fresh pages, at every doubling: as much copying
// again as the data itself), and entry i is found by arithmetic. The blocks
// come from and go back to RecycledBuffers: the next builder reuses their
// pages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "rocksdb/slice.h"
#include "util/recycled_buffers.h"

namespace rocksdb_cuckoo {

class SlotOrderBuffer {
 public:
  SlotOrderBuffer() = default;
  ~SlotOrderBuffer() { Clear(); }
  SlotOrderBuffer(const SlotOrderBuffer&) = delete;
  SlotOrderBuffer& operator=(const SlotOrderBuffer&) = delete;

  // Appends one entry, the concatenation of the three pieces. The first
  // entry fixes the size of all (the builder stops slot ordering before an
  // entry of another size).
  void Add(const ROCKSDB_NAMESPACE::Slice& a, const ROCKSDB_NAMESPACE::Slice& b,
           const ROCKSDB_NAMESPACE::Slice& c) {
    if (count_ == 0) SetEntrySize(a.size() + b.size() + c.size());
    const uint64_t in_block = count_ & (per_block_ - 1);
    if (in_block == 0) {
      // Every byte is written before it is read.
      Block block;
      block.data = RecycledBuffers::Shared().Take(kBlockBytes, kBlockAlign,
                                                  &block.capacity);
      if (block.data == nullptr) throw std::bad_alloc();
      blocks_.push_back(block);
    }
    char* at = blocks_.back().data + in_block * entry_size_;
    memcpy(at, a.data(), a.size());
    memcpy(at + a.size(), b.data(), b.size());
    memcpy(at + a.size() + b.size(), c.data(), c.size());
    count_++;
  }

  // Entry i's bytes (i < the number added).
  const char* Entry(uint64_t i) const {
    return blocks_[i >> block_shift_].data +
           (i & (per_block_ - 1)) * entry_size_;
  }

  uint64_t bytes() const { return count_ * entry_size_; }

  // Calls write(Slice) on the held bytes in the order they were added.
  template <typename Write>
  void WriteInOrder(Write write) const {
    uint64_t left = bytes();
    for (const Block& block : blocks_) {
      const uint64_t n = std::min<uint64_t>(left, per_block_ * entry_size_);
      write(ROCKSDB_NAMESPACE::Slice(block.data, n));
      left -= n;
    }
  }

  // Frees what is held; the next Add starts afresh.
  void Clear() {
    for (const Block& block : blocks_) {
      RecycledBuffers::Shared().Give(block.data, block.capacity);
    }
    std::vector<Block>().swap(blocks_);
    count_ = 0;
  }

 private:
  // One RecycledBuffers unit, whatever the entry size: any pooled unit
  // serves it as it is.
  static constexpr size_t kBlockBytes = size_t{2} << 20;
  static constexpr size_t kBlockAlign = 64;

  // Entries per block: a power of two, so that Entry() shifts and masks.
  void SetEntrySize(size_t size) {
    entry_size_ = size > 0 ? size : 1;
    block_shift_ = 0;
    while ((size_t{2} << block_shift_) * entry_size_ <= kBlockBytes) {
      block_shift_++;
    }
    per_block_ = uint64_t{1} << block_shift_;
  }

  size_t entry_size_ = 1;
  int block_shift_ = 0;
  uint64_t per_block_ = 1;
  uint64_t count_ = 0;
  struct Block {
    char* data;
    size_t capacity;  // at least kBlockBytes
  };
  std::vector<Block> blocks_;
};

}  // namespace rocksdb_cuckoo
