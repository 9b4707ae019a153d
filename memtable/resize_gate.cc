#include "memtable/resize_gate.h"

namespace rocksdb_cuckoo {

ResizeGate::ResizeGate(const CpuTopology& topology)
    : counters_(kNumCounters, StripeMode::kCore, topology) {}

ResizeGate::Ticket ResizeGate::EnterRead(int cpu) {
  const size_t stripe = counters_.IndexFor(cpu);
  const size_t counter =
      kReaders0 + (epoch_.load(std::memory_order_relaxed) & 1);
  counters_.At(stripe)[counter].fetch_add(1, std::memory_order_seq_cst);
  return {static_cast<uint32_t>(stripe), static_cast<uint32_t>(counter)};
}

bool ResizeGate::TryEnterWrite(int cpu, Ticket* ticket) {
  const size_t stripe = counters_.IndexFor(cpu);
  std::atomic<uint64_t>& writers = counters_.At(stripe)[kWriters];
  writers.fetch_add(1, std::memory_order_seq_cst);
  if (exclusive_.load(std::memory_order_seq_cst)) {
    writers.fetch_sub(1, std::memory_order_release);
    return false;
  }
  *ticket = {static_cast<uint32_t>(stripe), kWriters};
  return true;
}

void ResizeGate::BeginExclusive() {
  exclusive_.store(true, std::memory_order_seq_cst);
  WaitForZero(kWriters);
}

void ResizeGate::EndExclusive() {
  exclusive_.store(false, std::memory_order_release);
}

void ResizeGate::WaitForReaders() {
  // A reader may have read the epoch before a flip and registered after it,
  // under the old parity; one flip-and-drain would miss it if it came from
  // an earlier grace period. Draining both parities, each right after a flip
  // that sends newcomers to the other one, catches every early reader while
  // newcomers cannot keep the drain waiting forever.
  for (int round = 0; round < 2; ++round) {
    const uint64_t old_epoch = epoch_.fetch_add(1, std::memory_order_seq_cst);
    WaitForZero(kReaders0 + (old_epoch & 1));
  }
}

void ResizeGate::WaitForZero(size_t counter) const {
  for (size_t s = 0; s < counters_.num_stripes(); ++s) {
    std::atomic<uint64_t>& count = counters_.At(s)[counter];
    SpinUntil([&count] { return count.load(std::memory_order_seq_cst) == 0; });
  }
}

}  // namespace rocksdb_cuckoo
