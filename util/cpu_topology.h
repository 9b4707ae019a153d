// Which last-level cache each CPU sits behind, read from sysfs, and the
// CPU -> stripe maps that striped counters use.
//
// Linux describes caches in <root>/cpu<N>/cache/index<I>/{level,
// shared_cpu_list}; CPUs listing the same level-3 shared_cpu_list share an LLC.
// Where that information is missing (containers, some VMs) the topology says
// so, and LLC striping falls back to a single stripe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rocksdb_cuckoo {

// How counters are spread over cache lines.
enum class StripeMode : uint8_t {
  kLlc,   // one stripe per last-level cache
  kCore,  // one stripe per logical CPU
  kNone,  // one stripe for everyone: a single shared atomic per counter
  // kLlc where the machine has several last-level caches, else kCore: one
  // LLC (most VMs and single-socket machines) would give kLlc one stripe,
  // which every thread contends on.
  kAuto,
};

inline constexpr const char* kSysfsCpuRoot = "/sys/devices/system/cpu";

class CpuTopology {
 public:
  // Reads <sysfs_cpu_root>. Never fails: what cannot be read is unknown.
  static CpuTopology Detect(const std::string& sysfs_cpu_root = kSysfsCpuRoot);

  // The machine's topology, detected once.
  static const CpuTopology& System();

  // Number of CPU ids covered: one more than the highest id seen, at least 1.
  size_t num_cpus() const { return llc_of_cpu_.size(); }
  // Number of distinct last-level caches; 0 when sysfs does not say.
  size_t num_llcs() const { return num_llcs_; }
  // Dense LLC index of a CPU, or -1 when unknown.
  int llc_of(size_t cpu) const { return llc_of_cpu_[cpu]; }

  // The mode kAuto stands for on this machine; other modes unchanged.
  StripeMode Resolve(StripeMode mode) const;

  // CPU id -> stripe index for a mode; *num_stripes receives the stripe
  // count. CPUs whose LLC is unknown share stripe 0.
  std::vector<uint16_t> StripeMap(StripeMode mode, size_t* num_stripes) const;

 private:
  std::vector<int> llc_of_cpu_;
  size_t num_llcs_ = 0;
};

// Parses a sysfs CPU list such as "0-3,8,10-11". Returns false (and leaves
// *cpus unspecified) on malformed input.
bool ParseCpuList(const std::string& text, std::vector<int>* cpus);

// The CPU the caller runs on (it may move right after), or 0 when the kernel
// cannot say.
int CurrentCpu();

}  // namespace rocksdb_cuckoo
