// Hashing for hash-table placement.
//
// HashKey is a fast 64-bit hash for keys of any length: short keys (the
// common case) cost two unaligned loads and two 64x64->128 multiplies.
// RemixHash derives a second, unrelated hash from the first. IdentityKey is
// the "identity first hash": the key's first 8 bytes read big-endian, so
// integer keys encoded to sort in RocksDB hash to themselves.
//
// Persisted: CuckooHashTable files place keys by these values, so changing
// any of them (constants included) changes the file format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rocksdb_cuckoo {

namespace hash_internal {

// Odd 64-bit constants with well-mixed bits (fractional parts of sqrt(2),
// sqrt(3) and sqrt(5)); any such constants work, these are just documented.
constexpr uint64_t kMulA = 0x6a09e667f3bcc909ULL;
constexpr uint64_t kMulB = 0xbb67ae8584caa73bULL;
constexpr uint64_t kMulC = 0x3c6ef372fe94f82bULL;

inline uint64_t Load64(const char* p) {
  uint64_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

inline uint64_t Load32(const char* p) {
  uint32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

// Folds the 128-bit product: every input bit influences the result.
inline uint64_t MultiplyFold(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

uint64_t HashLongKey(const char* data, size_t size, uint64_t seed);

}  // namespace hash_internal

inline uint64_t HashKey(const char* data, size_t size, uint64_t seed = 0) {
  using namespace hash_internal;
  uint64_t a;
  uint64_t b;
  if (size > 16) {
    return HashLongKey(data, size, seed);
  } else if (size >= 8) {
    a = Load64(data);
    b = Load64(data + size - 8);
  } else if (size >= 4) {
    a = Load32(data);
    b = Load32(data + size - 4);
  } else if (size > 0) {
    a = (static_cast<uint64_t>(static_cast<uint8_t>(data[0])) << 16) |
        (static_cast<uint64_t>(static_cast<uint8_t>(data[size / 2])) << 8) |
        static_cast<uint8_t>(data[size - 1]);
    b = 0;
  } else {
    a = b = 0;
  }
  const uint64_t mixed = MultiplyFold(a ^ kMulA ^ seed, b ^ kMulB ^ size);
  return MultiplyFold(mixed ^ kMulC, kMulA ^ size);
}

// A second hash of a key, from its first one, for a second bucket choice
// that is unrelated to the first: rotate, then multiply by an odd constant.
inline uint64_t RemixHash(uint64_t hash) {
  return (hash >> 23 | hash << 41) * hash_internal::kMulC;
}

inline uint64_t IdentityKey(const char* data, size_t size) {
  uint64_t v = 0;
  if (size >= 8) {
    v = hash_internal::Load64(data);
  } else {
    memcpy(&v, data, size);
  }
  return __builtin_bswap64(v);
}

}  // namespace rocksdb_cuckoo
