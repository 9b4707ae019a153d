// Keys, entries and expected heads for the tests of the striped_hash
// memtable's sorted runs and views (over IndexHarness).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/support/hash_index_harness.h"
#include "tests/support/test_comparators.h"

namespace rocksdb_cuckoo::testing {

// The three kinds of order a run sorts by: through bytewise and reverse
// bytewise prefixes, and through the comparator alone.
struct Order {
  const char* name;
  const Comparator* user;
  KeyOrder order;
};

inline const LengthFirstComparator kLengthFirst;

inline std::vector<Order> Orders() {
  return {{"Bytewise", BytewiseComparator(), KeyOrder::kBytewise},
          {"ReverseBytewise", ReverseBytewiseComparator(),
           KeyOrder::kReverseBytewise},
          {"LengthFirst", &kLengthFirst, KeyOrder::kOther}};
}

// Keys the prefix sort must get right: empty, shorter than 8 bytes, equal
// in their first 8 bytes (ties for the comparator), zero bytes that the
// zero-padded prefix cannot tell from padding, 0xff bytes, and prefixes of
// one another.
inline std::vector<std::string> EdgeKeys() {
  return {"",
          std::string(1, '\0'),
          std::string(2, '\0'),
          "a",
          std::string("a\0", 2),
          std::string("a\0\0\0\0\0\0\0", 8),
          std::string("a\0\0\0\0\0\0\0\0", 9),
          "ab",
          "abcdefg",
          "abcdefgh",
          "abcdefgh0",
          "abcdefgh1",
          "abcdefghij",
          std::string(8, '\xff'),
          std::string(9, '\xff'),
          "\x80"};
}

// `n` distinct keys: the edge keys and random ones of each such kind.
inline std::vector<std::string> MakeKeys(std::mt19937_64* random, size_t n) {
  std::set<std::string> keys;
  for (const std::string& key : EdgeKeys()) keys.insert(key);
  while (keys.size() < n) {
    std::string key;
    switch ((*random)() % 4) {
      case 0:
        key = "samepref" + std::to_string((*random)() % (4 * n));
        break;
      case 1:
        key = std::string(1 + (*random)() % 7,
                          static_cast<char>('a' + (*random)() % 3));
        break;
      case 2:
        for (size_t i = 0, len = 1 + (*random)() % 12; i < len; ++i) {
          key.push_back(
              static_cast<char>((*random)() % 3 == 0 ? 0 : (*random)() & 0xff));
        }
        break;
      default:
        key = "k" + std::to_string((*random)() % (4 * n));
        break;
    }
    keys.insert(key);
  }
  return {keys.begin(), keys.end()};
}

// 1-3 versions of each key, with distinct sequence numbers from `*seq` on,
// shuffled (so versions arrive out of sequence order).
inline std::vector<Entry> MakeEntries(std::mt19937_64* random,
                                      const std::vector<std::string>& keys,
                                      SequenceNumber* seq) {
  std::vector<Entry> entries;
  for (const std::string& key : keys) {
    for (size_t v = 0, n = 1 + (*random)() % 3; v < n; ++v) {
      entries.push_back({key, (*seq)++, kTypeValue, "v"});
    }
  }
  std::shuffle(entries.begin(), entries.end(), *random);
  return entries;
}

// "key@seq" of each node, for readable comparisons.
inline std::vector<std::string> Describe(const std::vector<HashNode*>& nodes) {
  std::vector<std::string> out;
  for (const HashNode* node : nodes) {
    const Entry e = DecodeEntry(node->entry());
    out.push_back(e.user_key + "@" + std::to_string(e.seq));
  }
  return out;
}

// What a view of `entries` must hold: each user key's newest entry, in the
// memtable's order.
inline std::vector<std::string> ExpectedHeads(
    const IndexHarness& h, const std::vector<Entry>& entries) {
  std::map<std::string, Entry> newest;
  for (const Entry& e : entries) {
    auto it = newest.find(e.user_key);
    if (it == newest.end() || it->second.seq < e.seq) newest[e.user_key] = e;
  }
  std::vector<Entry> heads;
  for (const auto& kv : newest) heads.push_back(kv.second);
  std::sort(heads.begin(), heads.end(), [&h](const Entry& a, const Entry& b) {
    return h.comparator()(a.MemtableKey().data(), b.MemtableKey().data()) < 0;
  });
  std::vector<std::string> out;
  for (const Entry& e : heads) {
    out.push_back(e.user_key + "@" + std::to_string(e.seq));
  }
  return out;
}

// A seek target as RocksDB encodes one.
std::string Target(const std::string& user_key, SequenceNumber seq) {
  return Entry{user_key, seq, kValueTypeForSeek, ""}.MemtableKey();
}

// A test over one kind of order, with an index and a record of what was
// added to it.
class SortedHeadsTest : public ::testing::TestWithParam<Order> {
 protected:
  SortedHeadsTest() : h_(GetParam().user, GetParam().order) {}

  // Adds entries to the index and to the record of what was added.
  std::vector<HashNode*> AddAll(const std::vector<Entry>& entries) {
    std::vector<HashNode*> nodes;
    for (const Entry& e : entries) {
      HashNode* node = h_.Add(e);
      EXPECT_NE(node, nullptr) << e.user_key << "@" << e.seq;
      nodes.push_back(node);
      added_.push_back(e);
    }
    return nodes;
  }

  IndexHarness h_;
  std::vector<Entry> added_;
};

}  // namespace rocksdb_cuckoo::testing
