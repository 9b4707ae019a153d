#include "util/cpu_topology.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

namespace rocksdb_cuckoo {

namespace {

namespace fs = std::filesystem;

// First line of a small sysfs file, whitespace trimmed; empty if unreadable.
std::string ReadLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() &&
         std::isspace(static_cast<unsigned char>(line.back()))) {
    line.pop_back();
  }
  return line;
}

// "cpu12" -> 12; anything else (cpufreq, cpuidle, online) -> -1.
int CpuIdOf(const std::string& name) {
  if (name.size() <= 3 || name.compare(0, 3, "cpu") != 0) return -1;
  int id = 0;
  for (size_t i = 3; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
    id = id * 10 + (name[i] - '0');
    if (id > 65535) return -1;
  }
  return id;
}

// The CPUs sharing this CPU's level-3 data or unified cache, or empty when
// sysfs does not describe one. The index number of that cache varies by
// machine, so the level file decides, not the directory name.
std::vector<int> LlcSharers(const fs::path& cpu_dir) {
  std::error_code ec;
  fs::directory_iterator it(cpu_dir / "cache", ec);
  if (ec) return {};
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, 5, "index") != 0) continue;
    if (ReadLine(entry.path() / "level") != "3") continue;
    if (ReadLine(entry.path() / "type") == "Instruction") continue;
    std::vector<int> cpus;
    if (ParseCpuList(ReadLine(entry.path() / "shared_cpu_list"), &cpus) &&
        !cpus.empty()) {
      return cpus;
    }
  }
  return {};
}

}  // namespace

bool ParseCpuList(const std::string& text, std::vector<int>* cpus) {
  cpus->clear();
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string range = text.substr(pos, comma - pos);
    const size_t dash = range.find('-');
    char* end = nullptr;
    const long first = strtol(range.c_str(), &end, 10);
    if (range.empty() || !std::isdigit(static_cast<unsigned char>(range[0])) ||
        first < 0 || first > 65535) {
      return false;
    }
    long last = first;
    if (dash != std::string::npos) {
      if (end != range.c_str() + dash || dash + 1 >= range.size() ||
          !std::isdigit(static_cast<unsigned char>(range[dash + 1]))) {
        return false;
      }
      last = strtol(range.c_str() + dash + 1, &end, 10);
      if (last < first || last > 65535) return false;
    }
    if (*end != '\0') return false;
    for (long cpu = first; cpu <= last; ++cpu) {
      cpus->push_back(static_cast<int>(cpu));
    }
    pos = comma + 1;
  }
  std::sort(cpus->begin(), cpus->end());
  cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
  return !cpus->empty();
}

CpuTopology CpuTopology::Detect(const std::string& sysfs_cpu_root) {
  int max_cpu = 0;
  // Each distinct sharer set is one LLC, keyed by its sorted CPU list.
  std::map<std::vector<int>, int> llcs;
  std::error_code ec;
  fs::directory_iterator it(sysfs_cpu_root, ec);
  if (!ec) {
    for (const fs::directory_entry& entry : it) {
      const int cpu = CpuIdOf(entry.path().filename().string());
      if (cpu < 0) continue;
      max_cpu = std::max(max_cpu, cpu);
      std::vector<int> sharers = LlcSharers(entry.path());
      if (!sharers.empty()) {
        max_cpu = std::max(max_cpu, sharers.back());
        llcs.emplace(std::move(sharers), 0);
      }
    }
  }

  CpuTopology topology;
  topology.llc_of_cpu_.assign(static_cast<size_t>(max_cpu) + 1, -1);
  // std::map orders the sets by their lowest CPU, so LLC 0 holds CPU 0's
  // neighbours on ordinary machines: a stable, readable numbering.
  for (auto& [sharers, index] : llcs) {
    index = static_cast<int>(topology.num_llcs_++);
    for (int cpu : sharers) topology.llc_of_cpu_[cpu] = index;
  }
  return topology;
}

const CpuTopology& CpuTopology::System() {
  static const CpuTopology topology = [] {
    CpuTopology t = Detect(kSysfsCpuRoot);
    // Cover CPUs that sysfs did not list (hot-plug, restricted views).
    const long configured = sysconf(_SC_NPROCESSORS_CONF);
    if (configured > 0 && static_cast<size_t>(configured) > t.num_cpus()) {
      t.llc_of_cpu_.resize(static_cast<size_t>(configured), -1);
    }
    return t;
  }();
  return topology;
}

StripeMode CpuTopology::Resolve(StripeMode mode) const {
  if (mode != StripeMode::kAuto) return mode;
  return num_llcs_ >= 2 ? StripeMode::kLlc : StripeMode::kCore;
}

std::vector<uint16_t> CpuTopology::StripeMap(StripeMode mode,
                                             size_t* num_stripes) const {
  std::vector<uint16_t> map(num_cpus(), 0);
  *num_stripes = 1;
  switch (Resolve(mode)) {
    case StripeMode::kAuto:  // never: Resolve replaces it
    case StripeMode::kNone:
      break;
    case StripeMode::kCore:
      for (size_t cpu = 0; cpu < map.size(); ++cpu) {
        map[cpu] = static_cast<uint16_t>(cpu);
      }
      *num_stripes = map.size();
      break;
    case StripeMode::kLlc:
      if (num_llcs_ > 0) {
        for (size_t cpu = 0; cpu < map.size(); ++cpu) {
          map[cpu] = static_cast<uint16_t>(std::max(llc_of_cpu_[cpu], 0));
        }
        *num_stripes = num_llcs_;
      }
      break;
  }
  return map;
}

int CurrentCpu() {
  const int cpu = sched_getcpu();
  return cpu < 0 ? 0 : cpu;
}

}  // namespace rocksdb_cuckoo
