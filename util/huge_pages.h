// Transparent huge pages: the page size and the advice to use them.
#pragma once

#include <cstddef>

namespace rocksdb_cuckoo {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Advises huge pages for the whole, 2 MiB-aligned huge pages inside
// [begin, begin + size), memory that belongs to the caller alone. A hint:
// kernels without transparent huge pages, or with them off, ignore or refuse
// it, and the memory works the same with small pages.
void AdviseHugePages(void* begin, size_t size);

}  // namespace rocksdb_cuckoo
