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
#include <string>

#include "rocksdb/slice.h"
#include "util/coding.h"

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

// Decodes a length-prefixed internal key: an entry or a memtable lookup key.
inline EntryKey DecodeEntryKey(const char* encoded) {
  // Written by RocksDB, so well formed: a varint32 takes at most 5 bytes.
  uint32_t ikey_len = 0;
  const char* ikey =
      ROCKSDB_NAMESPACE::GetVarint32Ptr(encoded, encoded + 5, &ikey_len);
  EntryKey key;
  key.user_key = ROCKSDB_NAMESPACE::Slice(ikey, ikey_len - 8);
  key.packed = ROCKSDB_NAMESPACE::DecodeFixed64(ikey + ikey_len - 8);
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
  uint32_t value_len = 0;
  ROCKSDB_NAMESPACE::GetVarint32Ptr(key.end_of_key, key.end_of_key + 5,
                                    &value_len);
  return key.user_key.size() + 8 + value_len;
}

// Appends varint32(size) and the internal key: the memtable key format the
// iterators compare with when RocksDB passes no memtable key.
inline const char* EncodeMemtableKey(const ROCKSDB_NAMESPACE::Slice& ikey,
                                     std::string* scratch) {
  scratch->clear();
  ROCKSDB_NAMESPACE::PutVarint32(scratch, static_cast<uint32_t>(ikey.size()));
  scratch->append(ikey.data(), ikey.size());
  return scratch->data();
}

}  // namespace rocksdb_cuckoo
