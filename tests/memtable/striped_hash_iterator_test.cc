// StripedHashIterator on its own, over views of a HashSlotIndex, with an
// IndexHarness as the source it asks for views and for one key's versions:
// scans and seeks in memtable order through each key's older versions, over
// one run and over the several runs of a renewed view,
// taking a newer view before it repositions, one-key seeks that stay on the
// sought key's chain without a view, and the checked moves' Corruption on
// keys out of order.
#include "memtable/striped_hash_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/hash_index_harness.h"
#include "tests/support/seek_reference.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo::testing {
namespace {

std::unique_ptr<StripedHashIterator> NewIterator(
    IndexHarness* h, std::shared_ptr<const SortedView> view,
    bool one_key_seeks = false) {
  return std::make_unique<StripedHashIterator>(
      h, std::move(view), h->comparator(), one_key_seeks ? h : nullptr);
}

// "key@seq" where the iterator is, "-" when it is not valid.
std::string At(const StripedHashIterator& iter) {
  if (!iter.Valid()) return "-";
  const Entry e = DecodeEntry(iter.key());
  return e.user_key + "@" + std::to_string(e.seq);
}

// A seek target as RocksDB encodes one.
std::string Target(const std::string& user_key, SequenceNumber seq) {
  return Entry{user_key, seq, kValueTypeForSeek, ""}.MemtableKey();
}
std::string InternalTarget(const std::string& user_key, SequenceNumber seq) {
  return Entry{user_key, seq, kValueTypeForSeek, ""}.InternalKey();
}

// a@5 a@3 | b@9 b@6 b@3 | c@4, inserted out of order.
void AddSmallSet(IndexHarness* h) {
  for (const Entry& e : std::vector<Entry>{{"b", 6, kTypeValue, "b6"},
                                           {"c", 4, kTypeValue, "c4"},
                                           {"a", 3, kTypeValue, "a3"},
                                           {"b", 9, kTypeMerge, "b9"},
                                           {"a", 5, kTypeDeletion, ""},
                                           {"b", 3, kTypeValue, "b3"}}) {
    ASSERT_NE(h->Add(e), nullptr);
  }
}

// b@1 c@2 d@3; returns c's node (null if an insert failed).
HashNode* AddBCD(IndexHarness* h) {
  HashNode* b = h->Add({"b", 1, kTypeValue, ""});
  HashNode* c = h->Add({"c", 2, kTypeValue, ""});
  HashNode* d = h->Add({"d", 3, kTypeValue, ""});
  return b != nullptr && d != nullptr ? c : nullptr;
}

std::vector<std::string> ScanForward(StripedHashIterator* iter) {
  std::vector<std::string> keys;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    keys.push_back(MemtableKeyAt(iter->key()));
  }
  return keys;
}

std::vector<std::string> ScanBackward(StripedHashIterator* iter) {
  std::vector<std::string> keys;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    keys.push_back(MemtableKeyAt(iter->key()));
  }
  std::reverse(keys.begin(), keys.end());
  return keys;
}

TEST(StripedHashIteratorTest, EmptyViewIsNeverValid) {
  IndexHarness h;
  for (bool one_key : {false, true}) {
    auto iter = NewIterator(&h, h.Sort(), one_key);
    iter->SeekToFirst();
    EXPECT_FALSE(iter->Valid());
    iter->SeekToLast();
    EXPECT_FALSE(iter->Valid());
    const std::string target = Target("a", 1);
    iter->Seek(InternalTarget("a", 1), nullptr);
    EXPECT_FALSE(iter->Valid());
    iter->Seek(Slice(), target.data());
    EXPECT_FALSE(iter->Valid());
    iter->SeekForPrev(InternalTarget("a", 1), nullptr);
    EXPECT_FALSE(iter->Valid());
    iter->SeekForPrev(Slice(), target.data());
    EXPECT_FALSE(iter->Valid());
  }
}

TEST(StripedHashIteratorTest, WalksEachKeysVersionsNewestFirstBothWays) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, h.Sort());
  std::vector<std::string> forward;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    forward.push_back(At(*iter));
  }
  EXPECT_EQ(forward, (std::vector<std::string>{"a@5", "a@3", "b@9", "b@6",
                                               "b@3", "c@4"}));
  std::vector<std::string> backward;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    backward.push_back(At(*iter));
  }
  EXPECT_EQ(backward, (std::vector<std::string>{"c@4", "b@3", "b@6", "b@9",
                                                "a@3", "a@5"}));
  // key() is the whole entry: its value too.
  iter->Seek(InternalTarget("b", 6), nullptr);
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(DecodeEntry(iter->key()).value, "b6");
}

TEST(StripedHashIteratorTest, ScansMatchTheMemtableOrder) {
  std::mt19937_64 random(1);
  IndexHarness h;
  std::vector<Entry> entries;
  SequenceNumber seq = 1;
  for (int k = 0; k < 3000; ++k) {
    const std::string key = "key" + std::to_string(random() % 100000);
    for (int v = 0, n = 1 + static_cast<int>(random() % 4); v < n; ++v) {
      entries.push_back({key, seq++, kTypeValue, "v"});
    }
  }
  std::shuffle(entries.begin(), entries.end(), random);
  for (const Entry& e : entries) ASSERT_NE(h.Add(e), nullptr);
  const std::vector<std::string> expected = h.SortedMemtableKeys(entries);
  auto iter = NewIterator(&h, h.Sort());
  EXPECT_EQ(ScanForward(iter.get()), expected);
  EXPECT_EQ(ScanBackward(iter.get()), expected);
}

TEST(StripedHashIteratorTest, MergesTheRunsOfARenewedView) {
  std::mt19937_64 random(9);
  IndexHarness h;
  std::vector<Entry> entries;
  SequenceNumber seq = 1000000;
  SequenceNumber older_seq = 1;
  auto add = [&](const Entry& e) {
    ASSERT_NE(h.Add(e), nullptr);
    entries.push_back(e);
  };
  for (int k = 0; k < 4000; ++k) {
    add({"key" + std::to_string(random() % 100000), seq++, kTypeValue, "v"});
  }
  // Renewals with new keys and with newer and older versions of keys the
  // older runs hold: a user key's versions end up spread over runs.
  std::shared_ptr<const SortedView> view = h.Sort();
  for (int burst : {60, 90, 20}) {
    std::vector<HashNode*> added;
    for (int i = 0; i < burst; ++i) {
      const Entry& old = entries[random() % entries.size()];
      for (const Entry& e :
           {Entry{"key" + std::to_string(random() % 100000), seq++, kTypeValue,
                  "n"},
            Entry{old.user_key, seq++, kTypeValue, "newer"},
            Entry{old.user_key, older_seq++, kTypeValue, "older"}}) {
        HashNode* node = h.Add(e);
        if (node == nullptr) continue;  // a key and sequence already there
        added.push_back(node);
        entries.push_back(e);
      }
    }
    view = std::make_shared<const SortedView>(*view, std::move(added),
                                              h.index()->NumEntries());
  }
  ASSERT_GE(view->num_runs(), 3u);
  const std::vector<std::string> expected = h.SortedMemtableKeys(entries);
  auto iter = NewIterator(&h, view);
  EXPECT_EQ(ScanForward(iter.get()), expected);
  EXPECT_EQ(ScanBackward(iter.get()), expected);

  for (int i = 0; i < 400; ++i) {
    const std::string user_key =
        i % 2 == 0 ? entries[random() % entries.size()].user_key
                   : "key" + std::to_string(random() % 100000);
    const SequenceNumber target_seq =
        i % 3 == 0 ? seq
                   : (i % 3 == 1 ? random() % older_seq
                                 : 1000000 + random() % (seq - 1000000));
    ASSERT_NO_FATAL_FAILURE(ExpectSeeksAsInReference(
        iter.get(), expected, h.comparator(),
        {user_key, target_seq, kValueTypeForSeek, ""}, i % 4 != 0));
  }
}

TEST(StripedHashIteratorTest, SeeksLandAsInTheReference) {
  std::mt19937_64 random(2);
  IndexHarness h;
  std::vector<Entry> entries;
  SequenceNumber seq = 10;
  for (int k = 0; k < 500; ++k) {
    const std::string key = "k" + std::to_string(random() % 2000);
    for (int v = 0, n = 1 + static_cast<int>(random() % 4); v < n; ++v) {
      seq += 1 + random() % 3;  // gaps, for targets between versions
      entries.push_back({key, seq, kTypeValue, "v"});
    }
  }
  for (const Entry& e : entries) ASSERT_NE(h.Add(e), nullptr);
  const std::vector<std::string> sorted = h.SortedMemtableKeys(entries);
  auto less = [&h](const std::string& a, const std::string& b) {
    return h.comparator()(a.data(), b.data()) < 0;
  };
  // Targets on, between, above and below the versions of held keys, and
  // keys not held.
  std::vector<std::pair<std::string, SequenceNumber>> targets;
  for (const Entry& e : entries) {
    targets.push_back({e.user_key, e.seq});
    targets.push_back({e.user_key, e.seq - 1});
    targets.push_back({e.user_key, e.seq + 1});
    targets.push_back({e.user_key, kMaxSequenceNumber});
    targets.push_back({e.user_key, 0});
  }
  for (int i = 0; i < 300; ++i) {
    targets.push_back({"k" + std::to_string(random() % 2500), seq / 2});
  }
  // The view path, whether or not the memtable key is given.
  auto iter = NewIterator(&h, h.Sort());
  for (const auto& t : targets) {
    const std::string target = Target(t.first, t.second);
    const auto lower =
        std::lower_bound(sorted.begin(), sorted.end(), target, less);
    const auto upper =
        std::upper_bound(sorted.begin(), sorted.end(), target, less);
    const std::string want_seek = lower == sorted.end() ? "-" : *lower;
    const std::string want_prev =
        upper == sorted.begin() ? "-" : *std::prev(upper);
    for (bool with_memtable_key : {false, true}) {
      const char* memtable_key = with_memtable_key ? target.data() : nullptr;
      iter->Seek(InternalTarget(t.first, t.second), memtable_key);
      ASSERT_EQ(iter->Valid() ? MemtableKeyAt(iter->key()) : "-", want_seek)
          << t.first << "@" << t.second;
      iter->SeekForPrev(InternalTarget(t.first, t.second), memtable_key);
      ASSERT_EQ(iter->Valid() ? MemtableKeyAt(iter->key()) : "-", want_prev)
          << t.first << "@" << t.second;
    }
  }
}

TEST(StripedHashIteratorTest, PrevFromAKeysNewestGoesToThePreviousKeysOldest) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, h.Sort());
  iter->Seek(InternalTarget("c", 4), nullptr);
  EXPECT_EQ(At(*iter), "c@4");
  iter->Prev();
  EXPECT_EQ(At(*iter), "b@3");
  iter->Seek(InternalTarget("b", 9), nullptr);
  iter->Prev();
  EXPECT_EQ(At(*iter), "a@3");
  iter->SeekToFirst();
  iter->Prev();
  EXPECT_EQ(At(*iter), "-");
}

// With a KeyVersionsSource, a seek given the memtable key walks that key's
// chain alone: no view is taken, and moves past its versions end the walk.
TEST(StripedHashIteratorTest, OneKeySeeksStayOnTheSoughtKeysVersions) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, nullptr, /*one_key_seeks=*/true);
  const std::string b7 = Target("b", 7);
  iter->Seek(InternalTarget("b", 7), b7.data());
  EXPECT_EQ(At(*iter), "b@6");
  iter->Next();
  EXPECT_EQ(At(*iter), "b@3");
  iter->Next();
  EXPECT_EQ(At(*iter), "-");  // not c@4
  // The last version at or above the target's sequence number.
  iter->SeekForPrev(InternalTarget("b", 7), b7.data());
  EXPECT_EQ(At(*iter), "b@9");
  iter->Prev();
  EXPECT_EQ(At(*iter), "-");  // not a@3
  iter->SeekForPrev(InternalTarget("b", 7), b7.data());
  iter->Next();
  EXPECT_EQ(At(*iter), "b@6");
  iter->Prev();
  EXPECT_EQ(At(*iter), "b@9");
  // Below every version, above every version, and a key not held.
  const std::string b2 = Target("b", 2);
  iter->Seek(InternalTarget("b", 2), b2.data());
  EXPECT_EQ(At(*iter), "-");
  const std::string b10 = Target("b", 10);
  iter->SeekForPrev(InternalTarget("b", 10), b10.data());
  EXPECT_EQ(At(*iter), "-");
  const std::string bb = Target("bb", 100);
  iter->Seek(InternalTarget("bb", 100), bb.data());
  EXPECT_EQ(At(*iter), "-");
  EXPECT_EQ(h.sorts(), 0);

  // A version added since is on the chain the next one-key seek walks.
  ASSERT_NE(h.Add({"b", 7, kTypeValue, "b7"}), nullptr);
  iter->Seek(InternalTarget("b", 7), b7.data());
  EXPECT_EQ(At(*iter), "b@7");
  EXPECT_EQ(h.sorts(), 0);

  // Without the memtable key the seek goes through a view, and Next
  // crosses into the next key.
  iter->Seek(InternalTarget("b", 4), nullptr);
  EXPECT_EQ(At(*iter), "b@3");
  iter->Next();
  EXPECT_EQ(At(*iter), "c@4");
  EXPECT_EQ(h.sorts(), 1);
}

TEST(StripedHashIteratorTest, WithoutAVersionsSourceSeeksUseTheView) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, h.Sort());
  const std::string b4 = Target("b", 4);
  iter->Seek(InternalTarget("b", 4), b4.data());
  EXPECT_EQ(At(*iter), "b@3");
  iter->Next();
  EXPECT_EQ(At(*iter), "c@4");
}

TEST(StripedHashIteratorTest, ANullViewIsTakenWhenFirstPositioned) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, nullptr);
  EXPECT_EQ(h.sorts(), 0);
  iter->SeekToLast();
  EXPECT_EQ(At(*iter), "c@4");
  EXPECT_EQ(h.sorts(), 1);
  // Nothing added since: the same view serves every positioning.
  iter->SeekToFirst();
  EXPECT_EQ(At(*iter), "a@5");
  iter->Seek(InternalTarget("b", 100), nullptr);
  EXPECT_EQ(At(*iter), "b@9");
  EXPECT_EQ(h.sorts(), 1);
}

TEST(StripedHashIteratorTest, RepositioningSeesEntriesAddedSince) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, h.Sort());
  iter->SeekToFirst();
  EXPECT_EQ(At(*iter), "a@5");
  ASSERT_NE(h.Add({"0", 1, kTypeValue, ""}), nullptr);
  ASSERT_NE(h.Add({"a", 8, kTypeValue, ""}), nullptr);
  // Moving on keeps the view it has.
  iter->Next();
  EXPECT_EQ(At(*iter), "a@3");
  iter->SeekToFirst();
  EXPECT_EQ(At(*iter), "0@1");
  iter->Next();
  EXPECT_EQ(At(*iter), "a@8");
  ASSERT_NE(h.Add({"d", 2, kTypeValue, ""}), nullptr);
  iter->SeekToLast();
  EXPECT_EQ(At(*iter), "d@2");
  ASSERT_NE(h.Add({"bb", 2, kTypeValue, ""}), nullptr);
  iter->SeekForPrev(InternalTarget("bc", 1), nullptr);
  EXPECT_EQ(At(*iter), "bb@2");
}

// A tailing iterator steps on after later writes: from the last key, Next
// takes the keys added since that sort after it, and not those before.
TEST(StripedHashIteratorTest, NextPastTheLastKeyTakesKeysAddedAfterIt) {
  IndexHarness h;
  ASSERT_NE(h.Add({"b", 1, kTypeValue, ""}), nullptr);
  ASSERT_NE(h.Add({"d", 2, kTypeValue, ""}), nullptr);
  auto iter = NewIterator(&h, h.Sort());
  iter->SeekToLast();
  EXPECT_EQ(At(*iter), "d@2");
  iter->Next();
  EXPECT_EQ(At(*iter), "-");

  iter->SeekToLast();
  for (const Entry& e : std::vector<Entry>{{"a", 3, kTypeValue, ""},
                                           {"c", 4, kTypeValue, ""},
                                           {"f", 5, kTypeValue, ""},
                                           {"e", 6, kTypeValue, ""}}) {
    ASSERT_NE(h.Add(e), nullptr);
  }
  iter->Next();
  EXPECT_EQ(At(*iter), "e@6");
  iter->Next();
  EXPECT_EQ(At(*iter), "f@5");
  iter->Next();
  EXPECT_EQ(At(*iter), "-");
}

TEST(StripedHashIteratorTest, CheckedMovesOnSoundMemoryWalkLikePlainOnes) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, h.Sort());
  std::vector<std::string> forward;
  for (iter->SeekToFirst(); iter->Valid();) {
    forward.push_back(At(*iter));
    ASSERT_OK(iter->NextChecked(false));
  }
  EXPECT_EQ(forward, (std::vector<std::string>{"a@5", "a@3", "b@9", "b@6",
                                               "b@3", "c@4"}));
  std::vector<std::string> backward;
  for (iter->SeekToLast(); iter->Valid();) {
    backward.push_back(At(*iter));
    ASSERT_OK(iter->PrevChecked(false));
  }
  EXPECT_EQ(backward, (std::vector<std::string>{"c@4", "b@3", "b@6", "b@9",
                                                "a@3", "a@5"}));
}

// Overwrites the first byte of a node's user key, as a stray write would.
void DamageFirstKeyByte(HashNode* node, char byte) {
  const EntryKey key = DecodeEntryKey(node->entry());
  *const_cast<char*>(key.user_key.data()) = byte;
}

TEST(StripedHashIteratorTest, CheckedMovesReportKeysOutOfOrder) {
  IndexHarness h;
  HashNode* c = AddBCD(&h);
  ASSERT_NE(c, nullptr);
  auto view = h.Sort();
  DamageFirstKeyByte(c, 'a');  // b, a, d
  h.Reindex(c);

  auto iter = NewIterator(&h, view);
  iter->SeekToFirst();
  Status s = iter->NextChecked(/*allow_data_in_errors=*/false);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("out of order"), std::string::npos);
  EXPECT_EQ(s.ToString().find("62"), std::string::npos) << s.ToString();
  EXPECT_FALSE(iter->Valid());

  // With data allowed in errors, the two keys, in hex.
  iter->SeekToFirst();
  s = iter->NextChecked(/*allow_data_in_errors=*/true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("62 then 61"), std::string::npos) << s.ToString();

  // Backwards: d then a is in order, a then b is not.
  iter->SeekToLast();
  ASSERT_OK(iter->PrevChecked(true));
  EXPECT_EQ(At(*iter), "a@2");
  s = iter->PrevChecked(true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("62 then 61"), std::string::npos) << s.ToString();
  EXPECT_FALSE(iter->Valid());
}

// Records the memtable key of every entry it is handed; fails on
// `fail_on`.
struct RecordingValidator {
  std::vector<std::string> seen;
  std::string fail_on;

  EntryValidator Get() {
    return [this](const char* entry, bool /*allow_data_in_errors*/) {
      const Entry e = DecodeEntry(entry);
      seen.push_back(e.user_key + "@" + std::to_string(e.seq));
      return seen.back() == fail_on ? Status::Corruption("damaged entry")
                                    : Status::OK();
    };
  }
};

TEST(StripedHashIteratorTest, SeekCheckedValidatesWhatTheSeekReads) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, h.Sort());
  RecordingValidator validator;
  // Stops inside b's chain: b's versions down to the one found.
  ASSERT_OK(iter->SeekChecked(InternalTarget("b", 7), nullptr, false,
                              validator.Get()));
  EXPECT_EQ(At(*iter), "b@6");
  EXPECT_EQ(validator.seen, (std::vector<std::string>{"b@9", "b@6"}));
  // Stops on b's newest: it, and the entry before it (another key's).
  validator.seen.clear();
  ASSERT_OK(iter->SeekChecked(InternalTarget("b", 10), nullptr, false,
                              validator.Get()));
  EXPECT_EQ(At(*iter), "b@9");
  EXPECT_EQ(validator.seen, (std::vector<std::string>{"b@9", "a@3"}));
  // The validator's failure is the seek's, and the iterator is invalid.
  validator.seen.clear();
  validator.fail_on = "b@9";
  Status s = iter->SeekChecked(InternalTarget("b", 4), nullptr, false,
                               validator.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("damaged entry"), std::string::npos);
  EXPECT_FALSE(iter->Valid());
  // No validator: only the order checks.
  ASSERT_OK(iter->SeekChecked(InternalTarget("c", 9), nullptr, false,
                              EntryValidator()));
  EXPECT_EQ(At(*iter), "c@4");
}

TEST(StripedHashIteratorTest, OneKeySeekCheckedValidatesTheVersionsWalked) {
  IndexHarness h;
  AddSmallSet(&h);
  auto iter = NewIterator(&h, nullptr, /*one_key_seeks=*/true);
  RecordingValidator validator;
  const std::string b7 = Target("b", 7);
  ASSERT_OK(iter->SeekChecked(InternalTarget("b", 7), b7.data(), false,
                              validator.Get()));
  EXPECT_EQ(At(*iter), "b@6");
  EXPECT_EQ(validator.seen, (std::vector<std::string>{"b@9", "b@6"}));
  // Past every version: all of them were read.
  validator.seen.clear();
  const std::string b2 = Target("b", 2);
  ASSERT_OK(iter->SeekChecked(InternalTarget("b", 2), b2.data(), false,
                              validator.Get()));
  EXPECT_FALSE(iter->Valid());
  EXPECT_EQ(validator.seen, (std::vector<std::string>{"b@9", "b@6", "b@3"}));
  EXPECT_EQ(h.sorts(), 0);
}

// A damaged head the view's search passes over (it compares the prefixes it
// keeps) turns up in the order check against the target.
TEST(StripedHashIteratorTest, SeekCheckedFindsADamagedNeighbour) {
  IndexHarness h;
  HashNode* c = AddBCD(&h);
  ASSERT_NE(c, nullptr);
  auto view = h.Sort();
  DamageFirstKeyByte(c, 'e');  // b, e, d
  h.Reindex(c);
  auto iter = NewIterator(&h, view);
  iter->Seek(InternalTarget("d", 100), nullptr);
  EXPECT_EQ(At(*iter), "d@3");  // the plain seek does not look
  Status s = iter->SeekChecked(InternalTarget("d", 100), nullptr, true,
                               EntryValidator());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("out of order"), std::string::npos);
  EXPECT_FALSE(iter->Valid());
}

}  // namespace
}  // namespace rocksdb_cuckoo::testing
