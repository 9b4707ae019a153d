// The CuckooHashTable file format: its one home.
//
//   offset 0
//   +------------------------------------------------------------------+
//   | data region     entries in internal-key order (as the builder    |
//   |                 received them); several versions of one user key |
//   |                 are adjacent, newest first.                      |
//   |   entry := varint32 internal_key_size | varint32 value_size |    |
//   |            internal_key | value                                   |
//   |                 Or, when all entries have one key size, one value |
//   |                 size and their own user key, in slot order: slot |
//   |                 i at i * size (zeros if empty), then the stash   |
//   |                 keys' entries. Format 3 stores these without the |
//   |                 varints (the layout has both sizes) and, when    |
//   |                 every entry is a kTypeValue at sequence 0, with  |
//   |                 the user key alone:                              |
//   |   slot entry := internal_key (or user_key) | value               |
//   +------------------------------------------------------------------+
//   | order index     num_entries little-endian offsets of the entries |
//   |                 (4 bytes each, 8 if the data region >= 4 GiB):   |
//   |                 binary search for Seek, stepping back for Prev.  |
//   +------------------------------------------------------------------+
//   | (zero padding to a 64-byte boundary)                             |
//   | bucket array    num_buckets x Bucket (64 bytes = one cache line): |
//   |                 8 slots, each a 16-bit fingerprint (0: empty) and |
//   |                 a 48-bit offset of the first entry of a user key. |
//   |                 Format 3 in slot order: num_buckets x            |
//   |                 Fingerprints (16 bytes, four to a cache line),   |
//   |                 since a slot's entry offset follows from its      |
//   |                 index.                                           |
//   +------------------------------------------------------------------+
//   | stash           num_stash x 8-byte slots (fingerprint | offset)  |
//   |                 for keys no bucket could take; usually empty.    |
//   +------------------------------------------------------------------+
//   | range tombstones  entries (as above) of kTypeRangeDeletion, in   |
//   |                 the order the builder received them              |
//   +------------------------------------------------------------------+
//   | chunk checksums (format >= 2, unless kNoChecksum) one fixed64 per |
//   |                 64 KiB chunk of the data region, then of the     |
//   |                 order index, then of the bucket array            |
//   +------------------------------------------------------------------+
//   | properties      RocksDB property block (TableProperties)         |
//   | metaindex       RocksDB metaindex block naming the properties    |
//   +------------------------------------------------------------------+
//   | layout          kLayoutSize bytes: where every region is, hash   |
//   |                 parameters, and a checksum of every region and   |
//   |                 of the layout itself (format >= 2: of the data,  |
//   |                 order index and bucket array, the checksum of    |
//   |                 their chunk checksums)                           |
//   | footer          RocksDB footer, format_version 1 (53 bytes), with |
//   |                 kCuckooHashTableMagicNumber, so RocksDB's own    |
//   |                 property readers (ReadTableProperties) work      |
//   +------------------------------------------------------------------+
//
// Lookup of user key K: its fingerprint and two candidate buckets come from
// one hash of K (table/key_location.h). The builder keeps this invariant: a key
// sits in its second bucket (or the stash) only if its first bucket is full. So
// a miss reads one cache line whenever the first bucket has a free slot, and at
// most two otherwise (plus the stash, which is empty in practice).
//
// The hash also names two preferred slots, the same in both buckets, and the
// builder seats as many keys of each bucket in one of their preferred slots
// as possible (a maximum matching). In slot order a reader can then load the
// key's entry together with its buckets instead of after them: most hits
// cost one memory round trip.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "db/dbformat.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

// "cuckoohs" in ASCII, little-endian: distinct from every RocksDB magic
// number (block-based 0x88e241b785f4cff7, plain 0x8242229663bf9564, cuckoo
// 0x926789d0c5f17873), so no other reader mistakes our files for its own.
constexpr uint64_t kCuckooHashTableMagicNumber = 0x73686f6f6b637563ULL;

// Bumped on any incompatible change of the layout below. Readers keep
// reading every earlier version. 1: every region has one checksum, so a
// reader verifies the whole file when it opens it. 2: the three bulk regions
// are checksummed per chunk, so a reader verifies a chunk the first time it
// reads from it and opening a file reads only its small regions. 3: slot
// order stores fixed-size entries without varints, user keys without the
// all-zero trailer, and buckets of fingerprints alone.
constexpr uint32_t kFormatVersion = 3;

constexpr uint32_t kSlotsPerBucket = 8;
constexpr uint32_t kBucketSize = 64;  // one cache line
constexpr uint32_t kFingerprintsSize = 2 * kSlotsPerBucket;
constexpr uint64_t kMaxEntryOffset = (uint64_t{1} << 48) - 1;
constexpr uint32_t kLayoutSize = 192;
constexpr uint32_t kChecksumChunkShift = 16;
constexpr uint64_t kChecksumChunkSize = uint64_t{1} << kChecksumChunkShift;
// RocksDB's footer for format_version >= 1: checksum type (1), two padded
// block handles (40), format version (4), magic number (8).
constexpr uint32_t kRocksDBFooterSize = 53;
constexpr uint32_t kFooterHandlesSize = 40;
constexpr uint32_t kRocksDBFooterFormatVersion = 1;

// The fingerprints of a bucket's slots; 0 marks an empty slot.
// (table/bucket_match.h compares them.)
struct Fingerprints {
  uint16_t fingerprint[kSlotsPerBucket];
};
static_assert(sizeof(Fingerprints) == kFingerprintsSize, "packed");

// One cache line of the bucket array: the fingerprints, then where each
// slot's entry is.
struct Bucket {
  Fingerprints fingerprints;
  uint8_t offset[kSlotsPerBucket][6];  // little-endian 48-bit entry offsets

  uint64_t OffsetAt(uint32_t slot) const {
    uint32_t low;
    uint16_t high;
    memcpy(&low, offset[slot], 4);
    memcpy(&high, offset[slot] + 4, 2);
    return (uint64_t{high} << 32) | low;
  }
  void Set(uint32_t slot, uint16_t fp, uint64_t entry_offset) {
    fingerprints.fingerprint[slot] = fp;
    const uint32_t low = static_cast<uint32_t>(entry_offset);
    const uint16_t high = static_cast<uint16_t>(entry_offset >> 32);
    memcpy(offset[slot], &low, 4);
    memcpy(offset[slot] + 4, &high, 2);
  }
};
static_assert(sizeof(Bucket) == kBucketSize, "a bucket is one cache line");

// A stash slot: fingerprint in the low 16 bits, entry offset above.
inline uint64_t EncodeStashSlot(uint16_t fp, uint64_t offset) {
  return (offset << 16) | fp;
}

// The regions of a file and what the reader needs to interpret them.
struct Layout {
  uint32_t format_version = kFormatVersion;
  ROCKSDB_NAMESPACE::ChecksumType checksum = ROCKSDB_NAMESPACE::kXXH3;
  bool identity_as_first_hash = false;
  uint8_t order_width = 4;  // bytes per order-index entry: 4 or 8
  uint64_t hash_seed = 0;
  uint64_t num_entries = 0;
  uint64_t num_user_keys = 0;
  uint64_t data_size = 0;  // the data region is [0, data_size)
  uint64_t order_offset = 0;
  uint64_t buckets_offset = 0;
  uint64_t num_buckets = 0;
  uint64_t stash_offset = 0;
  uint64_t num_stash = 0;
  uint64_t range_del_offset = 0;  // range tombstones, as entries
  uint64_t range_del_size = 0;
  uint64_t num_range_dels = 0;
  uint64_t meta_offset = 0;  // properties + metaindex blocks
  uint64_t meta_size = 0;
  uint64_t properties_size = 0;  // the metaindex block follows it
  // Non-zero: the data region is in slot order, every entry this size.
  uint64_t slot_entry_size = 0;
  // Format 3 in slot order: the bytes of each slot entry's key (the rest is
  // its value), and whether that key is the user key alone because every
  // entry is a kTypeValue at sequence 0.
  uint32_t slot_key_size = 0;
  bool keys_without_trailers = false;
  // Checksums of: data, order index, buckets, stash, range tombstones,
  // meta blocks (when chunked(), the first three are the checksums of those
  // regions' lists of chunk checksums).
  uint64_t region_checksum[6] = {0, 0, 0, 0, 0, 0};

  uint64_t order_size() const { return num_entries * order_width; }
  // Whether the data region holds slot entries (fixed sizes, no varints)
  // and the bucket array only fingerprints (format 3 in slot order).
  bool fixed_slots() const {
    return format_version >= 3 && slot_entry_size > 0;
  }
  uint64_t bucket_stride() const {
    return fixed_slots() ? kFingerprintsSize : kBucketSize;
  }
  uint64_t buckets_size() const { return num_buckets * bucket_stride(); }
  uint64_t stash_size() const { return num_stash * 8; }
  // Whether the data, order index and bucket array are checksummed per
  // chunk (and verified when first read) rather than as a whole.
  bool chunked() const {
    return format_version >= 2 && checksum != ROCKSDB_NAMESPACE::kNoChecksum;
  }
  uint64_t chunk_sums_offset() const {
    return range_del_offset + range_del_size;
  }
  uint64_t chunk_sums_size() const {
    return chunked() ? 8 * (NumChunks(data_size) + NumChunks(order_size()) +
                            NumChunks(buckets_size()))
                     : 0;
  }
  static uint64_t NumChunks(uint64_t size) {
    return (size + kChecksumChunkSize - 1) >> kChecksumChunkShift;
  }

  // Appends exactly kLayoutSize bytes, the last 8 a checksum of the rest.
  void EncodeTo(std::string* dst) const;
  // Decodes and checks the layout's own checksum and that every region lies
  // inside a file of `file_size` bytes in the order pictured above.
  Status DecodeFrom(const Slice& input, uint64_t file_size);
  // Decodes the layout block of a whole file, given its bytes.
  Status DecodeFromFile(const Slice& file);
};

// Appends the RocksDB footer that ends a file with this layout. The reader
// compares the file's footer with it, so the footer is checked too.
void AppendRocksDBFooter(const Layout& layout, std::string* dst);

// One entry of the data region, parsed in place.
struct EntryView {
  Slice user_key;
  // sequence << 8 | type as stored; 0 << 8 | kTypeValue for a slot entry
  // stored without its trailer.
  uint64_t trailer;
  Slice value;
  uint64_t next_offset;  // where the following entry starts
  ROCKSDB_NAMESPACE::ValueType type() const {
    return static_cast<ROCKSDB_NAMESPACE::ValueType>(trailer & 0xff);
  }
  // The stored internal key; only for entries stored with their trailer.
  Slice internal_key() const {
    return Slice(user_key.data(), user_key.size() + 8);
  }
};

// The most bytes an entry's header (its two varint32 sizes) can take.
constexpr uint64_t kMaxEntryHeaderSize = 10;

// Appends the entry header (both varints) to dst.
void EncodeEntryHeader(uint32_t internal_key_size, uint32_t value_size,
                       std::string* dst);

// Parses the header of the entry with varints at `offset` of a region of
// `size` bytes: sets every field of *entry but the trailer, reading no byte
// past the header. Returns false (never reads out of bounds) if it is
// malformed. Inline: it is on every lookup.
inline bool ParseEntryHeader(const char* data, uint64_t size, uint64_t offset,
                             EntryView* entry) {
  if (offset >= size) return false;
  const char* p = data + offset;
  const char* const limit = data + size;
  uint32_t key_size;
  uint32_t value_size;
  p = ROCKSDB_NAMESPACE::GetVarint32Ptr(p, limit, &key_size);
  if (p == nullptr) return false;
  p = ROCKSDB_NAMESPACE::GetVarint32Ptr(p, limit, &value_size);
  if (p == nullptr || key_size < 8 ||
      static_cast<uint64_t>(limit - p) < uint64_t{key_size} + value_size) {
    return false;
  }
  entry->user_key = Slice(p, key_size - 8);
  entry->value = Slice(p + key_size, value_size);
  entry->next_offset = static_cast<uint64_t>(p - data) + key_size + value_size;
  return true;
}

// Reads the trailer of an entry whose header ParseEntryHeader() parsed.
inline void ParseEntryTrailer(EntryView* entry) {
  entry->trailer = ROCKSDB_NAMESPACE::DecodeFixed64(entry->user_key.data() +
                                                    entry->user_key.size());
}

// Parses the entry with varints at `offset` of a region of `size` bytes.
// Returns false (never reads out of bounds) if it is malformed.
inline bool ParseEntry(const char* data, uint64_t size, uint64_t offset,
                       EntryView* entry) {
  if (!ParseEntryHeader(data, size, offset, entry)) return false;
  ParseEntryTrailer(entry);
  return true;
}

// Parses the slot entry (format 3, see fixed_slots()) at `offset`.
inline bool ParseSlotEntry(const char* data, const Layout& layout,
                           uint64_t offset, EntryView* entry) {
  const uint64_t size = layout.slot_entry_size;
  if (offset > layout.data_size - size) return false;
  const char* p = data + offset;
  const uint32_t key_size = layout.slot_key_size;
  if (layout.keys_without_trailers) {
    entry->user_key = Slice(p, key_size);
    entry->trailer = ROCKSDB_NAMESPACE::kTypeValue;
  } else {
    entry->user_key = Slice(p, key_size - 8);
    entry->trailer = ROCKSDB_NAMESPACE::DecodeFixed64(p + key_size - 8);
  }
  entry->value = Slice(p + key_size, size - key_size);
  entry->next_offset = offset + size;
  return true;
}

}  // namespace rocksdb_cuckoo
