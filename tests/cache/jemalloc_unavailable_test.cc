// JemallocArenaAllocator and the memory report in a process that does NOT
// run on jemalloc (this binary is never linked against it): the allocator
// says NotSupported and nothing crashes; options are still checked, and the
// library stays dlopen-able.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "cache/jemalloc_arena_allocator.h"
#include "cache/jemalloc_runtime.h"
#include "tests/support/memory_report.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

#ifndef CUCKOO_SANITIZED
char* volatile escape = nullptr;
#endif

using namespace ROCKSDB_NAMESPACE;

class JemallocUnavailableTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }
  void SetUp() override {
    if (FindJemalloc(nullptr) != nullptr) {
      GTEST_SKIP() << "this process runs on jemalloc (LD_PRELOAD?)";
    }
    strict_.ignore_unsupported_options = false;
    strict_.ignore_unknown_options = false;
  }
  Status Create(const std::string& text,
                std::shared_ptr<MemoryAllocator>* allocator) {
    return MemoryAllocator::CreateFromString(strict_, text, allocator);
  }
  ConfigOptions strict_;
};

TEST_F(JemallocUnavailableTest, ByNameIsNotSupportedAndSaysWhy) {
  std::shared_ptr<MemoryAllocator> allocator;
  Status s = Create("id=JemallocArenaAllocator;num_arenas=2", &allocator);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("LD_PRELOAD=libjemalloc.so.2"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(allocator, nullptr);
}

TEST_F(JemallocUnavailableTest, DefaultConfigOptionsHideItAsOkAndNull) {
  // RocksDB's default ignore_unsupported_options=true turns NotSupported
  // into OK with no allocator (the README warns): the cache then mallocs.
  std::shared_ptr<MemoryAllocator> allocator;
  ASSERT_OK(MemoryAllocator::CreateFromString(
      ConfigOptions(), "JemallocArenaAllocator", &allocator));
  EXPECT_EQ(allocator, nullptr);
}

TEST_F(JemallocUnavailableTest, FromCppIsNotSupported) {
  std::shared_ptr<MemoryAllocator> allocator;
  Status s =
      NewJemallocArenaAllocator(JemallocArenaAllocatorOptions(), &allocator);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(allocator, nullptr);
}

TEST_F(JemallocUnavailableTest, BadOptionsAreInvalidArgumentNamingThem) {
  for (const char* text : {"id=JemallocArenaAllocator;num_arenas=0",
                           "id=JemallocArenaAllocator;num_arenas=65",
                           "id=JemallocArenaAllocator;num_arenas=-1",
                           "id=JemallocArenaAllocator;num_arenas=two",
                           "id=JemallocArenaAllocator;dontdump=maybe",
                           "id=JemallocArenaAllocator;no_such_option=1"}) {
    std::shared_ptr<MemoryAllocator> allocator;
    Status s = Create(text, &allocator);
    EXPECT_TRUE(s.IsInvalidArgument()) << text << ": " << s.ToString();
    const std::string name = strstr(text, "num_arenas") ? "num_arenas"
                             : strstr(text, "dontdump") ? "dontdump"
                                                        : "no_such_option";
    EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
  }
  JemallocArenaAllocatorOptions options;
  options.num_arenas = 0;
  std::shared_ptr<MemoryAllocator> allocator;
  Status s = NewJemallocArenaAllocator(options, &allocator);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(JemallocUnavailableTest, UnpreparedAllocatorIsPlainMalloc) {
  JemallocArenaAllocator allocator;
  char* p = static_cast<char*>(allocator.Allocate(100));
  ASSERT_NE(p, nullptr);
  memset(p, 1, 100);
  EXPECT_EQ(allocator.UsableSize(p, 100), 100u);
  allocator.Deallocate(p);
  JemallocArenaStats stats;
  EXPECT_TRUE(allocator.GetStats(&stats).IsNotSupported());
}

TEST_F(JemallocUnavailableTest, MemoryReportWithoutJemalloc) {
  MemoryReport before;
  ASSERT_OK(GetMemoryReport(&before));
  EXPECT_NE(before.allocator, "jemalloc");
  EXPECT_GT(before.rss, 0u);
  EXPECT_GE(before.peak_rss, before.rss);
  EXPECT_EQ(before.mapped, 0u);
  EXPECT_NE(before.ToString().find("rss="), std::string::npos);
#ifdef CUCKOO_SANITIZED
  // ASan serves malloc here and glibc's counters do not see it.
  EXPECT_FALSE(before.has_heap_stats) << before.ToString();
  EXPECT_TRUE(std::isnan(before.fragmentation()));
#else
  EXPECT_EQ(before.allocator, "glibc");
  ASSERT_TRUE(before.has_heap_stats);
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
  EXPECT_NE(during.ToString().find("fragmentation="), std::string::npos);
  free(block);
#endif
}

TEST_F(JemallocUnavailableTest, SharedLibraryLoadsWithoutJemalloc) {
  // dlopen of anything linked to Debian's libjemalloc.so.2 fails here
  // ("cannot allocate memory in static TLS block"); ours must not need it.
  if (CUCKOO_SHARED_LIBRARY[0] == '\0') {
    GTEST_SKIP() << "no librocksdb_cuckoo.so in this build (in-tree RocksDB)";
  }
  void* library = dlopen(CUCKOO_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  EXPECT_EQ(dlsym(library, "mallctl"), nullptr);
  EXPECT_NE(dlsym(library, "register_rocksdb_cuckoo"), nullptr);
  // Left loaded: its static initializer registered factories with RocksDB.
}

}  // namespace
}  // namespace rocksdb_cuckoo
