// Lowers the I/O or CPU priority of the calling thread, for the executor's
// LowerThreadPoolIOPriority / LowerThreadPoolCPUPriority. Linux only; other
// systems ignore the request.
#pragma once

#include "rocksdb/env.h"

namespace rocksdb_cuckoo {

// Puts the thread in the idle I/O scheduling class.
void LowerCurrentThreadIOPriority();

// kIdle: SCHED_IDLE; kLow: nice 19; kNormal: nice 0; kHigh: nice -20 (needs
// privileges; ignored when refused).
void SetCurrentThreadCpuPriority(ROCKSDB_NAMESPACE::CpuPriority priority);

}  // namespace rocksdb_cuckoo
