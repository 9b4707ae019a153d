// EntrySlabs: where the striped_hash memtable's entries live. An entry that
// overlapped another, or memory the arena does not count, would corrupt or
// hide data.
#include "memtable/entry_slabs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "memory/concurrent_arena.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::ConcurrentArena;

// Fills `count` entries of sizes cycling through `sizes`, each with its own
// byte, then checks every byte: an overlap shows as a wrong byte.
void FillAndCheck(EntrySlabs* slabs, const std::vector<size_t>& sizes,
                  int count) {
  struct Placed {
    char* memory;
    size_t size;
    unsigned char mark;
  };
  std::vector<Placed> placed;
  for (int i = 0; i < count; ++i) {
    const size_t size = sizes[i % sizes.size()];
    char* memory = slabs->Allocate(size);
    ASSERT_NE(memory, nullptr);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(memory) % 8, 0u) << "entry " << i;
    const auto mark = static_cast<unsigned char>(i * 7 + 1);
    memset(memory, mark, size);
    placed.push_back({memory, size, mark});
  }
  for (const Placed& p : placed) {
    for (size_t b = 0; b < p.size; ++b) {
      ASSERT_EQ(static_cast<unsigned char>(p.memory[b]), p.mark);
    }
  }
}

constexpr size_t kSlab = size_t{6} << 20;

TEST(EntrySlabsTest, SlabsComeFromTheArenaAndAreCountedThere) {
  ConcurrentArena arena(1u << 20);  // RocksDB's for 8 MiB write buffers up
  EntrySlabs slabs(&arena, kSlab);
  ASSERT_TRUE(slabs.uses_slabs());
  FillAndCheck(&slabs, {1, 24, 150, 333, 4000}, 20000);
  // 20000 entries of 900 bytes on average: at least that much memory, and
  // at most what they need plus the slab being filled and the arena's block.
  const size_t used = 18000000;
  EXPECT_GE(arena.MemoryAllocatedBytes(), used);
  EXPECT_LE(arena.MemoryAllocatedBytes(), used + kSlab + (1u << 20));
}

TEST(EntrySlabsTest, WithoutSlabsEntriesComeFromTheArena) {
  ConcurrentArena arena(1u << 20);
  EntrySlabs slabs(&arena, 0);
  EXPECT_FALSE(slabs.uses_slabs());
  FillAndCheck(&slabs, {17, 200}, 5000);
  // No slab was taken: the arena holds about what the entries need.
  EXPECT_LT(arena.MemoryAllocatedBytes(), size_t{3} << 20);
}

TEST(EntrySlabsTest, EntriesTooLargeForAChunkComeFromTheArena) {
  ConcurrentArena arena(1u << 20);
  EntrySlabs slabs(&arena, kSlab);
  FillAndCheck(&slabs,
               {EntrySlabs::kMaxChunkEntry + 1, 100,
                EntrySlabs::kChunkBytes * 3, EntrySlabs::kMaxChunkEntry},
               200);
}

}  // namespace
}  // namespace rocksdb_cuckoo
