// Structural checks of RocksDB's properties and metaindex blocks before
// RocksDB's own parser (which asserts) reads them: every entry of a block
// BlockBuilder wrote is visited with its value's place, and damaged blocks
// are refused at every truncation, never read out of bounds.
#include "table/meta_block_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "table/block_based/block_builder.h"
#include "table/external_file_seqno.h"
#include "table/sst_file_writer_collectors.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

// A properties-like block: sorted keys, the global seqno among them.
std::string PropertiesBlock() {
  BlockBuilder builder(/*block_restart_interval=*/2);
  std::string seqno;
  PutFixed64(&seqno, 0);
  builder.Add("rocksdb.data.size", "123");
  builder.Add(ExternalSstFilePropertyNames::kGlobalSeqno, seqno);
  builder.Add("rocksdb.external_sst_file.version", "\x02\0\0\0");
  builder.Add("rocksdb.num.entries", "4");
  return builder.Finish().ToString();
}

TEST(MetaBlockCheckTest, VisitsEveryEntryWithItsValue) {
  const std::string block = PropertiesBlock();
  std::vector<std::string> keys;
  ASSERT_TRUE(WalkMetaBlock(block, [&](const BlockEntry& e) {
    keys.push_back(e.key);
    if (e.key == "rocksdb.data.size") {
      EXPECT_EQ(block.substr(e.value_offset, e.value_size), "123");
    }
    return true;
  }));
  EXPECT_EQ(keys,
            (std::vector<std::string>{
                "rocksdb.data.size", ExternalSstFilePropertyNames::kGlobalSeqno,
                "rocksdb.external_sst_file.version", "rocksdb.num.entries"}));
}

TEST(MetaBlockCheckTest, FindsTheGlobalSeqnoFieldInPlace) {
  std::string block = PropertiesBlock();
  uint64_t offset = 0;
  ASSERT_TRUE(FindGlobalSeqnoField(block, &offset));
  EXPECT_EQ(DecodeFixed64(block.data() + offset), 0u);
  // What ingestion does: overwrite the value in place.
  EncodeFixed64(&block[offset], 99);
  uint64_t again = 0;
  ASSERT_TRUE(FindGlobalSeqnoField(block, &again));
  EXPECT_EQ(again, offset);
}

TEST(MetaBlockCheckTest, RefusesEveryTruncationAndTheEmptyBlock) {
  const std::string block = PropertiesBlock();
  for (size_t size = 0; size < block.size(); size++) {
    const std::string cut = block.substr(0, size);
    EXPECT_FALSE(WalkMetaBlock(cut, [](const BlockEntry&) { return true; }))
        << size;
  }
}

TEST(MetaBlockCheckTest, RefusesARestartPointInsideAnEntry) {
  std::string block = PropertiesBlock();
  const uint32_t restarts = DecodeFixed32(block.data() + block.size() - 4);
  ASSERT_EQ(restarts, 2u);
  // The second restart point, moved one byte into its entry.
  char* second = &block[block.size() - 4 - 4];
  EncodeFixed32(second, DecodeFixed32(second) + 1);
  EXPECT_FALSE(WalkMetaBlock(block, [](const BlockEntry&) { return true; }));
}

}  // namespace
}  // namespace rocksdb_cuckoo
