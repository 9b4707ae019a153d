// The file format's pieces on their own: the layout block round-trips and
// refuses anything inconsistent.
#include "table/cuckoo_hash_table_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "util/checksum.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

// A consistent key-ordered layout of a small file, and that file's size.
Layout SmallLayout(uint64_t* file_size) {
  Layout l;
  l.hash_seed = 7;
  l.num_entries = 10;
  l.num_user_keys = 10;
  l.data_size = 1000;
  l.order_offset = 1000;  // 10 entries x 4 bytes, then padding to 1088
  l.buckets_offset = 1088;
  l.num_buckets = 2;
  l.stash_offset = 1088 + 2 * kBucketSize;
  l.num_stash = 1;
  l.range_del_offset = l.stash_offset + 8;
  l.range_del_size = 0;
  // One chunk checksum for each of the data, order index and buckets.
  l.meta_offset = l.range_del_offset + 3 * 8;
  l.meta_size = 100;
  l.properties_size = 60;
  for (int i = 0; i < 6; ++i) l.region_checksum[i] = 1000 + i;
  *file_size = l.meta_offset + l.meta_size + kLayoutSize + kRocksDBFooterSize;
  return l;
}

// Re-seals an edited layout block, so only the edit is wrong.
void Seal(std::string* block) {
  ROCKSDB_NAMESPACE::EncodeFixed64(
      &(*block)[kLayoutSize - 8],
      ComputeChecksum(ROCKSDB_NAMESPACE::kXXH3, block->data(),
                      kLayoutSize - 8));
}

TEST(LayoutTest, RoundTrips) {
  uint64_t file_size;
  const Layout in = SmallLayout(&file_size);
  ASSERT_EQ(in.chunk_sums_size(), 24u);
  std::string block;
  in.EncodeTo(&block);
  ASSERT_EQ(block.size(), kLayoutSize);
  Layout out;
  ASSERT_TRUE(out.DecodeFrom(block, file_size).ok());
  EXPECT_EQ(out.format_version, kFormatVersion);
  EXPECT_EQ(out.hash_seed, 7u);
  EXPECT_EQ(out.buckets_offset, in.buckets_offset);
  EXPECT_EQ(out.meta_offset, in.meta_offset);
  EXPECT_EQ(out.num_stash, 1u);
  EXPECT_EQ(memcmp(out.region_checksum, in.region_checksum,
                   sizeof(in.region_checksum)),
            0);
}

TEST(LayoutTest, AnyFlippedByteIsCorruption) {
  uint64_t file_size;
  std::string block;
  SmallLayout(&file_size).EncodeTo(&block);
  for (size_t i = 0; i < block.size(); ++i) {
    std::string damaged = block;
    damaged[i] ^= 0x40;
    Layout out;
    EXPECT_TRUE(out.DecodeFrom(damaged, file_size).IsCorruption()) << i;
  }
}

// Encodes `l` and decodes it into *out as a file of `file_size` bytes would.
Status Decode(const Layout& l, uint64_t file_size, Layout* out) {
  std::string block;
  l.EncodeTo(&block);
  return out->DecodeFrom(block, file_size);
}

TEST(LayoutTest, RefusesInconsistentLayouts) {
  uint64_t file_size;
  const Layout good = SmallLayout(&file_size);
  auto decode = [](const Layout& l, uint64_t size) {
    Layout out;
    return Decode(l, size, &out);
  };
  ASSERT_TRUE(decode(good, file_size).ok());
  EXPECT_TRUE(decode(good, file_size + 1).IsCorruption());
  Layout l = good;
  l.buckets_offset += 8;  // buckets must sit on cache lines
  l.stash_offset += 8;
  l.range_del_offset += 8;
  l.meta_offset += 8;
  EXPECT_TRUE(decode(l, file_size + 8).IsCorruption());
  l = good;
  l.num_user_keys = 11;  // more user keys than entries
  EXPECT_TRUE(decode(l, file_size).IsCorruption());
  l = good;
  l.order_width = 5;
  EXPECT_TRUE(decode(l, file_size).IsCorruption());
  // Format 1 has no chunk checksums, so these offsets do not add up.
  l = good;
  l.format_version = 1;
  EXPECT_TRUE(decode(l, file_size).IsCorruption());
  l.meta_offset -= 24;
  EXPECT_TRUE(decode(l, file_size - 24).ok());
}

TEST(LayoutTest, UnknownVersionsAreNotSupported) {
  uint64_t file_size;
  std::string block;
  SmallLayout(&file_size).EncodeTo(&block);
  for (uint32_t version : {0u, kFormatVersion + 1}) {
    std::string edited = block;
    ROCKSDB_NAMESPACE::EncodeFixed32(&edited[0], version);
    Seal(&edited);
    Layout out;
    const Status s = out.DecodeFrom(edited, file_size);
    EXPECT_TRUE(s.IsNotSupported()) << version << ": " << s.ToString();
  }
}

// A consistent slot-ordered layout of `version`: 2 buckets and 1 stash key,
// entries of `key_size` + 8 bytes.
Layout SlotLayout(uint32_t version, uint32_t key_size, bool without_trailers,
                  uint64_t* file_size) {
  Layout l;
  l.format_version = version;
  l.num_entries = 10;
  l.num_user_keys = 10;
  l.slot_entry_size = key_size + 8;
  l.slot_key_size = version >= 3 ? key_size : 0;
  l.keys_without_trailers = without_trailers;
  l.data_size = (2 * kSlotsPerBucket + 1) * l.slot_entry_size;
  l.order_offset = l.data_size;
  l.buckets_offset =
      (l.data_size + 40 + kBucketSize - 1) / kBucketSize * kBucketSize;
  l.num_buckets = 2;
  l.stash_offset = l.buckets_offset + l.buckets_size();
  l.num_stash = 1;
  l.range_del_offset = l.stash_offset + 8;
  l.meta_offset = l.range_del_offset + l.chunk_sums_size();
  l.meta_size = 100;
  l.properties_size = 60;
  *file_size = l.meta_offset + l.meta_size + kLayoutSize + kRocksDBFooterSize;
  return l;
}

TEST(LayoutTest, FixedSlotsKeepTheirKeySize) {
  for (bool without_trailers : {false, true}) {
    uint64_t file_size;
    const Layout in = SlotLayout(3, 12, without_trailers, &file_size);
    ASSERT_TRUE(in.fixed_slots());
    EXPECT_EQ(in.bucket_stride(), kFingerprintsSize);
    Layout out;
    ASSERT_TRUE(Decode(in, file_size, &out).ok());
    EXPECT_TRUE(out.fixed_slots());
    EXPECT_EQ(out.slot_entry_size, 20u);
    EXPECT_EQ(out.slot_key_size, 12u);
    EXPECT_EQ(out.keys_without_trailers, without_trailers);
  }
}

TEST(LayoutTest, EarlierSlotOrderKeepsItsBuckets) {
  // Format 2 stored varints in slot entries and offsets in its buckets.
  uint64_t file_size;
  const Layout in = SlotLayout(2, 12, false, &file_size);
  EXPECT_FALSE(in.fixed_slots());
  EXPECT_EQ(in.bucket_stride(), kBucketSize);
  Layout out;
  ASSERT_TRUE(Decode(in, file_size, &out).ok());
  EXPECT_EQ(out.slot_entry_size, 20u);
  EXPECT_EQ(out.slot_key_size, 0u);
}

TEST(LayoutTest, RefusesImpossibleSlotKeys) {
  uint64_t file_size;
  Layout out;
  // A stored trailer needs 8 bytes of key.
  Layout l = SlotLayout(3, 4, false, &file_size);
  EXPECT_TRUE(Decode(l, file_size, &out).IsCorruption());
  l.keys_without_trailers = true;
  EXPECT_TRUE(Decode(l, file_size, &out).ok());
  // Only slot entries can leave their trailers out.
  l = SmallLayout(&file_size);
  l.keys_without_trailers = true;
  EXPECT_TRUE(Decode(l, file_size, &out).IsCorruption());
}

}  // namespace
}  // namespace rocksdb_cuckoo
