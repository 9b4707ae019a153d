// Checks a DB's answers against a model of what it should hold (key to
// value, absent keys left out): Get and batched MultiGet for each key asked
// about, and full iterations in both directions.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "tests/status_assertions.h"

namespace rocksdb_cuckoo::testing {

using Model = std::map<std::string, std::string>;

inline void ExpectReadsMatchModel(ROCKSDB_NAMESPACE::DB* db, const Model& model,
                                  const std::vector<std::string>& keys) {
  using namespace ROCKSDB_NAMESPACE;
  auto expect_answer = [&](const std::string& key, const Status& s,
                           const std::string& value) {
    const auto it = model.find(key);
    if (it == model.end()) {
      EXPECT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
    } else {
      EXPECT_OK(s);
      EXPECT_EQ(value, it->second) << key;
    }
  };
  for (const std::string& key : keys) {
    std::string value;
    const Status s = db->Get(ReadOptions(), key, &value);
    expect_answer(key, s, value);
  }
  std::vector<Slice> key_slices(keys.begin(), keys.end());
  std::vector<PinnableSlice> values(keys.size());
  std::vector<Status> statuses(keys.size());
  db->MultiGet(ReadOptions(), db->DefaultColumnFamily(), keys.size(),
               key_slices.data(), values.data(), statuses.data());
  for (size_t k = 0; k < keys.size(); k++) {
    expect_answer(keys[k], statuses[k], values[k].ToString());
  }

  std::unique_ptr<Iterator> iter(db->NewIterator(ReadOptions()));
  auto forward = model.begin();
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), ++forward) {
    ASSERT_NE(forward, model.end());
    EXPECT_EQ(iter->key().ToString(), forward->first);
    EXPECT_EQ(iter->value().ToString(), forward->second);
  }
  EXPECT_OK(iter->status());
  EXPECT_EQ(forward, model.end());
  auto backward = model.rbegin();
  for (iter->SeekToLast(); iter->Valid(); iter->Prev(), ++backward) {
    ASSERT_NE(backward, model.rend());
    EXPECT_EQ(iter->key().ToString(), backward->first);
    EXPECT_EQ(iter->value().ToString(), backward->second);
  }
  EXPECT_OK(iter->status());
  EXPECT_EQ(backward, model.rend());
}

}  // namespace rocksdb_cuckoo::testing
