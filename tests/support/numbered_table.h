// The table the loading and verification tests build: keys "key%08d", each
// with a value of 60 to 99 bytes, and a lookup of every key that tells
// damage (Corruption) from wrong answers.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/status_assertions.h"
#include "tests/support/table_harness.h"

namespace rocksdb_cuckoo::testing {

inline std::string NumberedUserKey(int i) {
  char key[16];
  snprintf(key, sizeof(key), "key%08d", i);
  return key;
}

inline std::string NumberedValue(int i) {
  return std::string(60 + i % 40, static_cast<char>('a' + i % 26));
}

// Internal keys (sequence 1) and values of keys 0 to n - 1.
inline std::vector<std::pair<std::string, std::string>> NumberedEntries(int n) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < n; i++) {
    entries.emplace_back(InternalKeyOf(NumberedUserKey(i), 1, kTypeValue),
                         NumberedValue(i));
  }
  return entries;
}

// Looks up keys 0 to n - 1: each must be found with its value or fail with
// Corruption. Returns how many failed.
inline int CountCorruptLookups(TableHarness* harness, int n) {
  int corrupt = 0;
  for (int i = 0; i < n; i++) {
    const TableHarness::GetResult r = harness->Get(NumberedUserKey(i));
    if (r.status.IsCorruption()) {
      corrupt++;
      continue;
    }
    EXPECT_OK(r.status);
    EXPECT_EQ(r.state, GetContext::kFound) << NumberedUserKey(i);
    EXPECT_EQ(r.value, NumberedValue(i)) << NumberedUserKey(i);
  }
  return corrupt;
}

}  // namespace rocksdb_cuckoo::testing
