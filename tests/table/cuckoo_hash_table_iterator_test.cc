// CuckooHashTableIterator: order, Seek and Prev over every read mode.
#include "table/cuckoo_hash_table_iterator.h"

#include <gtest/gtest.h>

#include "tests/support/cuckoo_hash_table_fixture.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo::testing {
namespace {

class CuckooHashTableIteratorTest : public CuckooHashTableTest {};

TEST_P(CuckooHashTableIteratorTest, IteratorOrderSeekAndPrev) {
  auto h = Harness();
  Entries entries;
  for (int i = 0; i < 1000; i++) {
    const std::string key = NumberedKey(i * 2);
    entries.emplace_back(InternalKeyOf(key, 100 + i % 3, kTypeValue),
                         "v" + std::to_string(i));
    if (i % 10 == 0) {  // an older version of some keys
      entries.emplace_back(InternalKeyOf(key, 50, kTypeMerge), "old");
    }
  }
  ASSERT_OK(h->Build(entries));
  std::sort(entries.begin(), entries.end(), [&](auto& a, auto& b) {
    return h->icomp().Compare(a.first, b.first) < 0;
  });
  auto it = Iter(h.get());
  EXPECT_EQ(ScanForward(it.get()), entries);
  EXPECT_EQ(ScanBackward(it.get()), entries);
  EXPECT_TRUE(it->IsKeyPinned());
  EXPECT_TRUE(it->IsValuePinned());

  // Seek to a missing key lands on the next one; SeekForPrev on the previous.
  it->Seek(InternalKeyOf("key00003", kMaxSequenceNumber, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(ExtractUserKey(it->key()).ToString(), "key00004");
  it->SeekForPrev(InternalKeyOf("key00003", 0, kTypeDeletion));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(ExtractUserKey(it->key()).ToString(), "key00002");
  // Exact match for SeekForPrev stays on it.
  it->SeekForPrev(entries[7].first);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), entries[7].first);
  // Between two versions of one key: Seek picks the older, SeekForPrev newer.
  it->Seek(InternalKeyOf("key00000", 70, kTypeValue));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(GetInternalKeySeqno(it->key()), 50u);
  it->SeekForPrev(InternalKeyOf("key00000", 70, kTypeValue));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(GetInternalKeySeqno(it->key()), 100u);
  // Past both ends.
  it->Seek(InternalKeyOf("zzz", kMaxSequenceNumber, kValueTypeForSeek));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(InternalKeyOf("a", 0, kTypeValue));
  EXPECT_FALSE(it->Valid());
  it->SeekToFirst();
  it->Prev();
  EXPECT_FALSE(it->Valid());
}

INSTANTIATE_TEST_SUITE_P(ReadModes, CuckooHashTableIteratorTest, ReadModes(),
                         ReadModeName);

}  // namespace
}  // namespace rocksdb_cuckoo::testing
