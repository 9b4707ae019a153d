// One unit of work of the TaskExecutor, the state machine that every thread
// touching it agrees on, and TaskHandle, the caller's reference to it.
//
// States. A task is in one state at a time, held in one atomic word with
// its wake time and a generation (wake << 16 | generation << 3 | state).
// Every transition, one per line:
//
//   from            to              made by
//   (new)           kReady          Add (or Post) without a delay
//   (new)           kDelayed        Add with a delay
//   (new)           kCancelled      Add after Shutdown
//   kDelayed        kReady          the timer thread, when the task is due
//   kDelayed        kDelayed        Snooze (a new wake time)
//   kDelayed        kCancelled      Cancel, CancelTagged, Shutdown
//   kReady          kRunning        a worker, taking it from the ready queue
//   kReady          kDelayed        Snooze
//   kReady          kCancelled      Cancel, CancelTagged
//   kRunning        kDone           the worker, when the run ends
//   kRunning        kRunningRerun   Snooze during the run
//   kRunningRerun   kRunning        Cancel: the run goes on, the rerun is off
//   kRunningRerun   kDelayed        the worker, when the run ends
//
// kDone and kCancelled are final. Every transition is one compare-and-swap
// on the word, so exactly one thread wins each race (a worker starting a
// task against Cancel, say), and every transition but one bumps the
// generation, so a queue entry that recorded an older generation is known to
// be stale without being searched for and removed: Cancel and Snooze never
// take a queue's lock. The exception is a Snooze that moves a delayed task
// later: it changes only the wake time, keeping the generation, so the
// timer's entry stays live, surfaces at the old time, finds the new one in
// the word and files itself again. The timer reads the wake time from the
// same word it moves to kReady, so a task never runs before the latest wake
// time, and a task snoozed later again and again costs the timer nothing
// until its first time comes.
//
// Memory ordering: the executor's whole protocol, which the other files
// refer to by number. Everything not listed is relaxed (statistics,
// counters, and ready_tick, which an inbox push publishes).
//
//   1. Re-linking a task into an inbox. A producer (ExecutorPool::Enqueue,
//      DelayedTaskQueue::Watch) changes the task's word, then exchanges the
//      inbox flag to true (seq_cst) and links the task only if the flag was
//      false. The consumer (FileInbox) takes the whole inbox, reads each
//      link, clears each flag (release), then a seq_cst fence, then reads
//      each word. So either the producer links the task again, or the
//      consumer reads the word the producer wrote: no state change is lost
//      while a task leaves an inbox.
//   2. Waking an idle worker. A producer pushes to the pool's inbox
//      (seq_cst) and then reads the spinning flag and the idle count
//      (seq_cst); a worker stops spinning (seq_cst store), increments the
//      idle count (seq_cst) and then reads whether the inbox is empty
//      (seq_cst). At least one sees the other: the producer wakes a worker
//      (or leaves the task to one still spinning), or the worker takes the
//      task instead of sleeping. A thread other than a worker that empties
//      the inbox (under the pool's mutex, which the worker released after
//      counting itself idle) may take that task from under the worker's
//      look, so it wakes an idle worker itself when a task could start.
//   3. Sleeping. ThreadParker's Unpark publishes "notified" with a release
//      exchange that Park's acquire compare-and-swap reads: an Unpark that
//      comes first makes the next Park return at once.
//   4. Waiting for a run to end. SnoozeAndWait counts itself a waiter
//      (seq_cst) and then reads the word (seq_cst); AfterRun moves the word
//      on (seq_cst compare-and-swap, Transition below) and then reads the
//      waiter count (seq_cst), notifying under the waiters' mutex. So the
//      waiter sees the run ended, or is notified.
//   5. Stopping the timer. Stop sets `stopped` (seq_cst) and then empties
//      the inbox; a push reads `stopped` (seq_cst) after pushing. Whoever
//      comes second cancels the task, and the word's compare-and-swap makes
//      that happen exactly once.
//   6. Lifetime. The last of a task's references (refs, acq_rel) hands it to
//      TaskRecycler, after every other holder's reads and writes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "util/executor/wake_time.h"

namespace rocksdb_cuckoo {

// Order among the ready tasks of one pool: higher first.
enum class TaskPriority : uint8_t { kLow = 0, kNormal = 1, kHigh = 2 };
constexpr int kNumTaskPriorities = 3;

enum class TaskState : uint8_t {
  kDelayed,       // waiting in the timer queue for its wake time
  kReady,         // in its pool's ready queue
  kRunning,       // a worker runs it
  kRunningRerun,  // running, and snoozed meanwhile: runs again when due
  kDone,          // ran, not to run again
  kCancelled,     // will never run (again); on_cancel was called
};

constexpr int kStateBits = 3;
constexpr int kGenerationBits = 13;
constexpr int kWakeShift = kStateBits + kGenerationBits;
static_assert(kWakeShift + kWakeBits == 64, "the word is full");
constexpr uint64_t kTurnMask = (uint64_t{1} << kWakeShift) - 1;

// A new task's word: generation 0.
inline constexpr uint64_t TaskWord(TaskState state, uint64_t wake = 0) {
  return wake << kWakeShift | static_cast<uint64_t>(state);
}
inline constexpr TaskState StateOf(uint64_t word) {
  return static_cast<TaskState>(word & ((1u << kStateBits) - 1));
}
// The wake time of a kDelayed or kRunningRerun task (see wake_time.h).
inline constexpr uint64_t WakeOf(uint64_t word) { return word >> kWakeShift; }
// The word after a transition to `state` due at `wake`: the next generation
// (which wraps; an entry that old is long gone, and a wrong match would only
// repeat the decision the current word dictates).
inline constexpr uint64_t NextWord(uint64_t word, TaskState state,
                                   uint64_t wake) {
  const uint64_t generation =
      ((word >> kStateBits) + 1) & ((uint64_t{1} << kGenerationBits) - 1);
  return wake << kWakeShift | generation << kStateBits |
         static_cast<uint64_t>(state);
}
inline constexpr uint64_t NextWord(uint64_t word, TaskState state) {
  return NextWord(word, state, WakeOf(word));
}
// The same turn with a different wake time.
inline constexpr uint64_t WithWake(uint64_t word, uint64_t wake) {
  return (word & kTurnMask) | wake << kWakeShift;
}
// Whether no transition separates the two words (a later wake time may).
inline constexpr bool SameTurn(uint64_t a, uint64_t b) {
  return ((a ^ b) & kTurnMask) == 0;
}

// What every thread touches (the word, the references, the inbox and
// free-list links) comes first and together: a timer or worker that files,
// drops or frees a task reads few lines written on another core. (Aligning
// the task to a cache line as well makes every task larger, and was
// slower.)
struct ExecutorTask {
  std::atomic<uint64_t> word{0};
  // One per TaskHandle, per queue entry and inbox link, and for the worker
  // running it; the task is deleted when the last one goes.
  std::atomic<uint32_t> refs{0};
  // Links of the pools' and the timer's lock-free inboxes. The flags say the
  // task is linked there already, so a task that is snoozed and becomes
  // ready again before an inbox was emptied is not linked twice.
  std::atomic<bool> in_ready_inbox{false};
  std::atomic<bool> in_timer_inbox{false};
  // Made by Post: no handle ever refers to it, so only cancel-by-tag and
  // shutdown can touch it besides its queues, and in the pool's ready queue
  // they do so under the pool's mutex. So a pool runs and frees such a task
  // (what AsyncExecutorEnv::Schedule makes) without any compare-and-swap on
  // its word. (A task made by Add may hold the queue's reference alone too,
  // once its handle is gone, but its word still decides: it may have been
  // cancelled.)
  bool posted = false;
  TaskPriority priority = TaskPriority::kNormal;
  int pool = 0;
  ExecutorTask* ready_next = nullptr;
  ExecutorTask* timer_next = nullptr;
  // Link of TaskRecycler's free lists.
  ExecutorTask* free_next = nullptr;
  // When the task last became ready, in CycleClock ticks (wait-time
  // statistics).
  std::atomic<uint64_t> ready_tick{0};

  // Fixed when the task is created.
  std::function<void()> run;
  std::function<void()> on_cancel;
  const void* tag = nullptr;
  const void* client = nullptr;

  // Place in the pool's FairReadyQueue, guarded by the pool's mutex: the
  // word the task was queued under (stale once the task's word moves on).
  bool in_ready_queue = false;
  uint64_t queued_word = 0;

  void Ref() { refs.fetch_add(1, std::memory_order_relaxed); }
  // The last reference hands the task to TaskRecycler.
  void Unref();
  // One compare-and-swap from `expected` to the next word in `state`.
  bool Transition(uint64_t expected, TaskState state) {
    return Replace(expected, NextWord(expected, state));
  }
  // Transition to `state` from any word of the turn `seen` belongs to
  // (delayed tasks' wake times move within a turn): false once the turn is
  // over.
  bool TransitionFromTurn(uint64_t seen, TaskState state) {
    uint64_t current = word.load(std::memory_order_acquire);
    while (SameTurn(current, seen)) {
      if (Replace(current, NextWord(current, state))) return true;
      current = word.load(std::memory_order_acquire);
    }
    return false;
  }
  bool Replace(uint64_t expected, uint64_t desired) {
    // Sequentially consistent: handshake 4 above.
    return word.compare_exchange_strong(expected, desired,
                                        std::memory_order_seq_cst);
  }
};

// A caller's reference to a task added to a TaskExecutor: keeps the task's
// memory alive (not the task pending) and is what Cancel and Snooze take.
// Copyable; a default-constructed handle refers to nothing and may only be
// assigned to.
class TaskHandle {
 public:
  TaskHandle() = default;
  TaskHandle(const TaskHandle& other) : task_(other.task_) {
    if (task_ != nullptr) task_->Ref();
  }
  TaskHandle(TaskHandle&& other) noexcept : task_(other.task_) {
    other.task_ = nullptr;
  }
  TaskHandle& operator=(TaskHandle other) noexcept {
    std::swap(task_, other.task_);
    return *this;
  }
  ~TaskHandle() {
    if (task_ != nullptr) task_->Unref();
  }

  // A snapshot; it may change the moment after it is read.
  TaskState state() const {
    return StateOf(task_->word.load(std::memory_order_acquire));
  }

 private:
  friend class TaskExecutor;
  // Takes over one reference the caller already holds.
  explicit TaskHandle(ExecutorTask* task) : task_(task) {}
  ExecutorTask* task_ = nullptr;
};

}  // namespace rocksdb_cuckoo
