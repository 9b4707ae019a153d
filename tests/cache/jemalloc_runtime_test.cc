// Finding the process's jemalloc at run time and reading its controls: this
// binary is linked against jemalloc (tests/CMakeLists.txt; the library never
// is). MallctlRead and RefreshJemallocStats are also checked against a fake
// mallctl, which can fail on demand.
#include "cache/jemalloc_runtime.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tests/support/fake_mallctl.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::Status;

using testing::FakeMallctl;

TEST(JemallocRuntimeTest, MallctlReadReadsAValueOfItsType) {
  FakeMallctl fake;
  fake.Set("stats.allocated", 0x1122334455667788ull);
  fake.Set("arenas.narenas", 5);
  const JemallocApi api = fake.Api();
  uint64_t wide = 0;
  ASSERT_OK(MallctlRead(api, "stats.allocated", &wide));
  EXPECT_EQ(wide, 0x1122334455667788ull);
  unsigned narrow = 0;
  ASSERT_OK(MallctlRead(api, "arenas.narenas", &narrow));
  EXPECT_EQ(narrow, 5u);
  ASSERT_EQ(fake.calls().size(), 2u);
  EXPECT_EQ(fake.calls()[0].name, "stats.allocated");
  EXPECT_EQ(fake.calls()[0].old_size, sizeof(uint64_t));
  EXPECT_FALSE(fake.calls()[0].writes);
  EXPECT_EQ(fake.calls()[1].name, "arenas.narenas");
  EXPECT_EQ(fake.calls()[1].old_size, sizeof(unsigned));
}

TEST(JemallocRuntimeTest, MallctlReadFailureIsNotSupportedNamingIt) {
  FakeMallctl fake;
  fake.Fail("stats.resident", EFAULT);
  uint64_t value = 7;
  Status s = MallctlRead(fake.Api(), "stats.resident", &value);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("mallctl(\"stats.resident\") failed with "
                              "error " +
                              std::to_string(EFAULT)),
            std::string::npos)
      << s.ToString();
  s = MallctlRead(fake.Api(), "stats.no_such_control", &value);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("\"stats.no_such_control\""), std::string::npos)
      << s.ToString();
}

TEST(JemallocRuntimeTest, MallctlReadOfTheWrongSizeIsNotSupported) {
  // mallctl returns 0 but says through *oldlenp that the control is 4 bytes
  // wide, where 8 were read.
  FakeMallctl fake;
  fake.Set("arenas.narenas", 5);
  fake.ReportSize(4);
  uint64_t value = 0;
  const Status s = MallctlRead(fake.Api(), "arenas.narenas", &value);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("mallctl(\"arenas.narenas\") failed with "
                              "error 0"),
            std::string::npos)
      << s.ToString();
}

TEST(JemallocRuntimeTest, RefreshWritesTheEpoch) {
  FakeMallctl fake;
  fake.Set("epoch", 1);
  ASSERT_OK(RefreshJemallocStats(fake.Api()));
  ASSERT_EQ(fake.calls().size(), 1u);
  EXPECT_EQ(fake.calls()[0].name, "epoch");
  EXPECT_TRUE(fake.calls()[0].writes);
  EXPECT_EQ(fake.calls()[0].new_size, sizeof(uint64_t));

  fake.Fail("epoch", EFAULT);
  const Status s = RefreshJemallocStats(fake.Api());
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("\"epoch\""), std::string::npos) << s.ToString();
}

TEST(JemallocRuntimeTest, MallocxFlagsAsJemallocEncodesThem) {
  EXPECT_EQ(kMallocxTcacheNone, 1 << 8);
  EXPECT_EQ(MallocxArena(0), 1 << 20);
  EXPECT_EQ(MallocxArena(7), 8 << 20);
  static_assert(MallocxArena(1) == 2 << 20, "usable in constant expressions");
}

class JemallocRuntimeLinkedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    je_ = FindJemalloc(&why);
    if (je_ == nullptr) GTEST_SKIP() << "built without libjemalloc: " << why;
  }
  const JemallocApi* je_ = nullptr;
};

TEST_F(JemallocRuntimeLinkedTest, FindsEveryEntryPointOnce) {
  EXPECT_NE(je_->mallctl, nullptr);
  EXPECT_NE(je_->mallocx, nullptr);
  EXPECT_NE(je_->dallocx, nullptr);
  EXPECT_NE(je_->sallocx, nullptr);
  // Found once: the same answer, and `why` left alone, every time.
  std::string why = "untouched";
  EXPECT_EQ(FindJemalloc(&why), je_);
  EXPECT_EQ(why, "untouched");
  EXPECT_EQ(FindJemalloc(nullptr), je_);
}

TEST_F(JemallocRuntimeLinkedTest, OwnsMallocUnlessASanitizerKeepsIt) {
#ifdef CUCKOO_SANITIZED
  // The sanitizer's malloc serves the heap; jemalloc only the *allocx calls.
  EXPECT_FALSE(je_->owns_malloc);
#else
  ASSERT_TRUE(je_->owns_malloc);
  // jemalloc knows a block malloc returned.
  void* p = malloc(1000);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(je_->sallocx(p, 0), 1000u);
  free(p);
#endif
}

TEST_F(JemallocRuntimeLinkedTest, MallctlReadOfJemallocsOwnControls) {
  size_t page = 0;
  ASSERT_OK(MallctlRead(*je_, "arenas.page", &page));
  EXPECT_GE(page, 4096u);
  EXPECT_EQ(page & (page - 1), 0u);
  unsigned narenas = 0;
  ASSERT_OK(MallctlRead(*je_, "arenas.narenas", &narenas));
  EXPECT_GE(narenas, 1u);

  uint64_t wrong_size = 0;
  Status s = MallctlRead(*je_, "arenas.narenas", &wrong_size);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("error " + std::to_string(EINVAL)),
            std::string::npos)
      << s.ToString();
  s = MallctlRead(*je_, "no.such.control", &page);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("mallctl(\"no.such.control\") failed with "
                              "error " +
                              std::to_string(ENOENT)),
            std::string::npos)
      << s.ToString();
}

// jemalloc's statistics stay as of the last refresh.
TEST_F(JemallocRuntimeLinkedTest, RefreshMakesTheStatisticsCurrent) {
  ASSERT_OK(RefreshJemallocStats(*je_));
  size_t before = 0;
  ASSERT_OK(MallctlRead(*je_, "stats.allocated", &before));
  constexpr size_t kBytes = 8 << 20;
  void* block = je_->mallocx(kBytes, kMallocxTcacheNone);
  ASSERT_NE(block, nullptr);
  size_t stale = 0;
  ASSERT_OK(MallctlRead(*je_, "stats.allocated", &stale));
  EXPECT_EQ(stale, before);
  ASSERT_OK(RefreshJemallocStats(*je_));
  size_t current = 0;
  ASSERT_OK(MallctlRead(*je_, "stats.allocated", &current));
  EXPECT_GE(current, before + kBytes);
  je_->dallocx(block, kMallocxTcacheNone);
}

TEST_F(JemallocRuntimeLinkedTest, MallocxArenaPlacesAllocationsInTheArena) {
  unsigned arena = 0;
  size_t size = sizeof(arena);
  ASSERT_EQ(je_->mallctl("arenas.create", &arena, &size, nullptr, 0), 0);
  for (size_t bytes : {size_t{16}, size_t{5000}, size_t{1} << 20}) {
    void* p = je_->mallocx(bytes, MallocxArena(arena) | kMallocxTcacheNone);
    ASSERT_NE(p, nullptr);
    EXPECT_GE(je_->sallocx(p, 0), bytes);
    unsigned found = ~0u;
    size_t found_size = sizeof(found);
    ASSERT_EQ(je_->mallctl("arenas.lookup", &found, &found_size, &p, sizeof(p)),
              0);
    EXPECT_EQ(found, arena) << bytes;
    je_->dallocx(p, kMallocxTcacheNone);
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
