// Fetching a whole byte range into the CPU cache ahead of its use.
#pragma once

#include <cstdint>

namespace rocksdb_cuckoo {

// Starts loading every cache line of [begin, begin + size), size > 0. A
// range that starts past a line's first bytes reaches into one line more
// than its size suggests (124 bytes span three lines at most offsets), so
// the line of its last byte is fetched too. Always inlined: GCC drops a
// call to a function that only prefetches, having no effects.
__attribute__((always_inline)) inline void PrefetchRange(const char* begin,
                                                         uint64_t size) {
  for (uint64_t line = 0; line < size; line += 64) {
    __builtin_prefetch(begin + line);
  }
  __builtin_prefetch(begin + size - 1);
}

}  // namespace rocksdb_cuckoo
