#include "util/key_hash.h"

namespace rocksdb_cuckoo {
namespace hash_internal {

// Keys longer than 16 bytes: fold 16-byte stripes into one state, then the
// (overlapping) last 16 bytes, so every byte is read and the length counts.
uint64_t HashLongKey(const char* data, size_t size, uint64_t seed) {
  uint64_t state = seed ^ kMulC ^ size;
  const char* const last = data + size - 16;
  for (const char* p = data; p < last; p += 16) {
    state = MultiplyFold(Load64(p) ^ kMulA ^ state, Load64(p + 8) ^ kMulB);
  }
  state = MultiplyFold(Load64(last) ^ kMulA ^ state, Load64(last + 8) ^ kMulB);
  return MultiplyFold(state ^ kMulC, kMulA ^ size);
}

}  // namespace hash_internal
}  // namespace rocksdb_cuckoo
