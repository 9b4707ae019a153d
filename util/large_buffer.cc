#include "util/large_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

#include "util/huge_pages.h"

namespace rocksdb_cuckoo {

namespace {
// Small buffers start on a cache line, like the mapped ones (page-aligned).
constexpr size_t kAlignment = 64;
}  // namespace

LargeBuffer::LargeBuffer(size_t bytes) : size_(bytes) {
  if (bytes >= kHugePageBytes) {
    // Map one huge page more than needed so the start can be aligned.
    const size_t rounded = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    const size_t length = rounded + kHugePageBytes;
    void* mapping = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping != MAP_FAILED) {
      mapping_ = mapping;
      mapping_size_ = length;
      const uintptr_t aligned =
          (reinterpret_cast<uintptr_t>(mapping) + kHugePageBytes - 1) &
          ~(uintptr_t{kHugePageBytes} - 1);
      data_ = reinterpret_cast<void*>(aligned);
      AdviseHugePages(data_, rounded);
      return;
    }
  }
  data_ = ::operator new(bytes == 0 ? 1 : bytes, std::align_val_t(kAlignment));
}

LargeBuffer::~LargeBuffer() {
  if (mapping_ != nullptr) {
    munmap(mapping_, mapping_size_);
  } else {
    ::operator delete(data_, std::align_val_t(kAlignment));
  }
}

}  // namespace rocksdb_cuckoo
