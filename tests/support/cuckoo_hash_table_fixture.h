// The fixture the CuckooHashTable builder, reader and iterator tests share:
// tables built straight from internal keys, without a DB, read mapped and
// loaded, with and without identity hashing.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb/merge_operator.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "table/internal_iterator.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/table_harness.h"

namespace rocksdb_cuckoo::testing {

using namespace ROCKSDB_NAMESPACE;

using Entries = std::vector<std::pair<std::string, std::string>>;

// Merges by joining operands with commas.
class JoinMerge : public AssociativeMergeOperator {
 public:
  bool Merge(const Slice&, const Slice* existing, const Slice& value,
             std::string* result, Logger*) const override {
    *result = existing ? existing->ToString() + "," + value.ToString()
                       : value.ToString();
    return true;
  }
  const char* Name() const override { return "JoinMerge"; }
};

struct Param {
  bool mmap;
  bool identity;
};

// Every read mode, for INSTANTIATE_TEST_SUITE_P, and their test names.
inline auto ReadModes() {
  return ::testing::Values(Param{true, false}, Param{false, false},
                           Param{true, true}, Param{false, true});
}
inline std::string ReadModeName(const ::testing::TestParamInfo<Param>& info) {
  return std::string(info.param.mmap ? "Mmap" : "Loaded") +
         (info.param.identity ? "Identity" : "Hashed");
}

// "key00000", "key00001", ...: keys of one size, sorted by number.
inline std::string NumberedKey(int i) {
  char key[16];
  snprintf(key, sizeof(key), "key%05d", i);
  return key;
}

class CuckooHashTableTest : public ::testing::TestWithParam<Param> {
 protected:
  std::unique_ptr<TableHarness> Harness(bool slot_ordered = true) {
    CuckooHashTableOptions options;
    options.identity_as_first_hash = GetParam().identity;
    options.slot_ordered = slot_ordered;
    static int counter = 0;
    return std::make_unique<TableHarness>(
        NewCuckooHashTableFactory(options),
        ::testing::TempDir() + "/cuckoo_table_test_" +
            std::to_string(getpid()) + "_" + std::to_string(counter++) + ".sst",
        GetParam().mmap, std::make_shared<JoinMerge>());
  }

  // Collects every entry through the iterator, forward.
  static Entries ScanForward(InternalIterator* it) {
    Entries out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }
  static Entries ScanBackward(InternalIterator* it) {
    Entries out;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
    std::reverse(out.begin(), out.end());
    return out;
  }
  std::unique_ptr<InternalIterator> Iter(TableHarness* h) {
    return std::unique_ptr<InternalIterator>(
        h->reader()->NewIterator(read_options_, nullptr, nullptr, false,
                                 TableReaderCaller::kUserIterator));
  }
  ReadOptions read_options_;
};

}  // namespace rocksdb_cuckoo::testing
