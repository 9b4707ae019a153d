// JemallocArenaAllocator in a process that runs on jemalloc: this binary is
// linked against it (tests/CMakeLists.txt; the library never is). Under ASan
// the sanitizer keeps malloc and jemalloc serves only the allocator's
// mallocx/dallocx, which is all these tests use.
#include "cache/jemalloc_arena_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cache/jemalloc_runtime.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "tests/support/status_assertions.h"
#include "tests/support/vm_flags.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

class JemallocArenaAllocatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }
  void SetUp() override {
    std::string why;
    je_ = FindJemalloc(&why);
    if (je_ == nullptr) GTEST_SKIP() << "built without libjemalloc: " << why;
    strict_.ignore_unsupported_options = false;
    strict_.ignore_unknown_options = false;
  }

  std::shared_ptr<JemallocArenaAllocator> Create(const std::string& text) {
    std::shared_ptr<MemoryAllocator> allocator;
    Status s = MemoryAllocator::CreateFromString(strict_, text, &allocator);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (allocator == nullptr) return nullptr;
    // By registered name, not RTTI: a release RocksDB is built -fno-rtti.
    return std::shared_ptr<JemallocArenaAllocator>(
        allocator, allocator->CheckedCast<JemallocArenaAllocator>());
  }

  // The arena jemalloc says `p` belongs to.
  unsigned ArenaOf(void* p) {
    unsigned arena = ~0u;
    size_t size = sizeof(arena);
    EXPECT_EQ(je_->mallctl("arenas.lookup", &arena, &size, &p, sizeof(p)), 0);
    return arena;
  }

  const JemallocApi* je_ = nullptr;
  ConfigOptions strict_;
};

using testing::VmFlagsOf;

TEST_F(JemallocArenaAllocatorTest, CreatedByNameWithTypedOptions) {
  auto allocator = Create("id=JemallocArenaAllocator;num_arenas=3;dontdump=1");
  ASSERT_NE(allocator, nullptr);
  EXPECT_STREQ(allocator->Name(), "JemallocArenaAllocator");
  EXPECT_EQ(allocator->options().num_arenas, 3u);
  EXPECT_TRUE(allocator->options().dontdump);
  EXPECT_EQ(allocator->arenas().size(), 3u);
  EXPECT_EQ(
      std::set<unsigned>(allocator->arenas().begin(), allocator->arenas().end())
          .size(),
      3u);

  std::string text;
  ASSERT_OK(allocator->GetOptionString(strict_, &text));
  auto copy = Create("id=JemallocArenaAllocator;" + text);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->options().num_arenas, 3u) << text;
  EXPECT_TRUE(copy->options().dontdump) << text;
}

TEST_F(JemallocArenaAllocatorTest, AlignedWithUsableSizeAtLeastRequested) {
  std::shared_ptr<MemoryAllocator> allocator;
  ASSERT_OK(
      NewJemallocArenaAllocator(JemallocArenaAllocatorOptions(), &allocator));
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{7}, size_t{16}, size_t{100}, size_t{4096},
        size_t{4097}, size_t{65536}, size_t{1} << 20, size_t{3} << 20}) {
    char* p = static_cast<char*>(allocator->Allocate(size));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t), 0u)
        << size;
    const size_t usable = allocator->UsableSize(p, size);
    EXPECT_GE(usable, std::max<size_t>(size, 1)) << size;
    // jemalloc's size classes waste at most a quarter above 16 bytes.
    EXPECT_LE(usable, std::max<size_t>(16, size + size / 4)) << size;
    memset(p, 0xab, usable);
    allocator->Deallocate(p);
  }
}

TEST_F(JemallocArenaAllocatorTest, AllocationsComeFromItsOwnArena) {
  auto allocator = Create("JemallocArenaAllocator");
  ASSERT_NE(allocator, nullptr);
  ASSERT_EQ(allocator->arenas().size(), 1u);
  const unsigned arena = allocator->arenas()[0];
  std::vector<void*> blocks;
  for (size_t size = 8; size <= (size_t{1} << 20); size *= 4) {
    blocks.push_back(allocator->Allocate(size));
    EXPECT_EQ(ArenaOf(blocks.back()), arena) << size;
  }
  // The process's ordinary allocations stay elsewhere.
  void* other = je_->mallocx(4096, 0);
  EXPECT_NE(ArenaOf(other), arena);
  je_->dallocx(other, 0);
  for (void* p : blocks) allocator->Deallocate(p);
}

TEST_F(JemallocArenaAllocatorTest, StatsMoveAndFreedMemoryReturnsToItsArena) {
  auto allocator = Create("JemallocArenaAllocator");
  ASSERT_NE(allocator, nullptr);
  JemallocArenaStats before;
  ASSERT_OK(allocator->GetStats(&before));

  constexpr int kSmall = 1000;
  constexpr int kLarge = 20;
  std::vector<void*> blocks;
  size_t usable = 0;
  for (int i = 0; i < kSmall + kLarge; ++i) {
    const size_t size = i < kSmall ? 4000 : 100000;
    blocks.push_back(allocator->Allocate(size));
    usable += allocator->UsableSize(blocks.back(), size);
  }
  // Allocations from the rest of the process do not show up in ours.
  std::vector<void*> others;
  for (int i = 0; i < 100; ++i) others.push_back(je_->mallocx(4000, 0));

  JemallocArenaStats during;
  ASSERT_OK(allocator->GetStats(&during));
  EXPECT_EQ(during.allocated - before.allocated, usable);
  EXPECT_EQ(during.allocations - before.allocations, uint64_t{kSmall + kLarge});
  EXPECT_GE(during.active, during.allocated);
  EXPECT_GE(during.mapped, during.active);
  EXPECT_GT(during.resident, before.resident);

  for (void* p : blocks) allocator->Deallocate(p);
  JemallocArenaStats after;
  ASSERT_OK(allocator->GetStats(&after));
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_EQ(after.deallocations - before.deallocations,
            uint64_t{kSmall + kLarge});
  EXPECT_LT(after.active, during.active);
  for (void* p : others) je_->dallocx(p, 0);
}

TEST_F(JemallocArenaAllocatorTest, SpreadsThreadsOverItsArenas) {
  auto allocator = Create("id=JemallocArenaAllocator;num_arenas=2");
  ASSERT_NE(allocator, nullptr);
  // Threads get consecutive slots, so any two new ones use both arenas.
  std::vector<void*> blocks(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < blocks.size(); ++i) {
    threads.emplace_back([&, i] { blocks[i] = allocator->Allocate(256); });
  }
  for (auto& t : threads) t.join();
  std::set<unsigned> used;
  for (void* p : blocks) used.insert(ArenaOf(p));
  EXPECT_EQ(used, std::set<unsigned>(allocator->arenas().begin(),
                                     allocator->arenas().end()));
  for (void* p : blocks) allocator->Deallocate(p);
}

TEST_F(JemallocArenaAllocatorTest, DontDumpKeepsItsMemoryOutOfCoreDumps) {
  auto dontdump = Create("id=JemallocArenaAllocator;dontdump=true");
  auto dumped = Create("id=JemallocArenaAllocator;dontdump=false");
  ASSERT_NE(dontdump, nullptr);
  ASSERT_NE(dumped, nullptr);
  void* hidden = dontdump->Allocate(1 << 20);
  void* shown = dumped->Allocate(1 << 20);
  EXPECT_NE(VmFlagsOf(hidden).find(" dd "), std::string::npos)
      << VmFlagsOf(hidden);
  const std::string flags = VmFlagsOf(shown);
  EXPECT_FALSE(flags.empty());
  EXPECT_EQ(flags.find(" dd "), std::string::npos) << flags;
  dontdump->Deallocate(hidden);
  dumped->Deallocate(shown);
}

TEST_F(JemallocArenaAllocatorTest, ArenasAreReusedOnceTheAllocatorIsGone) {
  unsigned created_before = 0;
  ASSERT_OK(MallctlRead(*je_, "arenas.narenas", &created_before));
  std::vector<unsigned> first;
  for (int i = 0; i < 20; ++i) {
    auto allocator = Create("id=JemallocArenaAllocator;num_arenas=2");
    ASSERT_NE(allocator, nullptr);
    if (i == 0) first = allocator->arenas();
    std::vector<unsigned> now = allocator->arenas();
    std::sort(now.begin(), now.end());
    std::sort(first.begin(), first.end());
    EXPECT_EQ(now, first);
  }
  unsigned created_after = 0;
  ASSERT_OK(MallctlRead(*je_, "arenas.narenas", &created_after));
  EXPECT_LE(created_after, created_before + 2);
}

}  // namespace
}  // namespace rocksdb_cuckoo
