// max_successive_merges: on every Merge, RocksDB counts the key's newest
// merge operands in the memtable (through the memtable's dynamic prefix
// iterator) and, at the limit, writes the merged value instead. The
// striped_hash memtable must count as the skip list does, so that both keep
// the same operands and read the same values, and must not sort the
// memtable to count (a sort per Merge made such writes over 100 times
// slower), with a prefix extractor (which RocksDB's prefix seeks use the
// same iterator for) as without.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 30;
constexpr int kMergesPerKey = 12;

struct KeyState {
  std::string value;
  int operands = 0;
  bool operator==(const KeyState& other) const {
    return value == other.value && operands == other.operands;
  }
};

// Merges (and, for some keys, a Put first and a Delete midway) written
// round-robin over the keys; then each key's value and the operands the
// memtable kept for it.
std::vector<KeyState> WriteAndRead(
    const std::shared_ptr<MemTableRepFactory>& memtable,
    bool prefix_extractor) {
  testing::ScratchDb db("successive_merges");
  Options options;
  options.create_if_missing = true;
  options.memtable_factory = memtable;
  options.merge_operator = std::make_shared<testing::CommaAppendOperator>();
  options.max_successive_merges = 3;
  if (prefix_extractor) {
    // "key1" groups key1 and key10..key19.
    options.prefix_extractor.reset(NewFixedPrefixTransform(4));
  }
  EXPECT_OK(db.Open(options));
  for (int k = 0; k < kKeys; k += 3) {
    EXPECT_OK(db->Put(WriteOptions(), "key" + std::to_string(k), "base"));
  }
  for (int round = 0; round < kMergesPerKey; ++round) {
    for (int k = 0; k < kKeys; ++k) {
      const std::string key = "key" + std::to_string(k);
      if (k % 5 == 1 && round == kMergesPerKey / 2) {
        EXPECT_OK(db->Delete(WriteOptions(), key));
      }
      EXPECT_OK(db->Merge(WriteOptions(), key, "m" + std::to_string(round)));
    }
  }
  std::vector<KeyState> states(kKeys);
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = "key" + std::to_string(k);
    EXPECT_OK(db->Get(ReadOptions(), key, &states[k].value));
    std::vector<PinnableSlice> operands(kMergesPerKey + 1);
    GetMergeOperandsOptions merge_options;
    merge_options.expected_max_number_of_operands =
        static_cast<int>(operands.size());
    EXPECT_OK(db->GetMergeOperands(ReadOptions(), db->DefaultColumnFamily(),
                                   key, operands.data(), &merge_options,
                                   &states[k].operands));
  }
  return states;
}

class SuccessiveMergesTest : public ::testing::TestWithParam<bool> {};

TEST_P(SuccessiveMergesTest, CountedAsTheSkipListCountsWithoutSorting) {
  const std::vector<KeyState> skip_list =
      WriteAndRead(std::make_shared<SkipListFactory>(), GetParam());
  // RocksDB did collapse operands: no key kept all of its merges.
  for (const KeyState& state : skip_list) {
    EXPECT_LT(state.operands, kMergesPerKey);
  }
  const auto striped_hash = NewStripedHashMemTableFactory();
  EXPECT_EQ(WriteAndRead(striped_hash, GetParam()), skip_list);
  EXPECT_EQ(striped_hash->GetStats().sorts, 0u);
}

INSTANTIATE_TEST_SUITE_P(PrefixExtractor, SuccessiveMergesTest,
                         ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Fixed4" : "None";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
