// Uninitialized memory for large, short-lived arrays (sort buffers).
//
// From 2 MiB up it is mapped directly and advised for transparent huge pages,
// so first touch costs one fault per 2 MiB instead of one per 4 KiB: first
// touching a sort buffer otherwise takes longer than the sort. Smaller
// sizes, and kernels that refuse the mapping, use operator new (cache-line
// aligned).
#pragma once

#include <cstddef>

namespace rocksdb_cuckoo {

class LargeBuffer {
 public:
  explicit LargeBuffer(size_t bytes);
  ~LargeBuffer();
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // Whether the memory came from a huge-page mapping.
  bool mapped() const { return mapping_ != nullptr; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // what munmap gets back, when mapped
  size_t mapping_size_ = 0;
};

}  // namespace rocksdb_cuckoo
