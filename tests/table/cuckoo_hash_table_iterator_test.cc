// CuckooHashTableIterator: order, Seek and Prev over every read mode.
#include "table/cuckoo_hash_table_iterator.h"

#include <gtest/gtest.h>

#include "tests/support/cuckoo_hash_table_fixture.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"
#include "util/recycled_buffers.h"

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

// A file larger than PinnedFileMemory reads whole at open, of 100-byte
// values, sorted.
Entries LargeFileEntries(int n) {
  Entries entries;
  for (int i = 0; i < n; i++) {
    entries.emplace_back(InternalKeyOf(NumberedKey(i), 7, kTypeValue),
                         std::string(100, static_cast<char>('a' + i % 26)));
  }
  return entries;
}

std::unique_ptr<InternalIterator> CompactionIter(
    TableHarness* h, const ReadOptions& read_options = ReadOptions()) {
  return std::unique_ptr<InternalIterator>(h->reader()->NewIterator(
      read_options, nullptr, nullptr, false, TableReaderCaller::kCompaction));
}

// Where an iterator's first value lies in memory.
const char* FirstValueAt(InternalIterator* it) {
  it->SeekToFirst();
  EXPECT_TRUE(it->Valid());
  return it->Valid() ? it->value().data() : nullptr;
}

TEST_P(CuckooHashTableIteratorTest,
       ACompactionReadsAFileNobodyLoadedFromACopy) {
  auto h = Harness();
  const Entries entries = LargeFileEntries(20000);
  ASSERT_OK(h->Build(entries));
  const size_t memory_at_open = h->reader()->ApproximateMemoryUsage();
  auto compaction = CompactionIter(h.get());
  EXPECT_EQ(ScanForward(compaction.get()), entries);
  const char* copy_value = FirstValueAt(compaction.get());
  if (!GetParam().mmap) {
    // The table's own memory holds no more than at open.
    EXPECT_EQ(h->reader()->ApproximateMemoryUsage(), memory_at_open);
  }
  // A user's scan reads the file's own memory (loading it): the copy is
  // elsewhere. A mapped file is its mapping: nothing to copy.
  auto user = Iter(h.get());
  EXPECT_EQ(ScanForward(user.get()), entries);
  if (GetParam().mmap) {
    EXPECT_EQ(FirstValueAt(user.get()), copy_value);
  } else {
    EXPECT_NE(FirstValueAt(user.get()), copy_value);
    EXPECT_GT(h->reader()->ApproximateMemoryUsage(),
              memory_at_open + h->FileSize() / 2);
    // The copy's pages go to be reused when the scan ends.
    compaction.reset();
    EXPECT_GE(RecycledBuffers::Shared().pooled_bytes(), h->FileSize());
  }
}

TEST_P(CuckooHashTableIteratorTest, ACompactionReadsALoadedFileInPlace) {
  auto h = Harness();
  const Entries entries = LargeFileEntries(20000);
  ASSERT_OK(h->Build(entries));
  auto user = Iter(h.get());
  EXPECT_EQ(ScanForward(user.get()), entries);
  auto compaction = CompactionIter(h.get());
  EXPECT_EQ(ScanForward(compaction.get()), entries);
  EXPECT_EQ(FirstValueAt(compaction.get()), FirstValueAt(user.get()));
}

TEST_P(CuckooHashTableIteratorTest, ACompactionsCopyIsCheckedEvenUnasked) {
  if (GetParam().mmap) GTEST_SKIP() << "no copy of a mapped file";
  auto h = Harness();
  const Entries entries = LargeFileEntries(20000);
  ASSERT_OK(h->Build(entries));
  // Damage one value byte on disk after the open: only the copy reads it.
  std::string bytes = ReadWholeFile(h->path());
  const size_t at = bytes.find(std::string(100, 'q'));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 50] = 'Q';
  ASSERT_TRUE(WriteWholeFile(h->path(), bytes));
  ReadOptions unchecked;
  unchecked.verify_checksums = false;
  auto it = CompactionIter(h.get(), unchecked);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ASSERT_EQ(it->value().ToString().find('Q'), std::string::npos)
        << "damaged value handed on";
  }
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

INSTANTIATE_TEST_SUITE_P(ReadModes, CuckooHashTableIteratorTest, ReadModes(),
                         ReadModeName);

}  // namespace
}  // namespace rocksdb_cuckoo::testing
