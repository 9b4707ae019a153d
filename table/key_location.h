// Where a user key may live in a CuckooHashTable file: its two candidate
// buckets, its fingerprint and its two preferred slots, all derived from one
// 64-bit hash (util/key_hash.h). Persisted: files are laid out by these
// functions, so changing any of them changes the file format.
#pragma once

#include <cstdint>

#include "rocksdb/slice.h"
#include "table/cuckoo_hash_table_format.h"
#include "util/key_hash.h"

namespace rocksdb_cuckoo {

// The first bucket comes from the hash's high bits (or from the identity
// key), the fingerprint from its low 16 bits, the slots from the 6 bits
// above them, the second bucket from a remix, so keys sharing a bucket
// rarely share a fingerprint. With identity hashing the first slot is the
// identity key's quotient by num_buckets, so dense integer keys of one
// bucket (k, k + n, k + 2n, ...) all get slots of their own.
struct KeyLocation {
  uint64_t bucket1;
  uint64_t bucket2;
  uint16_t fingerprint;
  uint8_t slot[2];  // preferred slots, distinct
};

// Maps a uniformly distributed 64-bit value onto [0, n) without division.
inline uint64_t FastRange(uint64_t x, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

// The fingerprint of a key in its bucket slot: the hash's low 16 bits,
// never 0 (which marks an empty slot).
inline uint16_t FingerprintOf(uint64_t hash) {
  return static_cast<uint16_t>(hash) | (static_cast<uint16_t>(hash) == 0);
}

// The second bucket of a key whose first bucket is `bucket1`: from the
// remixed hash, and never the first one when there are two buckets or more.
inline uint64_t SecondBucketOf(uint64_t hash, uint64_t bucket1,
                               uint64_t num_buckets) {
  const uint64_t bucket2 = FastRange(RemixHash(hash), num_buckets);
  if (bucket2 != bucket1 || num_buckets == 1) return bucket2;
  return bucket1 + 1 == num_buckets ? 0 : bucket1 + 1;
}

// Locates a key from its general hash and, with identity hashing on, its
// identity key (builders keep both and learn num_buckets only at the end).
inline KeyLocation LocateKey(uint64_t hash, uint64_t identity_key,
                             bool identity, uint64_t num_buckets) {
  KeyLocation at;
  at.fingerprint = FingerprintOf(hash);
  if (identity) {
    const uint64_t quotient = identity_key / num_buckets;
    at.bucket1 = identity_key - quotient * num_buckets;
    at.slot[0] = static_cast<uint8_t>(quotient % kSlotsPerBucket);
  } else {
    at.bucket1 = FastRange(hash, num_buckets);
    at.slot[0] = static_cast<uint8_t>((hash >> 16) % kSlotsPerBucket);
  }
  at.slot[1] = at.slot[0] ^
               static_cast<uint8_t>(1 + (hash >> 19) % (kSlotsPerBucket - 1));
  at.bucket2 = SecondBucketOf(hash, at.bucket1, num_buckets);
  return at;
}

// LocateKey() from the user key itself, as readers look it up.
inline KeyLocation LocateUserKey(const ROCKSDB_NAMESPACE::Slice& user_key,
                                 bool identity, uint64_t num_buckets,
                                 uint64_t seed) {
  return LocateKey(HashKey(user_key.data(), user_key.size(), seed),
                   identity ? IdentityKey(user_key.data(), user_key.size()) : 0,
                   identity, num_buckets);
}

}  // namespace rocksdb_cuckoo
