// A DB whose block cache takes its memory from JemallocArenaAllocator: every
// cached block lives in the allocator's arenas and goes back to them when
// the cache lets go. This binary is linked against jemalloc (the library
// never is).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cache/jemalloc_arena_allocator.h"
#include "cache/jemalloc_runtime.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/cache.h"
#if __has_include("rocksdb/advanced_cache.h")
#include "rocksdb/advanced_cache.h"  // Cache's definition since 8.x
#endif
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "tests/support/db_open.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

std::string Key(int i) { return "key" + std::to_string(1000000 + i); }
std::string Value(int i) {
  return std::string(200, static_cast<char>('a' + i % 26));
}

TEST(JemallocBlockCacheTest, CachedBlocksLiveInTheAllocatorsArenas) {
  if (FindJemalloc(nullptr) == nullptr) {
    GTEST_SKIP() << "built without libjemalloc";
  }
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  ConfigOptions strict;
  strict.ignore_unsupported_options = false;
  strict.ignore_unknown_options = false;
  std::shared_ptr<MemoryAllocator> allocator;
  ASSERT_OK(MemoryAllocator::CreateFromString(
      strict, "id=JemallocArenaAllocator;num_arenas=2", &allocator));
  // By registered name, not RTTI: a release RocksDB is built -fno-rtti.
  auto* arena_allocator = allocator->CheckedCast<JemallocArenaAllocator>();
  ASSERT_NE(arena_allocator, nullptr);
  JemallocArenaStats baseline;
  ASSERT_OK(arena_allocator->GetStats(&baseline));

  LRUCacheOptions cache_options;
  cache_options.capacity = 8 << 20;
  cache_options.memory_allocator = allocator;
  std::shared_ptr<Cache> cache = NewLRUCache(cache_options);
  BlockBasedTableOptions table_options;
  table_options.block_cache = cache;
  Options options;
  options.create_if_missing = true;
  options.compression = kNoCompression;
  options.table_factory.reset(NewBlockBasedTableFactory(table_options));

  const std::string path = testing::TempDir() + "jemalloc_block_cache_test_" +
                           std::to_string(getpid());
  ASSERT_OK(DestroyDB(path, options));
  constexpr int kKeys = 20000;
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path, &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    for (int i = 0; i < kKeys; ++i) {
      std::string value;
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &value));
      ASSERT_EQ(value, Value(i));
    }
    JemallocArenaStats loaded;
    ASSERT_OK(arena_allocator->GetStats(&loaded));
    // The whole table (about 4.4 MB) is now cached, in our arenas.
    EXPECT_GT(loaded.allocated, baseline.allocated + (2 << 20));
    EXPECT_LE(loaded.allocated - baseline.allocated, cache->GetUsage());
    EXPECT_GT(loaded.allocations, baseline.allocations);
    ASSERT_OK(db->Close());
  }
  cache.reset();
  options.table_factory.reset();
  table_options.block_cache.reset();
  JemallocArenaStats released;
  ASSERT_OK(arena_allocator->GetStats(&released));
  EXPECT_EQ(released.allocated, baseline.allocated);
  EXPECT_EQ(released.allocations - baseline.allocations,
            released.deallocations - baseline.deallocations);
  ASSERT_OK(DestroyDB(path, Options()));
}

}  // namespace
}  // namespace rocksdb_cuckoo
