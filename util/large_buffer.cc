#include "util/large_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace rocksdb_cuckoo {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
// Small buffers start on a cache line, like the mapped ones (page-aligned).
constexpr size_t kAlignment = 64;
}  // namespace

LargeBuffer::LargeBuffer(size_t bytes) : size_(bytes) {
  if (bytes >= kHugePage) {
    // Map one huge page more than needed so the start can be aligned.
    const size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    const size_t length = rounded + kHugePage;
    void* mapping = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping != MAP_FAILED) {
      mapping_ = mapping;
      mapping_size_ = length;
      const uintptr_t aligned =
          (reinterpret_cast<uintptr_t>(mapping) + kHugePage - 1) &
          ~(uintptr_t{kHugePage} - 1);
      data_ = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
      // Advice only: without THP the mapping still works with small pages.
      madvise(data_, rounded, MADV_HUGEPAGE);
#endif
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
