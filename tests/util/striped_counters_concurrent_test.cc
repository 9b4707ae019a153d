// StripedCounters from many threads in every mode: no update is lost, and a
// reader summing meanwhile never sees a counter go backwards.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "util/striped_counters.h"

namespace rocksdb_cuckoo {
namespace {

#ifdef CUCKOO_SANITIZED
constexpr uint64_t kAddsPerThread = 20000;
#else
constexpr uint64_t kAddsPerThread = 200000;
#endif

class StripedCountersConcurrentTest
    : public ::testing::TestWithParam<StripeMode> {};

TEST_P(StripedCountersConcurrentTest, NoUpdateIsLost) {
  constexpr int kThreads = 6;
  StripedCounters counters(2, GetParam());
  std::atomic<int> running{kThreads};
  std::atomic<bool> went_backwards{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (uint64_t i = 0; i < kAddsPerThread; ++i) {
        const StripedCounters::Stripe stripe = counters.Local();
        stripe.Add(0, 1);
        stripe.Add(1, 3);
      }
      running.fetch_sub(1);
    });
  }
  threads.emplace_back([&] {
    uint64_t last = 0;
    while (running.load() > 0) {
      const uint64_t now = counters.Sum(0);
      if (now < last) went_backwards = true;
      last = now;
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(went_backwards.load());
  EXPECT_EQ(counters.Sum(0), kThreads * kAddsPerThread);
  EXPECT_EQ(counters.Sum(1), 3 * kThreads * kAddsPerThread);
}

INSTANTIATE_TEST_SUITE_P(Modes, StripedCountersConcurrentTest,
                         ::testing::Values(StripeMode::kLlc, StripeMode::kCore,
                                           StripeMode::kNone));

}  // namespace
}  // namespace rocksdb_cuckoo
