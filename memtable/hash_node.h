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
//
// The top bit of `next` says the node was its key's head and a newer version
// has replaced it there (node addresses are below 2^48: the index stops
// otherwise). The sorted view orders user keys, not versions: it keeps the
// head it was given, and whoever reads a superseded one asks the index for
// the newest, so a new version of a key the view holds needs no renewal.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "rocksdb/slice.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {

struct HashNode {
  // The next (older) version's address, and kSupersededBit.
  std::atomic<uintptr_t> next{0};

  char* entry() { return reinterpret_cast<char*>(this + 1); }
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
};

constexpr uintptr_t kSupersededBit = uintptr_t{1} << 63;

inline HashNode* NodeAt(uintptr_t link) {
  return reinterpret_cast<HashNode*>(link & ~kSupersededBit);
}
inline uintptr_t LinkTo(const HashNode* node) {
  return reinterpret_cast<uintptr_t>(node);
}

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
  return NodeAt(node->next.load(std::memory_order_acquire));
}

// Whether a newer version has replaced `node` as its key's head.
inline bool IsSuperseded(const HashNode* node) {
  return (node->next.load(std::memory_order_acquire) & kSupersededBit) != 0;
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
