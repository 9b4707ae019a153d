// ResizeGate: readers never wait, and a grace period waits for the readers
// inside; writers wait only while a replacement holds the gate, and the
// replacement waits for the writers inside. A waiting writer is asked to
// help with the replacement.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "memtable/resize_gate.h"

namespace rocksdb_cuckoo {
namespace {

using namespace std::chrono_literals;

TEST(ResizeGateTest, AGracePeriodWaitsForTheReadersInside) {
  ResizeGate gate;
  const ResizeGate::Ticket ticket = gate.EnterRead(/*cpu=*/0);
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    gate.WaitForReaders();
    done = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(done.load());
  gate.Exit(ticket);
  waiter.join();
  EXPECT_TRUE(done.load());
}

TEST(ResizeGateTest, AGracePeriodWithoutReadersEndsAtOnce) {
  ResizeGate gate;
  for (int cpu = 0; cpu < 64; ++cpu) gate.Exit(gate.EnterRead(cpu));
  const auto start = std::chrono::steady_clock::now();
  gate.WaitForReaders();
  gate.WaitForReaders();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(ResizeGateTest, TheReplacementWaitsForWritersAndHoldsNewOnes) {
  ResizeGate gate;
  const ResizeGate::Ticket inside = gate.EnterWrite(/*cpu=*/0);
  std::atomic<bool> exclusive{false};
  std::thread replacer([&] {
    gate.BeginExclusive();
    exclusive = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(exclusive.load()) << "replaced while a writer was inside";
  gate.Exit(inside);
  replacer.join();
  ASSERT_TRUE(exclusive.load());

  // Readers still get in at once; a new writer waits for the end.
  gate.Exit(gate.EnterRead(/*cpu=*/1));
  std::atomic<bool> entered{false};
  std::thread writer([&] {
    const ResizeGate::Ticket ticket = gate.EnterWrite(/*cpu=*/1);
    entered = true;
    gate.Exit(ticket);
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(entered.load()) << "a writer entered during the replacement";
  gate.EndExclusive();
  writer.join();
  EXPECT_TRUE(entered.load());
}

TEST(ResizeGateTest, AWaitingWriterHelpsUntilTheReplacementEnds) {
  ResizeGate gate;
  gate.BeginExclusive();
  std::atomic<int> helps{0};
  std::atomic<bool> entered{false};
  std::thread writer([&] {
    const ResizeGate::Ticket ticket =
        gate.EnterWrite(/*cpu=*/1, [&] { helps.fetch_add(1); });
    entered = true;
    gate.Exit(ticket);
  });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (helps.load() < 100 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_GE(helps.load(), 100) << "the waiting writer was not asked to help";
  EXPECT_FALSE(entered.load()) << "a writer entered during the replacement";
  gate.EndExclusive();
  writer.join();
  EXPECT_TRUE(entered.load());
  // Outside a replacement, entering asks for no help.
  const int before = helps.load();
  gate.Exit(gate.EnterWrite(/*cpu=*/1, [&] { helps.fetch_add(1); }));
  EXPECT_EQ(helps.load(), before);
}

TEST(ResizeGateTest, ManyThreadsNeverOverlapAReplacement) {
  // Writers check that no replacement is in progress while they are inside;
  // the replacer checks that no writer is inside while it replaces.
  ResizeGate gate;
  std::atomic<int> writers_inside{0};
  std::atomic<bool> replacing{false};
  std::atomic<bool> stop{false};
  std::atomic<int> violations{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&, t] {
      while (!stop.load()) {
        const ResizeGate::Ticket ticket = gate.EnterWrite(t);
        writers_inside.fetch_add(1);
        if (replacing.load()) violations.fetch_add(1);
        writers_inside.fetch_sub(1);
        gate.Exit(ticket);
      }
    });
  }
  for (int round = 0; round < 2000; ++round) {
    gate.BeginExclusive();
    replacing = true;
    if (writers_inside.load() != 0) violations.fetch_add(1);
    replacing = false;
    gate.EndExclusive();
  }
  stop = true;
  for (std::thread& w : writers) w.join();
  EXPECT_EQ(violations.load(), 0);
}

}  // namespace
}  // namespace rocksdb_cuckoo
