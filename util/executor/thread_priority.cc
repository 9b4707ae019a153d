#include "util/executor/thread_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::CpuPriority;

void LowerCurrentThreadIOPriority() {
#ifdef __linux__
  // linux/ioprio.h is not in every libc's headers; these are its values.
  constexpr int kIoprioWhoProcess = 1;  // with id 0: the calling thread
  constexpr int kIoprioClassIdle = 3;
  constexpr int kIoprioClassShift = 13;
  syscall(SYS_ioprio_set, kIoprioWhoProcess, 0,
          kIoprioClassIdle << kIoprioClassShift);
#endif
}

void SetCurrentThreadCpuPriority(CpuPriority priority) {
#ifdef __linux__
  // On Linux, setpriority on a thread id changes only that thread.
  const id_t tid = static_cast<id_t>(syscall(SYS_gettid));
  sched_param param{};
  param.sched_priority = 0;
  int nice = 0;
  switch (priority) {
    case CpuPriority::kIdle:
      sched_setscheduler(0, SCHED_IDLE, &param);
      return;
    case CpuPriority::kLow:
      nice = 19;
      break;
    case CpuPriority::kNormal:
      nice = 0;
      break;
    case CpuPriority::kHigh:
      nice = -20;
      break;
  }
  sched_setscheduler(0, SCHED_OTHER, &param);
  setpriority(PRIO_PROCESS, tid, nice);
#else
  (void)priority;
#endif
}

}  // namespace rocksdb_cuckoo
