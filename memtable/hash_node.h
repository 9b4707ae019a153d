// One memtable entry as the striped_hash memtable stores it in the arena:
//
//   +-----------------+----------------------------------------------------+
//   | next (8 bytes)  | entry, exactly as MemTable::Add encodes it:        |
//   |                 | varint32 ikey_len | user key | packed (8) |         |
//   |                 | varint32 value_len | value                         |
//   +-----------------+----------------------------------------------------+
//
// packed = sequence << 8 | value type, little-endian. The memtable orders
// entries by user key ascending, then sequence descending (MemTable's
// KeyComparator ignores the type byte, so a key and sequence identify an
// entry). `next` links the versions of one user key newest first, so a chain
// is already in memtable order and the hash index holds only its head.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include "rocksdb/slice.h"

namespace rocksdb_cuckoo {

struct HashNode {
  std::atomic<HashNode*> next{nullptr};

  char* entry() { return reinterpret_cast<char*>(this + 1); }
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
};

// The parts of an entry (or of an encoded lookup key) the index needs.
struct EntryKey {
  ROCKSDB_NAMESPACE::Slice user_key;
  uint64_t packed = 0;  // sequence << 8 | type

  uint64_t sequence() const { return packed >> 8; }
  uint8_t type() const { return static_cast<uint8_t>(packed & 0xff); }
  const char* end_of_key = nullptr;  // first byte after the internal key
};

namespace entry_internal {

// Decodes a varint32 starting at p; the entry was written by RocksDB, so it
// is well formed.
inline const char* DecodeVarint32(const char* p, uint32_t* value) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    const uint32_t byte = static_cast<unsigned char>(*p++);
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  *value = result;
  return p;
}

inline uint64_t DecodeLittleEndian64(const char* p) {
  uint64_t v;
  memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

}  // namespace entry_internal

// Decodes a length-prefixed internal key: an entry or a memtable lookup key.
inline EntryKey DecodeEntryKey(const char* encoded) {
  uint32_t ikey_len;
  const char* ikey = entry_internal::DecodeVarint32(encoded, &ikey_len);
  EntryKey key;
  key.user_key = ROCKSDB_NAMESPACE::Slice(ikey, ikey_len - 8);
  key.packed = entry_internal::DecodeLittleEndian64(ikey + ikey_len - 8);
  key.end_of_key = ikey + ikey_len;
  return key;
}

inline uint64_t SequenceOf(const HashNode* node) {
  return DecodeEntryKey(node->entry()).sequence();
}

// Walks along one user key's chain, newest version first.

// The next (older) version, or null.
inline HashNode* NextOf(const HashNode* node) {
  return node->next.load(std::memory_order_acquire);
}

// The first version from `node` on at or below `sequence`, or null: where a
// seek to the key at that sequence number lands.
inline HashNode* FirstAtOrBelow(HashNode* node, uint64_t sequence) {
  while (node != nullptr && SequenceOf(node) > sequence) node = NextOf(node);
  return node;
}

// The last version from `node` on at or above `sequence`, or null when
// `node` is already below it: where a seek for the previous entry lands.
inline HashNode* LastAtOrAbove(HashNode* node, uint64_t sequence) {
  HashNode* last = nullptr;
  for (; node != nullptr && SequenceOf(node) >= sequence; node = NextOf(node)) {
    last = node;
  }
  return last;
}

// The version before `node` on the chain starting at `head`; null for the
// head. Chains are singly linked and short: the walk starts at the head.
inline HashNode* VersionBefore(HashNode* head, const HashNode* node) {
  HashNode* before = nullptr;
  for (HashNode* at = head; at != node; at = NextOf(at)) before = at;
  return before;
}

// Key plus value bytes of an entry (what the statistics call its size).
inline uint64_t EntryPayloadBytes(const EntryKey& key) {
  uint32_t value_len;
  entry_internal::DecodeVarint32(key.end_of_key, &value_len);
  return key.user_key.size() + 8 + value_len;
}

// Appends varint32(size) and the internal key: the memtable key format the
// iterators compare with when RocksDB passes no memtable key.
inline const char* EncodeMemtableKey(const ROCKSDB_NAMESPACE::Slice& ikey,
                                     std::string* scratch) {
  scratch->clear();
  uint32_t v = static_cast<uint32_t>(ikey.size());
  while (v >= 0x80) {
    scratch->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  scratch->push_back(static_cast<char>(v));
  scratch->append(ikey.data(), ikey.size());
  return scratch->data();
}

}  // namespace rocksdb_cuckoo
