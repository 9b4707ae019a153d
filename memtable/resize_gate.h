// Lets one thread replace a shared structure (the hash index's slot array)
// while others read and write it, with no shared cache line on the fast
// paths: every counter below is striped per CPU.
//
//  - Readers never wait. They register in one of two reader counts (chosen
//    by an epoch's parity) before loading the structure's pointer and leave
//    after their last access; WaitForReaders() is a grace period after which
//    no reader still holds a pointer loaded before it started, so the old
//    structure can be freed.
//  - Writers register before loading the pointer and wait only while a
//    replacement is in progress, lending a hand meanwhile if the replacing
//    thread shares its work. BeginExclusive() turns new writers away and
//    waits for those inside to leave, so the replacement copies a quiescent
//    structure.
//
// Every registration is a read-modify-write on the caller's CPU stripe,
// followed by a sequentially consistent load, and the replacing thread's
// scans are sequentially consistent too: either it sees the registration, or
// the registered thread sees its new pointer (or its exclusive flag).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

class ResizeGate {
 public:
  // Where a registration was counted; hand it back on leaving.
  struct Ticket {
    uint32_t stripe;
    uint32_t counter;
  };

  explicit ResizeGate(const CpuTopology& topology = CpuTopology::System());

  // `cpu`: the operation's CPU (see StripedCounters::IndexFor). Never
  // waits. Load the structure's pointer after it, and Exit after the last
  // access through it.
  Ticket EnterRead(int cpu);
  // Waits while a replacement is in progress, calling help() meanwhile
  // (with no registration held, so the replacement can go on).
  // REQUIRES: the caller holds no writer registration here (BeginExclusive
  // would wait for it while it waits for EndExclusive).
  template <class Help>
  Ticket EnterWrite(int cpu, Help help) {
    Ticket ticket;
    while (!TryEnterWrite(cpu, &ticket)) {
      SpinUntil([&] {
        if (!exclusive_.load(std::memory_order_acquire)) return true;
        help();
        return false;
      });
    }
    return ticket;
  }
  Ticket EnterWrite(int cpu) {
    return EnterWrite(cpu, [] {});
  }
  // Leaves, as a reader or a writer; each ticket once.
  void Exit(Ticket ticket) {
    counters_.At(ticket.stripe)[ticket.counter].fetch_sub(
        1, std::memory_order_release);
  }

  // For the single replacing thread (callers serialize with their own
  // mutex), which must not itself be registered as a writer. In order:
  // BeginExclusive, publish the new structure, EndExclusive, then
  // WaitForReaders before freeing the old one.
  void BeginExclusive();
  void EndExclusive();
  // Returns once every reader that registered before the call has left.
  // REQUIRES: the caller holds no reader registration here (it would wait
  // for itself).
  void WaitForReaders();

  size_t MemoryUsage() const { return counters_.MemoryUsage(); }

 private:
  enum Counter : size_t { kReaders0, kReaders1, kWriters, kNumCounters };

  // Waits are rare (one per index doubling) and short (a reader's lookup,
  // a writer's single insert, a doubling shared by the waiting writers), so
  // a few spins then yielding is enough.
  template <class Done>
  static void SpinUntil(Done done) {
    for (int spins = 0; !done(); ++spins) {
      if (spins >= 64) std::this_thread::yield();
    }
  }
  // Registers a writer unless a replacement is in progress.
  bool TryEnterWrite(int cpu, Ticket* ticket);
  // Spins, then yields, until the counter reads zero on every stripe.
  // REQUIRES: the caller holds no registration counted in `counter`.
  void WaitForZero(size_t counter) const;

  StripedCounters counters_;
  std::atomic<uint64_t> epoch_{0};
  std::atomic<bool> exclusive_{false};
};

// Holds a registration (EnterRead's or EnterWrite's ticket) until the end
// of a scope.
class GateScope {
 public:
  GateScope(ResizeGate* gate, ResizeGate::Ticket ticket)
      : gate_(gate), ticket_(ticket) {}
  ~GateScope() { gate_->Exit(ticket_); }
  GateScope(const GateScope&) = delete;
  GateScope& operator=(const GateScope&) = delete;

 private:
  ResizeGate* gate_;
  ResizeGate::Ticket ticket_;
};

}  // namespace rocksdb_cuckoo
