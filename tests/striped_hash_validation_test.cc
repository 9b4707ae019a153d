// The checked operations behind RocksDB 9.x's paranoid_memory_checks
// (GetAndValidate, NextAndValidate, PrevAndValidate, SeekAndValidate): on a
// sound memtable they answer exactly what the plain operations answer; on
// damaged memory they return Corruption instead of a wrong answer.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_iterator.h"
#include "memtable/striped_hash_rep.h"
#include "tests/memtable_rep_harness.h"

namespace rocksdb_cuckoo::testing {
namespace {

StripedHashRep* Rep(RepHarness* h) {
  return static_cast<StripedHashRep*>(h->rep());
}

std::unique_ptr<StripedHashIterator> NewIterator(RepHarness* h) {
  return std::unique_ptr<StripedHashIterator>(
      static_cast<StripedHashIterator*>(h->rep()->GetIterator(nullptr)));
}

// Inserts an entry and returns where its bytes live, so a test can damage
// them as a stray write would.
char* InsertAndKeep(RepHarness* h, const Entry& entry) {
  const std::string encoded = entry.Encoded();
  char* buf = nullptr;
  KeyHandle handle = h->rep()->Allocate(encoded.size(), &buf);
  memcpy(buf, encoded.data(), encoded.size());
  EXPECT_TRUE(h->rep()->InsertKey(handle));
  return buf;
}

std::vector<Entry> GetChecked(RepHarness* h, const std::string& user_key,
                              SequenceNumber seq, bool allow_data,
                              Status* status) {
  std::vector<Entry> seen;
  LookupKey lookup(user_key, seq);
  *status = Rep(h)->GetChecked(
      lookup, &seen,
      [](void* arg, const char* entry) {
        static_cast<std::vector<Entry>*>(arg)->push_back(DecodeEntry(entry));
        return true;
      },
      allow_data);
  return seen;
}

std::vector<Entry> SomeEntries() {
  std::vector<Entry> entries;
  for (const char* key : {"apple", "banana", "cherry", "date"}) {
    for (SequenceNumber seq : {9, 5, 2}) {
      entries.push_back(
          {key, seq, kTypeValue, std::string(key) + std::to_string(seq)});
    }
  }
  return entries;
}

TEST(StripedHashValidationTest, CheckedGetAnswersLikeGet) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  for (const char* key : {"apple", "cherry", "missing"}) {
    for (SequenceNumber seq : {1, 5, 7, 100}) {
      Status s;
      const std::vector<Entry> checked = GetChecked(&h, key, seq, true, &s);
      ASSERT_TRUE(s.ok()) << s.ToString();
      const std::vector<Entry> plain = h.Get(key, seq);
      ASSERT_EQ(checked.size(), plain.size()) << key << "@" << seq;
      for (size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(checked[i].Encoded(), plain[i].Encoded());
      }
    }
  }
}

TEST(StripedHashValidationTest, CheckedMovesWalkLikePlainMoves) {
  RepHarness h;
  const std::vector<Entry> entries = SomeEntries();
  for (const Entry& e : entries) ASSERT_TRUE(h.Insert(e));
  const std::vector<std::string> sorted = h.SortedMemtableKeys(entries);

  auto it = NewIterator(&h);
  std::vector<std::string> forward;
  Status s;
  for (it->SeekToFirst(); it->Valid() && s.ok(); s = it->NextChecked(true)) {
    forward.push_back(MemtableKeyAt(it->key()));
  }
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(forward, sorted);

  std::vector<std::string> backward;
  for (it->SeekToLast(); it->Valid() && s.ok(); s = it->PrevChecked(true)) {
    backward.insert(backward.begin(), MemtableKeyAt(it->key()));
  }
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(backward, sorted);

  // Seek to every entry's own key, and between versions.
  for (const Entry& e : entries) {
    const std::string target = e.MemtableKey();
    s = it->SeekChecked(Slice(), target.data(), true);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(MemtableKeyAt(it->key()), target);
    Entry between = e;
    between.seq -= 1;
    s = it->SeekChecked(Slice(), between.MemtableKey().data(), true);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

TEST(StripedHashValidationTest, DamagedVersionChainIsCorruption) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"apple", 9, kTypeValue, "new"}));
  char* older = InsertAndKeep(&h, {"apple", 5, kTypeValue, "old"});
  // A stray write turns the older version's key into another key.
  char* user_key = strstr(older, "apple");
  ASSERT_NE(user_key, nullptr);
  user_key[0] = 'b';

  Status s;
  GetChecked(&h, "apple", 100, /*allow_data=*/false, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  const std::string apple_hex = Slice("apple").ToString(/*hex=*/true);
  EXPECT_EQ(s.ToString().find(apple_hex), std::string::npos)
      << "no key data unless allowed: " << s.ToString();
  GetChecked(&h, "apple", 100, /*allow_data=*/true, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(apple_hex), std::string::npos) << s.ToString();
}

TEST(StripedHashValidationTest, KeysOutOfOrderAreCorruption) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"a", 1, kTypeValue, "1"}));
  char* middle = InsertAndKeep(&h, {"b", 1, kTypeValue, "2"});
  ASSERT_TRUE(h.Insert({"c", 1, kTypeValue, "3"}));
  auto it = NewIterator(&h);  // sorted now: a, b, c
  char* user_key = strchr(middle + 1, 'b');
  ASSERT_NE(user_key, nullptr);
  user_key[0] = 'z';  // a, z, c: z > c

  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  Status s = it->NextChecked(false);  // a -> z: in order
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = it->NextChecked(false);  // z -> c: out of order
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());

  it->SeekToLast();  // c
  ASSERT_TRUE(it->Valid());
  s = it->PrevChecked(true);  // c <- z: out of order
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
}

}  // namespace
}  // namespace rocksdb_cuckoo::testing
