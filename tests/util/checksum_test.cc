// The checksums of table files: the algorithms' published check values, one
// answer however the bytes are streamed, and one checksum per chunk.
#include "util/checksum.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::kCRC32c;
using ROCKSDB_NAMESPACE::kNoChecksum;
using ROCKSDB_NAMESPACE::kXXH3;

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rnd(seed);
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rnd());
  return bytes;
}

TEST(ChecksumTest, PublishedCheckValues) {
  const std::string check = "123456789";
  EXPECT_EQ(ComputeChecksum(kCRC32c, check.data(), check.size()), 0xE3069283u);
  EXPECT_EQ(ComputeChecksum(kXXH3, "", 0), 0x2D06800538D394C2ull);
  EXPECT_EQ(ComputeChecksum(kNoChecksum, check.data(), check.size()), 0u);
}

TEST(ChecksumTest, SupportedTypesAndTheirNames) {
  EXPECT_TRUE(IsSupportedChecksum(kXXH3));
  EXPECT_TRUE(IsSupportedChecksum(kCRC32c));
  EXPECT_TRUE(IsSupportedChecksum(kNoChecksum));
  EXPECT_FALSE(IsSupportedChecksum(ROCKSDB_NAMESPACE::kxxHash));
  EXPECT_FALSE(IsSupportedChecksum(ROCKSDB_NAMESPACE::kxxHash64));
  EXPECT_STREQ(ChecksumName(kXXH3), "kXXH3");
  EXPECT_STREQ(ChecksumName(kCRC32c), "kCRC32c");
  EXPECT_STREQ(ChecksumName(ROCKSDB_NAMESPACE::kxxHash), "unsupported");
}

TEST(ChecksumTest, AStreamGivesTheOneShotAnswerHoweverSplit) {
  const std::string data = RandomBytes(100000, 1);
  std::mt19937_64 rnd(2);
  for (auto type : {kCRC32c, kXXH3, kNoChecksum}) {
    ChecksumStream stream(type);
    for (size_t at = 0; at < data.size();) {
      const size_t piece = std::min<size_t>(rnd() % 3000, data.size() - at);
      stream.Update(data.data() + at, piece);
      at += piece;
    }
    EXPECT_EQ(stream.Digest(), ComputeChecksum(type, data.data(), data.size()))
        << ChecksumName(type);
  }
  // One changed byte changes the checksum.
  std::string changed = data;
  changed[777] ^= 1;
  EXPECT_NE(ComputeChecksum(kXXH3, changed.data(), changed.size()),
            ComputeChecksum(kXXH3, data.data(), data.size()));
  EXPECT_NE(ComputeChecksum(kCRC32c, changed.data(), changed.size()),
            ComputeChecksum(kCRC32c, data.data(), data.size()));
}

TEST(ChunkChecksumsTest, OneChecksumPerChunkHoweverTheBytesArrive) {
  constexpr uint64_t kChunk = 4096;
  const std::string region = RandomBytes(3 * kChunk + 1000, 3);
  std::string expected;
  for (size_t at = 0; at < region.size(); at += kChunk) {
    ROCKSDB_NAMESPACE::PutFixed64(
        &expected,
        ComputeChecksum(kXXH3, region.data() + at,
                        std::min<size_t>(kChunk, region.size() - at)));
  }
  std::mt19937_64 rnd(4);
  ChunkChecksums chunks(kXXH3, kChunk);
  for (size_t at = 0; at < region.size();) {
    const size_t piece = std::min<size_t>(rnd() % 5000, region.size() - at);
    chunks.Update(region.data() + at, piece);
    at += piece;
  }
  std::string sums;
  chunks.Finish(&sums);
  EXPECT_EQ(sums.size(), 4u * 8);
  EXPECT_EQ(sums, expected);
  // Finish starts over: the next region's chunks begin at its first byte.
  chunks.Update(region.data(), 10);
  sums.clear();
  chunks.Finish(&sums);
  std::string first;
  ROCKSDB_NAMESPACE::PutFixed64(&first,
                                ComputeChecksum(kXXH3, region.data(), 10));
  EXPECT_EQ(sums, first);
  // An empty region has no chunks.
  sums.clear();
  chunks.Finish(&sums);
  EXPECT_TRUE(sums.empty());
}

}  // namespace
}  // namespace rocksdb_cuckoo
