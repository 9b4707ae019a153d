#include "table/cuckoo_hash_table_format.h"

#include "rocksdb/table.h"
#include "util/checksum.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::DecodeFixed32;
using ROCKSDB_NAMESPACE::DecodeFixed64;
using ROCKSDB_NAMESPACE::PutFixed32;
using ROCKSDB_NAMESPACE::PutFixed64;
using ROCKSDB_NAMESPACE::PutVarint32;
using ROCKSDB_NAMESPACE::PutVarint64;

namespace {
constexpr size_t kFieldsAt = 8;  // after version, checksum type and flags
constexpr size_t kSelfChecksumAt = kLayoutSize - 8;
constexpr uint8_t kKeysWithoutTrailersFlag = 1;
}  // namespace

// Every 64-bit field, in encoding order; the region checksums follow them.
template <typename L, typename F>
void ForEachField(L& layout, F&& f) {
  for (auto* field :
       {&layout.hash_seed, &layout.num_entries, &layout.num_user_keys,
        &layout.data_size, &layout.order_offset, &layout.buckets_offset,
        &layout.num_buckets, &layout.stash_offset, &layout.num_stash,
        &layout.range_del_offset, &layout.range_del_size,
        &layout.num_range_dels, &layout.meta_offset, &layout.meta_size,
        &layout.properties_size, &layout.slot_entry_size}) {
    f(*field);
  }
  for (auto& checksum : layout.region_checksum) f(checksum);
}

void Layout::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  PutFixed32(dst, format_version);
  dst->push_back(static_cast<char>(checksum));
  dst->push_back(identity_as_first_hash ? 1 : 0);
  dst->push_back(static_cast<char>(order_width));
  dst->push_back(keys_without_trailers ? kKeysWithoutTrailersFlag : 0);
  // Fixed slot entries keep their key size in the high half of the entry
  // size field (both sizes are below 4 GiB).
  Layout encoded = *this;
  if (fixed_slots()) {
    encoded.slot_entry_size =
        uint64_t{slot_key_size} << 32 | (slot_entry_size - slot_key_size);
  }
  ForEachField(encoded, [dst](uint64_t v) { PutFixed64(dst, v); });
  dst->resize(start + kSelfChecksumAt, '\0');
  // The layout decides every bound the reader trusts, so it is always
  // checksummed, whatever the user chose for the bulk regions.
  PutFixed64(dst, ComputeChecksum(ROCKSDB_NAMESPACE::kXXH3, dst->data() + start,
                                  kSelfChecksumAt));
}

Status Layout::DecodeFrom(const Slice& input, uint64_t file_size) {
  if (input.size() != kLayoutSize) {
    return Status::Corruption("CuckooHashTable: truncated layout block");
  }
  const char* p = input.data();
  if (ComputeChecksum(ROCKSDB_NAMESPACE::kXXH3, p, kSelfChecksumAt) !=
      DecodeFixed64(p + kSelfChecksumAt)) {
    return Status::Corruption(
        "CuckooHashTable: layout block checksum mismatch");
  }
  format_version = DecodeFixed32(p);
  if (format_version < 1 || format_version > kFormatVersion) {
    return Status::NotSupported("CuckooHashTable: unknown format version " +
                                std::to_string(format_version));
  }
  checksum = static_cast<ROCKSDB_NAMESPACE::ChecksumType>(p[4]);
  identity_as_first_hash = p[5] != 0;
  order_width = static_cast<uint8_t>(p[6]);
  const uint8_t flags = static_cast<uint8_t>(p[7]);
  keys_without_trailers = (flags & kKeysWithoutTrailersFlag) != 0;
  const char* q = p + kFieldsAt;
  ForEachField(*this, [&q](uint64_t& v) {
    v = DecodeFixed64(q);
    q += 8;
  });
  if (fixed_slots()) {
    slot_key_size = static_cast<uint32_t>(slot_entry_size >> 32);
    slot_entry_size = uint64_t{slot_key_size} + (slot_entry_size & UINT32_MAX);
  }

  if (!IsSupportedChecksum(checksum) ||
      (order_width != 4 && order_width != 8) || p[5] > 1 ||
      (flags & ~kKeysWithoutTrailersFlag) != 0 ||
      (keys_without_trailers && !fixed_slots())) {
    return Status::Corruption("CuckooHashTable: bad layout parameters");
  }
  // Every count is bounded by the file size before it is multiplied, so the
  // region arithmetic below cannot overflow.
  const bool counts_fit =
      num_entries <= file_size && num_buckets <= file_size / bucket_stride() &&
      num_stash <= file_size / 8 && num_user_keys <= num_entries &&
      num_range_dels <= file_size;
  if (!counts_fit || data_size > kMaxEntryOffset ||
      (num_user_keys > 0 && num_buckets == 0)) {
    return Status::Corruption("CuckooHashTable: bad layout counts");
  }
  const uint64_t order_end = order_offset + order_size();
  const bool regions_in_order =
      order_offset == data_size && order_end <= buckets_offset &&
      buckets_offset - order_end < kBucketSize &&
      buckets_offset % kBucketSize == 0 &&
      stash_offset == buckets_offset + buckets_size() &&
      range_del_offset == stash_offset + stash_size() &&
      range_del_size <= file_size &&
      meta_offset == chunk_sums_offset() + chunk_sums_size() &&
      meta_size <= file_size && properties_size <= meta_size &&
      meta_offset + meta_size + kLayoutSize + kRocksDBFooterSize == file_size &&
      (order_width == 8 || data_size <= UINT32_MAX);
  if (!regions_in_order) {
    return Status::Corruption("CuckooHashTable: layout regions out of bounds");
  }
  // A stored trailer needs 8 bytes of key.
  const bool slot_key_fits =
      !fixed_slots() || (slot_key_size <= slot_entry_size &&
                         (keys_without_trailers || slot_key_size >= 8));
  if (slot_entry_size > 0 &&
      (num_user_keys != num_entries || slot_entry_size > data_size ||
       data_size % slot_entry_size != 0 ||
       data_size / slot_entry_size !=
           num_buckets * kSlotsPerBucket + num_stash ||
       !slot_key_fits)) {
    return Status::Corruption("CuckooHashTable: bad slot-ordered layout");
  }
  return Status::OK();
}

Status Layout::DecodeFromFile(const Slice& file) {
  if (file.size() < kLayoutSize + kRocksDBFooterSize) {
    return Status::Corruption("CuckooHashTable: file too short (" +
                              std::to_string(file.size()) + " bytes)");
  }
  return DecodeFrom(
      Slice(file.data() + file.size() - kRocksDBFooterSize - kLayoutSize,
            kLayoutSize),
      file.size());
}

void AppendRocksDBFooter(const Layout& layout, std::string* dst) {
  // Encoded here rather than by RocksDB's FooterBuilder, which since 11.0
  // asserts that the magic number is one of RocksDB's own.
  const size_t start = dst->size();
  dst->push_back(static_cast<char>(ROCKSDB_NAMESPACE::kNoChecksum));
  const uint64_t metaindex_offset = layout.meta_offset + layout.properties_size;
  PutVarint64(dst, metaindex_offset);
  PutVarint64(dst, layout.meta_size - layout.properties_size);
  PutVarint64(dst, 0);  // no index block: a null handle
  PutVarint64(dst, 0);
  dst->resize(start + 1 + kFooterHandlesSize, '\0');
  PutFixed32(dst, kRocksDBFooterFormatVersion);
  PutFixed64(dst, kCuckooHashTableMagicNumber);
}

void EncodeEntryHeader(uint32_t internal_key_size, uint32_t value_size,
                       std::string* dst) {
  PutVarint32(dst, internal_key_size);
  PutVarint32(dst, value_size);
}

}  // namespace rocksdb_cuckoo
