// Huge-page advice is a hint on memory the caller owns: any range, aligned or
// not, leaves the memory readable and writable with its contents.
#include "util/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

namespace rocksdb_cuckoo {
namespace {

TEST(HugePagesTest, AdviceKeepsMemoryAndContents) {
  const size_t size = 3 * kHugePageBytes;
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* p = static_cast<char*>(map);
  memset(p, 'x', size);
  // Unaligned start and end: only the huge pages inside are advised.
  AdviseHugePages(p + 4096, size - 8192);
  AdviseHugePages(p, 100);  // smaller than a huge page: nothing to advise
  AdviseHugePages(p, 0);
  for (size_t i = 0; i < size; i += 4096) ASSERT_EQ(p[i], 'x') << i;
  memset(p, 'y', size);
  EXPECT_EQ(p[size - 1], 'y');
  munmap(map, size);
}

}  // namespace
}  // namespace rocksdb_cuckoo
