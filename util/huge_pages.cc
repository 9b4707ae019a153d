#include "util/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace rocksdb_cuckoo {

void AdviseHugePages(void* begin, size_t size) {
  constexpr uintptr_t kMask = uintptr_t{kHugePageBytes} - 1;
  const uintptr_t start = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (start + kMask) & ~kMask;
  const uintptr_t last = (start + size) & ~kMask;
#ifdef MADV_HUGEPAGE
  if (last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#endif
}

}  // namespace rocksdb_cuckoo
