// The jemalloc arenas behind JemallocArenaAllocator: created on demand,
// purged and kept for reuse when released (plain and MADV_DONTDUMP ones
// apart), DONTDUMP extents marked so, and statistics summed over arenas as
// of the last refresh. This binary is linked against jemalloc
// (tests/CMakeLists.txt; the library never is); failures and the sums are
// also checked against a fake mallctl.
//
// Released arenas are kept process-wide, so each test leaves the pools as
// it found them or holds only real arenas there.
#include "cache/jemalloc_arenas.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cache/jemalloc_runtime.h"
#include "tests/support/fake_mallctl.h"
#include "tests/support/status_assertions.h"
#include "tests/support/vm_flags.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::Status;
using testing::FakeMallctl;
using testing::VmFlagsOf;

std::string ArenaKey(unsigned arena, const char* field) {
  return "stats.arenas." + std::to_string(arena) + "." + field;
}

// Every statistic ReadArenaStats reads, for one arena.
struct FakeArena {
  unsigned index;
  uint64_t small_allocated, large_allocated, pactive, mapped, resident;
  uint64_t small_nmalloc, large_nmalloc, small_ndalloc, large_ndalloc;

  void SetIn(FakeMallctl* fake) const {
    fake->Set(ArenaKey(index, "small.allocated"), small_allocated);
    fake->Set(ArenaKey(index, "large.allocated"), large_allocated);
    fake->Set(ArenaKey(index, "pactive"), pactive);
    fake->Set(ArenaKey(index, "mapped"), mapped);
    fake->Set(ArenaKey(index, "resident"), resident);
    fake->Set(ArenaKey(index, "small.nmalloc"), small_nmalloc);
    fake->Set(ArenaKey(index, "large.nmalloc"), large_nmalloc);
    fake->Set(ArenaKey(index, "small.ndalloc"), small_ndalloc);
    fake->Set(ArenaKey(index, "large.ndalloc"), large_ndalloc);
  }
};

const FakeArena kArena3{3, 100, 2000, 5, 90000, 80000, 10, 2, 4, 1};
const FakeArena kArena5{5, 30, 70000, 20, 200000, 150000, 7, 3, 6, 2};

TEST(JemallocArenasTest, StatsAreSummedOverTheArenas) {
  FakeMallctl fake;
  fake.Set("arenas.page", 4096);
  kArena3.SetIn(&fake);
  kArena5.SetIn(&fake);
  JemallocArenaStats stats;
  ASSERT_OK(ReadArenaStats(fake.Api(), {3}, &stats));
  EXPECT_EQ(stats.allocated, 2100u);
  EXPECT_EQ(stats.active, 5u * 4096);  // pages to bytes
  EXPECT_EQ(stats.mapped, 90000u);
  EXPECT_EQ(stats.resident, 80000u);
  EXPECT_EQ(stats.allocations, 12u);
  EXPECT_EQ(stats.deallocations, 5u);

  ASSERT_OK(ReadArenaStats(fake.Api(), {3, 5}, &stats));
  EXPECT_EQ(stats.allocated, 2100u + 70030);
  EXPECT_EQ(stats.active, 25u * 4096);
  EXPECT_EQ(stats.mapped, 290000u);
  EXPECT_EQ(stats.resident, 230000u);
  EXPECT_EQ(stats.allocations, 22u);
  EXPECT_EQ(stats.deallocations, 13u);
  // Reads only: nothing is refreshed or written.
  EXPECT_EQ(fake.CallsTo("epoch"), 0u);
  for (const FakeMallctl::Call& call : fake.calls()) {
    EXPECT_FALSE(call.writes) << call.name;
  }
}

TEST(JemallocArenasTest, StatsOfNoArenasAreZero) {
  FakeMallctl fake;
  fake.Set("arenas.page", 4096);
  JemallocArenaStats stats;
  stats.allocated = stats.active = stats.mapped = 1;
  stats.resident = stats.allocations = stats.deallocations = 1;
  ASSERT_OK(ReadArenaStats(fake.Api(), {}, &stats));
  EXPECT_EQ(stats.allocated, 0u);
  EXPECT_EQ(stats.active, 0u);
  EXPECT_EQ(stats.mapped, 0u);
  EXPECT_EQ(stats.resident, 0u);
  EXPECT_EQ(stats.allocations, 0u);
  EXPECT_EQ(stats.deallocations, 0u);
}

TEST(JemallocArenasTest, AMissingStatisticIsNotSupportedNamingIt) {
  FakeMallctl fake;
  fake.Set("arenas.page", 4096);
  kArena3.SetIn(&fake);
  kArena5.SetIn(&fake);
  fake.Fail(ArenaKey(5, "resident"), ENOENT);
  JemallocArenaStats stats;
  Status s = ReadArenaStats(fake.Api(), {3, 5}, &stats);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("--enable-stats"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("\"stats.arenas.5.resident\""), std::string::npos)
      << s.ToString();

  // Without the page size no arena's statistics can be read.
  FakeMallctl no_page;
  kArena3.SetIn(&no_page);
  s = ReadArenaStats(no_page.Api(), {3}, &stats);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("\"arenas.page\""), std::string::npos)
      << s.ToString();
}

TEST(JemallocArenasTest, ReleasePurgesAndKeepsTheArenaForItsKind) {
  // Indices no real arena has; taken out again below, so the pools end as
  // they began.
  constexpr unsigned kPlain = 70001;
  constexpr unsigned kDontDump = 70002;
  FakeMallctl fake;
  ReleaseArena(fake.Api(), kPlain, /*dontdump=*/false);
  ReleaseArena(fake.Api(), kDontDump, /*dontdump=*/true);
  EXPECT_EQ(fake.CallsTo("arena.70001.purge"), 1u);
  EXPECT_EQ(fake.CallsTo("arena.70002.purge"), 1u);
  // The last released of each kind comes back first, and no arena is made.
  unsigned plain = 0;
  unsigned dontdump = 0;
  EXPECT_OK(AcquireArena(fake.Api(), /*dontdump=*/false, &plain));
  EXPECT_OK(AcquireArena(fake.Api(), /*dontdump=*/true, &dontdump));
  EXPECT_EQ(plain, kPlain);
  EXPECT_EQ(dontdump, kDontDump);
  EXPECT_EQ(fake.CallsTo("arenas.create"), 0u);
  EXPECT_EQ(fake.CallsTo("arena.0.extent_hooks"), 0u);
}

TEST(JemallocArenasTest, CreationFailureIsAbortedSayingWhy) {
  FakeMallctl fake;
  fake.Fail("arenas.create", EAGAIN);
  // Arenas other tests of this process released come first: take them out
  // (they are real ones) until one must be created.
  std::vector<unsigned> taken;
  unsigned arena = 0;
  Status s;
  while ((s = AcquireArena(fake.Api(), /*dontdump=*/false, &arena)).ok()) {
    taken.push_back(arena);
  }
  EXPECT_TRUE(s.IsAborted()) << s.ToString();
  EXPECT_NE(s.ToString().find("could not create an arena: " +
                              std::string(strerror(EAGAIN))),
            std::string::npos)
      << s.ToString();
  ASSERT_EQ(fake.calls().size(), 1u);
  EXPECT_EQ(fake.calls()[0].name, "arenas.create");
  EXPECT_FALSE(fake.calls()[0].writes);  // no extent hooks for a plain one
  if (!taken.empty()) {
    const JemallocApi* je = FindJemalloc(nullptr);
    ASSERT_NE(je, nullptr);
    for (unsigned a : taken) ReleaseArena(*je, a, /*dontdump=*/false);
  }
}

class JemallocArenasLinkedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    je_ = FindJemalloc(&why);
    if (je_ == nullptr) GTEST_SKIP() << "built without libjemalloc: " << why;
  }
  void TearDown() override {
    for (const Held& held : held_)
      ReleaseArena(*je_, held.arena, held.dontdump);
  }

  // An arena released when the test ends.
  unsigned Acquire(bool dontdump) {
    unsigned arena = ~0u;
    const Status s = AcquireArena(*je_, dontdump, &arena);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (s.ok()) held_.push_back({arena, dontdump});
    return arena;
  }
  void* AllocateIn(unsigned arena, size_t size) {
    void* p = je_->mallocx(size, MallocxArena(arena) | kMallocxTcacheNone);
    EXPECT_NE(p, nullptr);
    return p;
  }
  void Free(void* p) { je_->dallocx(p, kMallocxTcacheNone); }
  unsigned ArenaOf(void* p) {
    unsigned arena = ~0u;
    size_t size = sizeof(arena);
    EXPECT_EQ(je_->mallctl("arenas.lookup", &arena, &size, &p, sizeof(p)), 0);
    return arena;
  }
  unsigned NumArenas() {
    unsigned n = 0;
    EXPECT_OK(MallctlRead(*je_, "arenas.narenas", &n));
    return n;
  }
  JemallocArenaStats Stats(const std::vector<unsigned>& arenas) {
    JemallocArenaStats stats;
    EXPECT_OK(ReadArenaStats(*je_, arenas, &stats));
    return stats;
  }

  const JemallocApi* je_ = nullptr;

 private:
  struct Held {
    unsigned arena;
    bool dontdump;
  };
  std::vector<Held> held_;
};

TEST_F(JemallocArenasLinkedTest, AcquiredArenasAreDistinctAndServeTheirOwn) {
  const unsigned a = Acquire(false);
  const unsigned b = Acquire(false);
  const unsigned c = Acquire(true);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(b, c);
  EXPECT_NE(a, 0u);  // never jemalloc's default arena
  for (unsigned arena : {a, b, c}) {
    void* p = AllocateIn(arena, 5000);
    EXPECT_EQ(ArenaOf(p), arena);
    Free(p);
  }
}

TEST_F(JemallocArenasLinkedTest, AReleasedArenaIsReusedAndNoneIsCreated) {
  unsigned first = 0;
  ASSERT_OK(AcquireArena(*je_, false, &first));
  ReleaseArena(*je_, first, false);
  const unsigned created = NumArenas();
  const unsigned again = Acquire(false);
  EXPECT_EQ(again, first);
  EXPECT_EQ(NumArenas(), created);
  // `first` is held now: the next one is another arena.
  EXPECT_NE(Acquire(false), first);
}

TEST_F(JemallocArenasLinkedTest, DontDumpArenasKeepTheirMemoryOutOfCoreDumps) {
  void* hidden = AllocateIn(Acquire(true), 1 << 20);
  void* shown = AllocateIn(Acquire(false), 1 << 20);
  EXPECT_NE(VmFlagsOf(hidden).find(" dd "), std::string::npos)
      << VmFlagsOf(hidden);
  const std::string flags = VmFlagsOf(shown);
  EXPECT_FALSE(flags.empty());
  EXPECT_EQ(flags.find(" dd "), std::string::npos) << flags;
  Free(hidden);
  Free(shown);
}

TEST_F(JemallocArenasLinkedTest, ReleaseReturnsTheArenasUnusedPages) {
  unsigned arena = 0;
  ASSERT_OK(AcquireArena(*je_, false, &arena));
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) blocks.push_back(AllocateIn(arena, 64 << 10));
  for (void* p : blocks) Free(p);
  const std::string dirty = ArenaKey(arena, "pdirty");
  size_t pages = 0;
  ASSERT_OK(RefreshJemallocStats(*je_));
  ASSERT_OK(MallctlRead(*je_, dirty, &pages));
  EXPECT_GT(pages, 0u);  // freed, not yet returned
  ReleaseArena(*je_, arena, false);
  ASSERT_OK(RefreshJemallocStats(*je_));
  ASSERT_OK(MallctlRead(*je_, dirty, &pages));
  EXPECT_EQ(pages, 0u);
}

TEST_F(JemallocArenasLinkedTest, StatsSumOverArenasAsOfTheLastRefresh) {
  const unsigned a = Acquire(false);
  const unsigned b = Acquire(false);
  ASSERT_OK(RefreshJemallocStats(*je_));
  const JemallocArenaStats a0 = Stats({a});
  const JemallocArenaStats b0 = Stats({b});
  const JemallocArenaStats ab0 = Stats({a, b});
  EXPECT_EQ(ab0.allocated, a0.allocated + b0.allocated);
  EXPECT_EQ(ab0.allocations, a0.allocations + b0.allocations);

  std::vector<void*> blocks;
  uint64_t usable = 0;
  for (int i = 0; i < 10; ++i) blocks.push_back(AllocateIn(a, 4000));
  for (int i = 0; i < 3; ++i) blocks.push_back(AllocateIn(b, 100000));
  for (void* p : blocks) usable += je_->sallocx(p, 0);
  ASSERT_OK(RefreshJemallocStats(*je_));
  const JemallocArenaStats a1 = Stats({a});
  const JemallocArenaStats b1 = Stats({b});
  const JemallocArenaStats ab1 = Stats({a, b});
  EXPECT_EQ(a1.allocations - a0.allocations, 10u);
  EXPECT_EQ(b1.allocations - b0.allocations, 3u);
  EXPECT_EQ(ab1.allocations - ab0.allocations, 13u);
  EXPECT_EQ(ab1.allocated - ab0.allocated, usable);
  EXPECT_GE(ab1.active, ab1.allocated);
  EXPECT_GE(ab1.mapped, ab1.active);

  // Not refreshed: the figures stay as they were.
  void* more = AllocateIn(a, 4000);
  const JemallocArenaStats a2 = Stats({a});
  EXPECT_EQ(a2.allocations, a1.allocations);
  EXPECT_EQ(a2.allocated, a1.allocated);
  Free(more);
  for (void* p : blocks) Free(p);
  ASSERT_OK(RefreshJemallocStats(*je_));
  const JemallocArenaStats ab3 = Stats({a, b});
  EXPECT_EQ(ab3.allocated, ab0.allocated);
  EXPECT_EQ(ab3.deallocations - ab0.deallocations, 14u);
}

TEST_F(JemallocArenasLinkedTest, StatsOfAnArenaThatDoesNotExistAreRefused) {
  JemallocArenaStats stats;
  const Status s = ReadArenaStats(*je_, {1000000}, &stats);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("\"stats.arenas.1000000.small.allocated\""),
            std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace rocksdb_cuckoo
