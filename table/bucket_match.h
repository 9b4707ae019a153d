// Finding a fingerprint among a bucket's eight slots, all compared at once:
// with SSE2 where the target has it, with a portable loop elsewhere (for
// example AArch64).
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "table/cuckoo_hash_table_format.h"

namespace rocksdb_cuckoo {

// A set of a bucket's slots, one bit per slot, visited lowest first:
//   for (uint32_t slot : MatchFingerprint(fps, fp)) ...
class SlotMask {
 public:
  explicit SlotMask(uint32_t bits) : bits_(bits) {}

  bool empty() const { return bits_ == 0; }
  uint32_t Lowest() const {
    return static_cast<uint32_t>(__builtin_ctz(bits_));
  }

  class Iterator {
   public:
    explicit Iterator(uint32_t bits) : bits_(bits) {}
    uint32_t operator*() const { return SlotMask(bits_).Lowest(); }
    Iterator& operator++() {
      bits_ &= bits_ - 1;
      return *this;
    }
    bool operator!=(const Iterator& other) const {
      return bits_ != other.bits_;
    }

   private:
    uint32_t bits_;
  };
  Iterator begin() const { return Iterator(bits_); }
  Iterator end() const { return Iterator(0); }

 private:
  uint32_t bits_;
};

// The slots of `fps` holding fingerprint `fp` (0: the empty slots).
inline SlotMask MatchFingerprint(const Fingerprints& fps, uint16_t fp) {
#if defined(__SSE2__)
  const __m128i lanes =
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(fps.fingerprint));
  const __m128i equal =
      _mm_cmpeq_epi16(lanes, _mm_set1_epi16(static_cast<short>(fp)));
  // Each 16-bit lane is now 0 or -1; packed to bytes, one bit per slot.
  return SlotMask(static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_packs_epi16(equal, _mm_setzero_si128()))));
#else
  uint32_t bits = 0;
  for (uint32_t slot = 0; slot < kSlotsPerBucket; slot++) {
    bits |= static_cast<uint32_t>(fps.fingerprint[slot] == fp) << slot;
  }
  return SlotMask(bits);
#endif
}

// Whether every slot holds a key: the builder then may have placed a key of
// this bucket in its second bucket.
inline bool IsFull(const Fingerprints& fps) {
  return MatchFingerprint(fps, 0).empty();
}

}  // namespace rocksdb_cuckoo
