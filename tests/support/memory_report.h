// A snapshot of the process's memory: what the kernel keeps resident and
// what the heap allocator says it handed out, and from the two
// fragmentation = RSS / allocated - 1. It counts everything
// resident (code, stacks, mapped files too), so it compares runs of one
// program, not programs.
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/status.h"

namespace rocksdb_cuckoo {

struct MemoryReport {
  // Who serves malloc(): "jemalloc", "glibc", or the file name of the
  // object that does (e.g. "libasan.so.8").
  std::string allocator;
  uint64_t rss = 0;       // resident set now, bytes (/proc/self/statm)
  uint64_t peak_rss = 0;  // its high-water mark, bytes (VmHWM)
  // Whether the allocator's figures below are known: jemalloc serving
  // malloc (with statistics built in), or glibc.
  bool has_heap_stats = false;
  // Bytes in live allocations: jemalloc's stats.allocated, or glibc's
  // mallinfo2() uordblks + hblkhd.
  uint64_t allocated = 0;
  // jemalloc only (0 otherwise): stats.active, .mapped, .metadata, .resident.
  uint64_t active = 0;
  uint64_t mapped = 0;
  uint64_t metadata = 0;
  uint64_t resident = 0;

  // rss / allocated - 1; NaN without heap statistics.
  double fragmentation() const;
  // One line: "allocator=jemalloc rss=...MiB ... fragmentation=0.21".
  std::string ToString() const;
};

// Fills *report; an error only when /proc cannot be read.
ROCKSDB_NAMESPACE::Status GetMemoryReport(MemoryReport* report);

}  // namespace rocksdb_cuckoo
