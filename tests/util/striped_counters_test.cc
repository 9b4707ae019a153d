// StripedCounters: layout (each stripe on its own cache lines), stripe counts
// per mode, and sums.
#include "util/striped_counters.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

namespace rocksdb_cuckoo {
namespace {

TEST(StripedCountersTest, StripesSitOnTheirOwnCacheLines) {
  const StripedCounters counters(3, StripeMode::kCore);
  ASSERT_EQ(counters.num_stripes(), CpuTopology::System().num_cpus());
  std::set<uintptr_t> lines;
  for (size_t s = 0; s < counters.num_stripes(); ++s) {
    const auto first = reinterpret_cast<uintptr_t>(&counters.At(s)[0]);
    const auto last = reinterpret_cast<uintptr_t>(&counters.At(s)[2]);
    EXPECT_EQ(first % StripedCounters::kCacheLine, 0u);
    EXPECT_EQ(first / StripedCounters::kCacheLine,
              last / StripedCounters::kCacheLine);
    EXPECT_TRUE(lines.insert(first / StripedCounters::kCacheLine).second);
  }
  EXPECT_EQ(counters.MemoryUsage(),
            counters.num_stripes() * StripedCounters::kCacheLine);
}

TEST(StripedCountersTest, WideStripesSpanWholeLines) {
  // 10 counters need two lines per stripe; stripes still never share one.
  const StripedCounters counters(10, StripeMode::kCore);
  if (counters.num_stripes() > 1) {
    const auto end_of_first = reinterpret_cast<uintptr_t>(&counters.At(0)[9]);
    const auto second = reinterpret_cast<uintptr_t>(&counters.At(1)[0]);
    EXPECT_LT(end_of_first / StripedCounters::kCacheLine,
              second / StripedCounters::kCacheLine);
  }
  EXPECT_EQ(counters.MemoryUsage(),
            counters.num_stripes() * 2 * StripedCounters::kCacheLine);
}

TEST(StripedCountersTest, ModesGiveTheirStripeCounts) {
  EXPECT_EQ(StripedCounters(1, StripeMode::kNone).num_stripes(), 1u);
  const CpuTopology& system = CpuTopology::System();
  EXPECT_EQ(StripedCounters(1, StripeMode::kLlc).num_stripes(),
            system.num_llcs() == 0 ? 1u : system.num_llcs());
  EXPECT_EQ(StripedCounters(1, StripeMode::kCore).mode(), StripeMode::kCore);
  // auto reports the mode it chose, with that mode's stripes.
  const StripedCounters automatic(1, StripeMode::kAuto);
  EXPECT_EQ(automatic.mode(), system.Resolve(StripeMode::kAuto));
  EXPECT_EQ(automatic.num_stripes(),
            StripedCounters(1, automatic.mode()).num_stripes());
}

TEST(StripedCountersTest, SumsAddsFromEveryStripe) {
  StripedCounters counters(2, StripeMode::kCore);
  for (size_t s = 0; s < counters.num_stripes(); ++s) {
    counters.At(s).Add(0, s + 1);
  }
  counters.Add(1, 5);
  counters.Local().Add(1, 2);
  const uint64_t n = counters.num_stripes();
  EXPECT_EQ(counters.Sum(0), n * (n + 1) / 2);
  EXPECT_EQ(counters.Sum(1), 7u);
}

TEST(StripedCountersTest, EveryCpuHasAStripeAndOneCpuAlwaysTheSame) {
  for (StripeMode mode : {StripeMode::kCore, StripeMode::kLlc,
                          StripeMode::kNone, StripeMode::kAuto}) {
    StripedCounters counters(1, mode);
    std::set<size_t> used;
    for (int cpu = 0; cpu < 4096; ++cpu) {
      const size_t index = counters.IndexFor(cpu);
      ASSERT_LT(index, counters.num_stripes()) << "cpu " << cpu;
      EXPECT_EQ(index, counters.IndexFor(cpu));
      used.insert(index);
    }
    // Every stripe serves some CPU.
    EXPECT_EQ(used.size(), counters.num_stripes());
    // For() and IndexFor() name the same stripe.
    counters.For(3).Add(0, 1);
    EXPECT_EQ(counters.At(counters.IndexFor(3))[0].load(), 1u);
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
