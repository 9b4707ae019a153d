// The user comparator is found behind exactly RocksDB's own
// MemTable::KeyComparator (what every memtable gets), and behind nothing
// else: another KeyComparator gives null, never a wrong comparator.
#include "memtable/memtable_user_comparator.h"

#include <gtest/gtest.h>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "rocksdb/comparator.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

TEST(MemTableUserComparatorTest, FoundBehindRocksDBsKeyComparator) {
  const MemTable::KeyComparator bytewise{
      InternalKeyComparator(BytewiseComparator())};
  EXPECT_EQ(UserComparatorOf(bytewise), BytewiseComparator());
  const MemTable::KeyComparator reverse{
      InternalKeyComparator(ReverseBytewiseComparator())};
  EXPECT_EQ(UserComparatorOf(reverse), ReverseBytewiseComparator());
}

// A KeyComparator of someone else's: the layout of its object is unknown.
class OtherKeyComparator : public MemTableRep::KeyComparator {
 public:
  int operator()(const char* a, const char* b) const override {
    return strcmp(a, b);
  }
  int operator()(const char* a, const Slice& b) const override {
    return Slice(a).compare(b);
  }
};

TEST(MemTableUserComparatorTest, NullBehindAnyOtherKeyComparator) {
  const OtherKeyComparator other;
  EXPECT_EQ(UserComparatorOf(other), nullptr);
}

}  // namespace
}  // namespace rocksdb_cuckoo
