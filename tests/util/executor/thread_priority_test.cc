// Lowering a thread's priorities changes that thread only, as the kernel
// reports it back: the idle I/O class, SCHED_IDLE, nice 19.
#include "util/executor/thread_priority.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::CpuPriority;

#ifdef __linux__
int IoClassOfThisThread() {
  constexpr int kWhoProcess = 1;  // with id 0: the calling thread
  const long prio = syscall(SYS_ioprio_get, kWhoProcess, 0);
  return prio < 0 ? -1 : static_cast<int>(prio >> 13);
}

int NiceOfThisThread() {
  return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

// Runs `body` on a thread of its own, so the test's thread keeps its
// priorities.
template <typename Body>
void OnNewThread(Body body) {
  std::thread t(body);
  t.join();
}

TEST(ThreadPriorityTest, IoPriorityBecomesIdleForThisThreadOnly) {
  const int before = IoClassOfThisThread();
  if (before < 0) GTEST_SKIP() << "ioprio_get not available here";
  OnNewThread([] {
    LowerCurrentThreadIOPriority();
    EXPECT_EQ(IoClassOfThisThread(), 3);  // IOPRIO_CLASS_IDLE
  });
  EXPECT_EQ(IoClassOfThisThread(), before);
}

TEST(ThreadPriorityTest, CpuPrioritiesAsTheKernelReportsThem) {
  const int nice_before = NiceOfThisThread();
  OnNewThread([] {
    SetCurrentThreadCpuPriority(CpuPriority::kLow);
    EXPECT_EQ(NiceOfThisThread(), 19);
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
    SetCurrentThreadCpuPriority(CpuPriority::kIdle);
    EXPECT_EQ(sched_getscheduler(0), SCHED_IDLE);
  });
  EXPECT_EQ(NiceOfThisThread(), nice_before);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
}
#endif

}  // namespace
}  // namespace rocksdb_cuckoo
