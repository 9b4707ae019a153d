// What the kernel says of the mapping holding an address.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace rocksdb_cuckoo::testing {

// The VmFlags line of the mapping in /proc/self/smaps that contains `p`,
// with a space after it so that " dd " finds the last flag too; "" if no
// mapping does.
inline std::string VmFlagsOf(const void* p) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long long start = 0, end = 0;
    if (sscanf(line.c_str(), "%llx-%llx ", &start, &end) == 2) {
      inside = start <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line + " ";
    }
  }
  return "";
}

}  // namespace rocksdb_cuckoo::testing
