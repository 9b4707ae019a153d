// Checks a memtable iterator's seeks against a reference: the memtable keys
// it should hold, sorted. For the tests of the striped_hash rep and of its
// iterator over views of one run or several.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/memtable_rep_harness.h"

namespace rocksdb_cuckoo::testing {

// Seeks `iter` to `target` with Seek, then with SeekForPrev, passing the
// memtable key or only the internal key; from each landing it steps forward
// then back, and back then forward. Every stop must be where `expected` (the
// memtable keys sorted by `cmp`) says; the moves stop at the first invalid
// position.
inline void ExpectSeeksAsInReference(MemTableRep::Iterator* iter,
                                     const std::vector<std::string>& expected,
                                     const MemTableRep::KeyComparator& cmp,
                                     const Entry& target,
                                     bool pass_memtable_key) {
  const std::string mkey = target.MemtableKey();
  const std::string ikey = target.InternalKey();
  const char* memtable_key = pass_memtable_key ? mkey.data() : nullptr;
  const long n = static_cast<long>(expected.size());
  auto count_before = [&](bool or_equal) {
    return static_cast<long>(
        std::partition_point(expected.begin(), expected.end(),
                             [&](const std::string& k) {
                               const int c = cmp(k.data(), mkey.data());
                               return c < 0 || (or_equal && c == 0);
                             }) -
        expected.begin());
  };
  const long lower = count_before(/*or_equal=*/false);
  const long upper = count_before(/*or_equal=*/true);
  for (bool for_prev : {false, true}) {
    for (int first_step : {+1, -1}) {
      SCOPED_TRACE(target.user_key + "@" + std::to_string(target.seq) +
                   (for_prev ? " SeekForPrev" : " Seek") +
                   (first_step > 0 ? ", Next first" : ", Prev first"));
      long at;
      if (for_prev) {
        iter->SeekForPrev(ikey, memtable_key);
        at = upper - 1;
      } else {
        iter->Seek(ikey, memtable_key);
        at = lower;
      }
      for (int step : {0, first_step, -first_step}) {
        if (step != 0) {
          if (!iter->Valid()) break;
          if (step > 0) {
            iter->Next();
          } else {
            iter->Prev();
          }
          at += step;
        }
        if (at < 0 || at >= n) {
          EXPECT_FALSE(iter->Valid()) << "at " << at;
          break;
        }
        ASSERT_TRUE(iter->Valid()) << "at " << at;
        EXPECT_EQ(MemtableKeyAt(iter->key()), expected[at]);
      }
    }
  }
}

}  // namespace rocksdb_cuckoo::testing
