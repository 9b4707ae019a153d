// LargeBuffer: small sizes come from operator new, large ones from a
// huge-page-advised mapping; either way the whole range is usable and
// cache-line aligned.
#include "util/large_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace rocksdb_cuckoo {
namespace {

bool FillAndCheck(const LargeBuffer& buffer) {
  char* p = static_cast<char*>(buffer.data());
  memset(p, 0x5a, buffer.size());
  return buffer.size() == 0 || (p[0] == 0x5a && p[buffer.size() / 2] == 0x5a &&
                                p[buffer.size() - 1] == 0x5a);
}

TEST(LargeBufferTest, SmallBuffersUseTheHeap) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{4096}, size_t{1} << 20}) {
    const LargeBuffer buffer(size);
    EXPECT_FALSE(buffer.mapped()) << size;
    EXPECT_EQ(buffer.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u) << size;
    EXPECT_TRUE(FillAndCheck(buffer)) << size;
  }
}

TEST(LargeBufferTest, LargeBuffersAreMappedOnHugePageBoundaries) {
  const size_t size = (size_t{5} << 20) + 123;
  const LargeBuffer buffer(size);
  ASSERT_TRUE(buffer.mapped());
  EXPECT_EQ(buffer.size(), size);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % (size_t{2} << 20), 0u);
  EXPECT_TRUE(FillAndCheck(buffer));
}

}  // namespace
}  // namespace rocksdb_cuckoo
