// The memory report in a process on jemalloc (this binary is linked against
// it; the library never is).
#include "tests/support/memory_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cache/jemalloc_runtime.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

char* volatile escape = nullptr;

TEST(MemoryReportTest, ReadsJemallocStatistics) {
  const JemallocApi* je = FindJemalloc(nullptr);
  if (je == nullptr) GTEST_SKIP() << "built without libjemalloc";
  if (!je->owns_malloc) {
    GTEST_SKIP() << "malloc is not jemalloc's here (ASan intercepts it), so "
                    "jemalloc's process-wide statistics do not describe the "
                    "heap";
  }
  MemoryReport before;
  ASSERT_OK(GetMemoryReport(&before));
  EXPECT_EQ(before.allocator, "jemalloc");
  ASSERT_TRUE(before.has_heap_stats);
  EXPECT_GT(before.allocated, 0u);
  EXPECT_GE(before.active, before.allocated);
  EXPECT_GE(before.mapped, before.active);
  EXPECT_GT(before.metadata, 0u);
  EXPECT_GT(before.resident, 0u);
  EXPECT_GE(before.peak_rss, before.rss);

  constexpr size_t kBytes = 32 << 20;
  char* block = static_cast<char*>(malloc(kBytes));
  ASSERT_NE(block, nullptr);
  memset(block, 1, kBytes);
  escape = block;  // so that the compiler keeps the allocation
  MemoryReport during;
  ASSERT_OK(GetMemoryReport(&during));
  EXPECT_GE(during.allocated, before.allocated + kBytes);
  EXPECT_GE(during.rss, before.rss + kBytes / 2);
  EXPECT_FALSE(std::isnan(during.fragmentation()));
  EXPECT_DOUBLE_EQ(during.fragmentation(),
                   static_cast<double>(during.rss) / during.allocated - 1.0);
  for (const char* field : {"allocator=jemalloc", "allocated=", "active=",
                            "mapped=", "metadata=", "fragmentation="}) {
    EXPECT_NE(during.ToString().find(field), std::string::npos)
        << during.ToString();
  }
  free(block);
  MemoryReport after;
  ASSERT_OK(GetMemoryReport(&after));
  EXPECT_LE(after.allocated + kBytes, during.allocated);
}

}  // namespace
}  // namespace rocksdb_cuckoo
