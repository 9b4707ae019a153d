#include "tests/support/memory_report.h"

#include <dlfcn.h>
#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "cache/jemalloc_runtime.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Status;

namespace {

// The file name of the object that serves malloc() in this process.
std::string MallocProvider() {
  Dl_info info{};
  void* malloc_symbol = dlsym(RTLD_DEFAULT, "malloc");
  if (malloc_symbol == nullptr || dladdr(malloc_symbol, &info) == 0 ||
      info.dli_fname == nullptr) {
    return "unknown";
  }
  const char* slash = strrchr(info.dli_fname, '/');
  return slash != nullptr ? slash + 1 : info.dli_fname;
}

Status ReadResident(uint64_t* rss, uint64_t* peak_rss) {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) {
    return Status::IOError("cannot read /proc/self/statm");
  }
  *rss = resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    unsigned long long kib = 0;
    if (sscanf(line.c_str(), "VmHWM: %llu kB", &kib) == 1) {
      *peak_rss = kib * 1024;
      return Status::OK();
    }
  }
  return Status::IOError("no VmHWM in /proc/self/status");
}

void ReadJemalloc(const JemallocApi& je, MemoryReport* report) {
  size_t allocated = 0, active = 0, mapped = 0, metadata = 0, resident = 0;
  Status s = RefreshJemallocStats(je);
  if (s.ok()) s = MallctlRead(je, "stats.allocated", &allocated);
  if (s.ok()) s = MallctlRead(je, "stats.active", &active);
  if (s.ok()) s = MallctlRead(je, "stats.mapped", &mapped);
  if (s.ok()) s = MallctlRead(je, "stats.metadata", &metadata);
  if (s.ok()) s = MallctlRead(je, "stats.resident", &resident);
  // Without --enable-stats jemalloc has none of these.
  report->has_heap_stats = s.ok();
  if (!s.ok()) return;
  report->allocated = allocated;
  report->active = active;
  report->mapped = mapped;
  report->metadata = metadata;
  report->resident = resident;
}

std::string Mib(uint64_t bytes) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.1fMiB", bytes / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

double MemoryReport::fragmentation() const {
  if (!has_heap_stats || allocated == 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return static_cast<double>(rss) / static_cast<double>(allocated) - 1.0;
}

std::string MemoryReport::ToString() const {
  std::ostringstream out;
  out << "allocator=" << allocator << " rss=" << Mib(rss)
      << " peak_rss=" << Mib(peak_rss);
  if (has_heap_stats) {
    out << " allocated=" << Mib(allocated);
    if (allocator == "jemalloc") {
      out << " active=" << Mib(active) << " mapped=" << Mib(mapped)
          << " metadata=" << Mib(metadata) << " resident=" << Mib(resident);
    }
    char frag[32];
    snprintf(frag, sizeof(frag), "%.3f", fragmentation());
    out << " fragmentation=" << frag;
  }
  return out.str();
}

Status GetMemoryReport(MemoryReport* report) {
  *report = MemoryReport();
  const JemallocApi* je = FindJemalloc(nullptr);
  if (je != nullptr && je->owns_malloc) {
    report->allocator = "jemalloc";
    ReadJemalloc(*je, report);
  } else {
    report->allocator = MallocProvider();
    if (report->allocator.rfind("libc.so", 0) == 0) {
      report->allocator = "glibc";
      const struct mallinfo2 info = mallinfo2();
      report->allocated = info.uordblks + info.hblkhd;
      report->has_heap_stats = true;
    }
  }
  return ReadResident(&report->rss, &report->peak_rss);
}

}  // namespace rocksdb_cuckoo
