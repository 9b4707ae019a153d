// Checks a DB's answers against a model of what it should hold (key to
// value, absent keys left out): Get and batched MultiGet for each key asked
// about, and full iterations in both directions.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo::testing {

using Model = std::map<std::string, std::string>;

// Whether a read may answer an I/O error (one a test injected) instead of
// the model's answer; it may never answer anything else.
enum class IoErrors { kNone, kAllowed };

// Returns how many reads answered an I/O error (each Get and MultiGet key,
// each iteration cut short by one).
inline int ExpectReadsMatchModel(ROCKSDB_NAMESPACE::DB* db, const Model& model,
                                 const std::vector<std::string>& keys,
                                 IoErrors io_errors = IoErrors::kNone) {
  using namespace ROCKSDB_NAMESPACE;
  int errors = 0;
  auto allowed_error = [&](const Status& s) {
    if (io_errors == IoErrors::kAllowed && s.IsIOError()) {
      errors++;
      return true;
    }
    return false;
  };
  // An absent key is NotFound: never an old value, never NotFound for a key
  // that has one.
  auto expect_answer = [&](const std::string& key, const Status& s,
                           const std::string& value) {
    if (allowed_error(s)) return;
    const auto it = model.find(key);
    if (it == model.end()) {
      EXPECT_TRUE(s.IsNotFound())
          << key << ": " << s.ToString() << " " << value;
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

  // An iteration cut short must say why.
  std::unique_ptr<Iterator> iter(db->NewIterator(ReadOptions()));
  auto forward = model.begin();
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), ++forward) {
    if (forward == model.end()) {
      ADD_FAILURE() << "iterated past the model's last key";
      return errors;
    }
    EXPECT_EQ(iter->key().ToString(), forward->first);
    EXPECT_EQ(iter->value().ToString(), forward->second);
  }
  if (!allowed_error(iter->status())) {
    EXPECT_OK(iter->status());
    EXPECT_EQ(forward, model.end());
  }
  auto backward = model.rbegin();
  for (iter->SeekToLast(); iter->Valid(); iter->Prev(), ++backward) {
    if (backward == model.rend()) {
      ADD_FAILURE() << "iterated past the model's first key";
      return errors;
    }
    EXPECT_EQ(iter->key().ToString(), backward->first);
    EXPECT_EQ(iter->value().ToString(), backward->second);
  }
  if (!allowed_error(iter->status())) {
    EXPECT_OK(iter->status());
    EXPECT_EQ(backward, model.rend());
  }
  return errors;
}

// Everything a forward scan sees, at `snapshot` when given.
using Contents = std::vector<std::pair<std::string, std::string>>;
inline Contents ContentsOf(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::Snapshot* snapshot = nullptr) {
  ROCKSDB_NAMESPACE::ReadOptions read_options;
  read_options.snapshot = snapshot;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
      db->NewIterator(read_options));
  Contents contents;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    contents.emplace_back(it->key().ToString(), it->value().ToString());
  }
  EXPECT_OK(it->status());
  return contents;
}

}  // namespace rocksdb_cuckoo::testing
