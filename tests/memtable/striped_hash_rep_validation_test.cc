// The checked operations behind RocksDB 9.x's paranoid_memory_checks
// (GetAndValidate, NextAndValidate, PrevAndValidate, SeekAndValidate), the
// per-entry validation callback 10.7 added to them
// (memtable_verify_per_key_checksum_on_seek) and the checked MultiGet of
// 11.1: on a sound memtable they answer exactly what the plain operations
// answer; on damaged memory they return Corruption instead of a wrong answer,
// and the validation callback's failure as it is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "memtable/memtable_rep_compat.h"
#include "memtable/striped_hash_iterator.h"
#include "memtable/striped_hash_memtable.h"
#include "memtable/striped_hash_rep.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/memtable_rep_harness.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo::testing {
namespace {

StripedHashRep* Rep(RepHarness* h) { return h->striped_rep(); }

std::unique_ptr<StripedHashIterator> NewIterator(RepHarness* h) {
  return std::unique_ptr<StripedHashIterator>(
      static_cast<StripedHashIterator*>(h->rep()->GetIterator(nullptr)));
}

// The iterator whose seeks given the memtable key stay on that user key.
std::unique_ptr<StripedHashIterator> NewOneKeyIterator(RepHarness* h) {
  return std::unique_ptr<StripedHashIterator>(static_cast<StripedHashIterator*>(
      h->rep()->GetDynamicPrefixIterator(nullptr)));
}

// An EntryValidator that records the memtable key of every entry it is
// handed, and the allow_data_in_errors it got, and fails (as RocksDB's
// checksum check would) on the entry whose memtable key is `fail_on`.
struct RecordingValidator {
  std::vector<std::string> seen;
  std::vector<bool> allow_data;
  std::string fail_on;

  EntryValidator Get() {
    return [this](const char* entry, bool allow_data_in_errors) {
      seen.push_back(MemtableKeyAt(entry));
      allow_data.push_back(allow_data_in_errors);
      return seen.back() == fail_on
                 ? Status::Corruption("recording validator: damaged entry")
                 : Status::OK();
    };
  }
};

std::string KeyOf(const std::string& user_key, SequenceNumber seq) {
  return Entry{user_key, seq, kTypeValue, ""}.MemtableKey();
}

// Seek targets carry kValueTypeForSeek, as RocksDB's do.
std::string SeekTarget(const std::string& user_key, SequenceNumber seq) {
  return Entry{user_key, seq, kValueTypeForSeek, ""}.MemtableKey();
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

// Two versions of "apple" (9 and 5); a stray write then turns the older
// version's key into another key.
void InsertDamagedChain(RepHarness* h) {
  ASSERT_TRUE(h->Insert({"apple", 9, kTypeValue, "new"}));
  char* older = InsertAndKeep(h, {"apple", 5, kTypeValue, "old"});
  char* user_key = strstr(older, "apple");
  ASSERT_NE(user_key, nullptr);
  user_key[0] = 'b';
}

std::vector<Entry> GetChecked(RepHarness* h, const std::string& user_key,
                              SequenceNumber seq, bool allow_data,
                              Status* status,
                              const EntryValidator& validate_entry = nullptr) {
  std::vector<Entry> seen;
  LookupKey lookup(user_key, seq);
  *status = Rep(h)->GetChecked(
      lookup, &seen,
      [](void* arg, const char* entry) {
        static_cast<std::vector<Entry>*>(arg)->push_back(DecodeEntry(entry));
        return true;
      },
      allow_data, validate_entry);
  return seen;
}

std::vector<std::string> EncodedAll(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const Entry& e : entries) out.push_back(e.Encoded());
  return out;
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
    s = it->SeekChecked(Slice(), target.data(), true, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(MemtableKeyAt(it->key()), target);
    Entry between = e;
    between.seq -= 1;
    s = it->SeekChecked(Slice(), between.MemtableKey().data(), true, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

TEST(StripedHashValidationTest, DamagedVersionChainIsCorruption) {
  RepHarness h;
  ASSERT_NO_FATAL_FAILURE(InsertDamagedChain(&h));

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

// A key damaged after a checked move went over its view is found where a
// move lands on it: the index does not find the entry under its new key.
TEST(StripedHashValidationTest, DamagedKeyIsCorruptionWhereAMoveLands) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"a", 1, kTypeValue, "1"}));
  char* middle = InsertAndKeep(&h, {"b", 1, kTypeValue, "2"});
  ASSERT_TRUE(h.Insert({"c", 1, kTypeValue, "3"}));
  auto it = NewIterator(&h);  // sorted now: a, b, c
  it->SeekToFirst();
  ASSERT_OK(it->NextChecked(false));  // checks the view: sound
  char* user_key = strchr(middle + 1, 'b');
  ASSERT_NE(user_key, nullptr);
  user_key[0] = 'z';  // a, z, c: z > c

  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  Status s = it->NextChecked(false);  // a -> z
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());

  it->SeekToLast();  // c
  ASSERT_TRUE(it->Valid());
  s = it->PrevChecked(true);  // c <- z
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(Slice("z").ToString(true)), std::string::npos)
      << "names the damaged key when allowed: " << s.ToString();
  EXPECT_FALSE(it->Valid());
}

// As RocksDB's DBMemTableTest.IntegrityChecks damages a skip list: the first
// byte of a key with one version turns it into a key that sorts first, and
// no view was sorted before. Every checked read that reaches it answers
// Corruption (naming the damaged key only if allowed); unchecked, a Get of
// the key would answer NotFound and a scan would skip it.
TEST(StripedHashValidationTest, DamagedOnlyVersionIsCorruptionForEveryRead) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"key000000", 1, kTypeValue, "val0"}));
  ASSERT_TRUE(h.Insert({"key000002", 2, kTypeValue, "val2"}));
  char* entry = InsertAndKeep(&h, {"key000001", 3, kTypeValue, "val1"});
  entry[1] = 'a';  // offset 0: the key's length
  const std::string damaged_hex = Slice("aey000001").ToString(true);

  for (bool allow_data : {false, true}) {
    SCOPED_TRACE(allow_data ? "allow_data_in_errors" : "no data in errors");
    auto expect_corruption = [&](const Status& s, const char* read) {
      EXPECT_TRUE(s.IsCorruption()) << read << ": " << s.ToString();
      EXPECT_EQ(s.ToString().find(damaged_hex) != std::string::npos, allow_data)
          << read << ": " << s.ToString();
    };
    Status s;
    EXPECT_TRUE(GetChecked(&h, "key000001", 100, allow_data, &s).empty());
    expect_corruption(s, "GetChecked");

    const std::string keys[] = {KeyOf("key000000", 100),
                                KeyOf("key000001", 100)};
    const char* memtable_keys[] = {keys[0].data(), keys[1].data()};
    std::vector<Entry> got[2];
    void* args[] = {&got[0], &got[1]};
    s = Rep(&h)->MultiGetEntries(
        2, memtable_keys, args,
        [](void* arg, const char* e) {
          static_cast<std::vector<Entry>*>(arg)->push_back(DecodeEntry(e));
          return true;
        },
        allow_data, /*detect_key_out_of_order=*/true, nullptr);
    expect_corruption(s, "MultiGetEntries");

    auto it = NewIterator(&h);
    s = it->SeekChecked(Slice(), SeekTarget("key000001", 100).data(),
                        allow_data, nullptr);
    expect_corruption(s, "SeekChecked to the damaged key");
    EXPECT_FALSE(it->Valid());

    it = NewIterator(&h);
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    s = it->NextChecked(allow_data);
    expect_corruption(s, "NextChecked");
    EXPECT_FALSE(it->Valid());

    it = NewIterator(&h);
    it->SeekToLast();
    ASSERT_TRUE(it->Valid());
    s = it->PrevChecked(allow_data);
    expect_corruption(s, "PrevChecked");
    EXPECT_FALSE(it->Valid());

    // The one-key iterator reads the index only, and finds the slot.
    auto one_key = NewOneKeyIterator(&h);
    s = one_key->SeekChecked(Slice(), SeekTarget("key000001", 100).data(),
                             allow_data, nullptr);
    expect_corruption(s, "one-key SeekChecked");
  }
}

// With per-key checksums, the damaged entry the lookup meets in its key's
// slot goes to the validator first, as a skip list's seek validates what it
// passes: the checksum's failure is the answer.
TEST(StripedHashValidationTest, ValidatorSeesTheDamagedEntryInTheKeysSlot) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"key000000", 1, kTypeValue, "val0"}));
  char* entry = InsertAndKeep(&h, {"key000010", 2, kTypeValue, "val1"});
  entry[9] = '5';  // key000010 -> key000015
  RecordingValidator v;
  v.fail_on = KeyOf("key000015", 2);
  Status s;
  GetChecked(&h, "key000010", 100, false, &s, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("recording validator"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(v.seen, std::vector<std::string>{KeyOf("key000015", 2)});
}

TEST(StripedHashValidationTest, ValidatorSeesEveryVersionGetVisits) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  // The whole chain, newest first, whatever the lookup's sequence number.
  const std::vector<std::string> apple = {KeyOf("apple", 9), KeyOf("apple", 5),
                                          KeyOf("apple", 2)};
  for (SequenceNumber seq : {1, 5, 100}) {
    for (bool allow_data : {false, true}) {
      RecordingValidator v;
      Status s;
      const std::vector<Entry> got =
          GetChecked(&h, "apple", seq, allow_data, &s, v.Get());
      ASSERT_OK(s);
      EXPECT_EQ(EncodedAll(got), EncodedAll(h.Get("apple", seq)));
      EXPECT_EQ(v.seen, apple) << "apple@" << seq;
      EXPECT_EQ(v.allow_data, std::vector<bool>(apple.size(), allow_data));
    }
  }
  RecordingValidator v;
  Status s;
  EXPECT_TRUE(GetChecked(&h, "missing", 100, true, &s, v.Get()).empty());
  ASSERT_OK(s);
  EXPECT_TRUE(v.seen.empty());
}

TEST(StripedHashValidationTest, ValidatorFailureEndsGetChecked) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  RecordingValidator v;
  v.fail_on = KeyOf("banana", 5);
  Status s;
  const std::vector<Entry> got =
      GetChecked(&h, "banana", 100, false, &s, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("recording validator"), std::string::npos)
      << "the validator's own status: " << s.ToString();
  // Handed out before the damaged version, nothing from it on.
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].seq, 9u);
  EXPECT_EQ(v.seen,
            (std::vector<std::string>{KeyOf("banana", 9), KeyOf("banana", 5)}));
}

// A seek through the view hands the validator the versions of the user key
// it stops in, down to the entry found, and the entry before that.
TEST(StripedHashValidationTest, SeekCheckedValidatesWhatTheSeekReads) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  auto it = NewIterator(&h);
  struct Case {
    std::string user_key;
    SequenceNumber seq;
    std::string found;  // empty: past the end
    std::vector<std::string> validated;
  };
  const Case cases[] = {
      {"banana",
       5,
       KeyOf("banana", 5),
       {KeyOf("banana", 9), KeyOf("banana", 5)}},
      {"banana",
       100,
       KeyOf("banana", 9),
       {KeyOf("banana", 9), KeyOf("apple", 2)}},
      {"banana",
       1,
       KeyOf("cherry", 9),
       {KeyOf("cherry", 9), KeyOf("banana", 2)}},
      {"apple", 100, KeyOf("apple", 9), {KeyOf("apple", 9)}},
      {"zebra", 100, "", {}},
  };
  for (const Case& c : cases) {
    for (bool with_memtable_key : {false, true}) {
      RecordingValidator v;
      const Entry target{c.user_key, c.seq, kValueTypeForSeek, ""};
      const std::string memtable_key = target.MemtableKey();
      Status s = it->SeekChecked(
          target.InternalKey(),
          with_memtable_key ? memtable_key.data() : nullptr, true, v.Get());
      ASSERT_OK(s);
      ASSERT_EQ(it->Valid(), !c.found.empty()) << c.user_key << "@" << c.seq;
      if (it->Valid()) {
        EXPECT_EQ(MemtableKeyAt(it->key()), c.found);
      }
      EXPECT_EQ(v.seen, c.validated) << c.user_key << "@" << c.seq;
      EXPECT_EQ(v.allow_data, std::vector<bool>(v.seen.size(), true));
    }
  }

  RecordingValidator v;
  v.fail_on = KeyOf("apple", 2);  // before the one found
  Status s = it->SeekChecked(Slice(), SeekTarget("banana", 100).data(), false,
                             v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
  v.seen.clear();
  v.fail_on = KeyOf("banana", 9);  // on the way to the one found
  s = it->SeekChecked(Slice(), SeekTarget("banana", 5).data(), false, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(v.seen, std::vector<std::string>{KeyOf("banana", 9)});
}

// Seeks that stay on one user key walk its chain: the validator sees the
// versions from the newest down to the one found, all of them when the
// seek goes past them.
TEST(StripedHashValidationTest, OneKeySeekCheckedValidatesTheVersionsWalked) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  auto it = NewOneKeyIterator(&h);
  RecordingValidator v;
  Status s =
      it->SeekChecked(Slice(), SeekTarget("banana", 5).data(), true, v.Get());
  ASSERT_OK(s);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(MemtableKeyAt(it->key()), KeyOf("banana", 5));
  EXPECT_EQ(v.seen,
            (std::vector<std::string>{KeyOf("banana", 9), KeyOf("banana", 5)}));

  v.seen.clear();
  s = it->SeekChecked(Slice(), SeekTarget("banana", 1).data(), true, v.Get());
  ASSERT_OK(s);
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(v.seen,
            (std::vector<std::string>{KeyOf("banana", 9), KeyOf("banana", 5),
                                      KeyOf("banana", 2)}));

  v.seen.clear();
  s = it->SeekChecked(Slice(), SeekTarget("missing", 100).data(), true,
                      v.Get());
  ASSERT_OK(s);
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(v.seen.empty());

  v.fail_on = KeyOf("banana", 2);
  s = it->SeekChecked(Slice(), SeekTarget("banana", 1).data(), true, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
}

// The checked MultiGet (an order check asked for, a validator, or both)
// answers what Get answers and hands the validator each looked-up key's
// whole chain, key after key.
TEST(StripedHashValidationTest, CheckedMultiGetAnswersLikeGet) {
  std::mt19937_64 random(7);
  RepHarness h;
  std::map<std::string, std::vector<std::string>> chains;  // newest first
  SequenceNumber seq = 1;
  for (int k = 0; k < 100; ++k) {
    const std::string user_key = NumberedKey(k, 3);
    std::vector<Entry> versions;
    for (int v = 0, n = 1 + k % 4; v < n; ++v) {
      versions.push_back(
          {user_key, seq++, kTypeValue, "v" + std::to_string(v)});
    }
    // Oldest first, then shuffled: chains must not depend on insert order.
    std::shuffle(versions.begin(), versions.end(), random);
    for (const Entry& e : versions) ASSERT_TRUE(h.Insert(e));
    std::sort(versions.begin(), versions.end(),
              [](const Entry& a, const Entry& b) { return a.seq > b.seq; });
    for (const Entry& e : versions) chains[user_key].push_back(e.MemtableKey());
  }

  struct Mode {
    bool detect_key_out_of_order;
    bool validate;
  };
  for (const Mode mode :
       {Mode{true, false}, Mode{false, true}, Mode{true, true}}) {
    for (size_t n = 1; n <= 64; ++n) {
      std::vector<RepHarness::Lookup> batch;
      for (size_t i = 0; i < n; ++i) {
        const int k = static_cast<int>(random() % 120);  // 100 and up: absent
        batch.push_back({NumberedKey(k, 3), random() % (seq + 1),
                         random() % 3 == 0 ? size_t{1} : SIZE_MAX});
      }
      std::sort(batch.begin(), batch.end(),
                [](const RepHarness::Lookup& a, const RepHarness::Lookup& b) {
                  return a.user_key != b.user_key ? a.user_key < b.user_key
                                                  : a.seq > b.seq;
                });
      RecordingValidator v;
      Status s;
      const std::vector<std::vector<Entry>> got =
          h.MultiGet(batch, &s, mode.detect_key_out_of_order,
                     mode.validate ? v.Get() : EntryValidator());
      ASSERT_OK(s);
      ASSERT_EQ(got.size(), n);
      std::vector<std::string> expected_validated;
      for (size_t i = 0; i < n; ++i) {
        const RepHarness::Lookup& lookup = batch[i];
        ASSERT_EQ(
            EncodedAll(got[i]),
            EncodedAll(h.Get(lookup.user_key, lookup.seq, lookup.stop_after)))
            << lookup.user_key << "@" << lookup.seq << " in a batch of " << n;
        const auto chain = chains.find(lookup.user_key);
        if (chain != chains.end()) {
          expected_validated.insert(expected_validated.end(),
                                    chain->second.begin(), chain->second.end());
        }
      }
      EXPECT_EQ(v.seen, mode.validate ? expected_validated
                                      : std::vector<std::string>());
    }
  }
}

TEST(StripedHashValidationTest, CheckedMultiGetStopsAtTheFirstFailure) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  const std::vector<RepHarness::Lookup> batch = {
      {"apple", 100}, {"banana", 100}, {"cherry", 100}};
  RecordingValidator v;
  v.fail_on = KeyOf("banana", 5);
  Status s;
  const std::vector<std::vector<Entry>> got =
      h.MultiGet(batch, &s, false, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("recording validator"), std::string::npos)
      << s.ToString();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].size(), 3u);
  ASSERT_EQ(got[1].size(), 1u);
  EXPECT_EQ(got[1][0].seq, 9u);
  EXPECT_TRUE(got[2].empty()) << "no lookup after the failure";
}

// The order checks run in checked mode only: the plain MultiGet does what
// Get does, which trusts the chain.
TEST(StripedHashValidationTest, CheckedMultiGetFindsADamagedChain) {
  RepHarness h;
  ASSERT_NO_FATAL_FAILURE(InsertDamagedChain(&h));
  const std::vector<RepHarness::Lookup> batch = {{"apple", 100}};

  Status s;
  h.MultiGet(batch, &s);
  EXPECT_OK(s);
  h.MultiGet(batch, &s, /*detect_key_out_of_order=*/true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  RecordingValidator v;
  h.MultiGet(batch, &s, false, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(v.seen.size(), 2u) << "the damaged version was validated first";
}

#if CUCKOO_MEMTABLE_KEY_VALIDATION
// RocksDB 10.7+ hands its key_validation_callback through GetAndValidate
// and SeekAndValidate.
TEST(StripedHashValidationTest, RocksDbValidateCallsReachTheCallback) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  MemTableRep* rep = h.rep();
  RecordingValidator v;
  std::vector<Entry> got;
  LookupKey lookup("cherry", 5);
  Status s = rep->GetAndValidate(
      lookup, &got,
      [](void* arg, const char* entry) {
        static_cast<std::vector<Entry>*>(arg)->push_back(DecodeEntry(entry));
        return true;
      },
      /*allow_data_in_errors=*/false, /*detect_key_out_of_order=*/true,
      v.Get());
  ASSERT_OK(s);
  EXPECT_EQ(EncodedAll(got), EncodedAll(h.Get("cherry", 5)));
  EXPECT_EQ(v.seen,
            (std::vector<std::string>{KeyOf("cherry", 9), KeyOf("cherry", 5),
                                      KeyOf("cherry", 2)}));
  EXPECT_EQ(v.allow_data, std::vector<bool>(3, false));

  std::unique_ptr<MemTableRep::Iterator> it(rep->GetIterator());
  const std::string target =
      Entry{"cherry", 3, kValueTypeForSeek, ""}.InternalKey();
  v.seen.clear();
  s = it->SeekAndValidate(target, nullptr, false, false, v.Get());
  ASSERT_OK(s);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(MemtableKeyAt(it->key()), KeyOf("cherry", 2));
  EXPECT_EQ(v.seen,
            (std::vector<std::string>{KeyOf("cherry", 9), KeyOf("cherry", 5),
                                      KeyOf("cherry", 2)}));
  v.fail_on = KeyOf("cherry", 5);
  s = it->SeekAndValidate(target, nullptr, false, false, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
  s = rep->GetAndValidate(
      lookup, &got, [](void*, const char*) { return true; }, false, false,
      v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}
#elif ROCKSDB_MAJOR >= 9
TEST(StripedHashValidationTest, RocksDbValidateCallsAnswerLikePlainOnes) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  MemTableRep* rep = h.rep();
  std::vector<Entry> got;
  LookupKey lookup("cherry", 5);
  ASSERT_OK(rep->GetAndValidate(
      lookup, &got,
      [](void* arg, const char* entry) {
        static_cast<std::vector<Entry>*>(arg)->push_back(DecodeEntry(entry));
        return true;
      },
      false));
  EXPECT_EQ(EncodedAll(got), EncodedAll(h.Get("cherry", 5)));
  std::unique_ptr<MemTableRep::Iterator> it(rep->GetIterator());
  ASSERT_OK(it->SeekAndValidate(
      Entry{"cherry", 3, kValueTypeForSeek, ""}.InternalKey(), nullptr, false));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(MemtableKeyAt(it->key()), KeyOf("cherry", 2));
}
#endif

#if CUCKOO_MEMTABLE_MULTIGET
// RocksDB 11.1+ calls MemTableRep::MultiGet under
// memtable_batch_lookup_optimization; it is the hash lookup, not the
// default's walk over a sorted iterator.
TEST(StripedHashValidationTest, RocksDbMultiGetIsTheHashLookup) {
  RepHarness h;
  for (const Entry& e : SomeEntries()) ASSERT_TRUE(h.Insert(e));
  const std::vector<std::pair<std::string, SequenceNumber>> lookups = {
      {"apple", 100}, {"banana", 5}, {"blueberry", 100}, {"date", 1}};
  std::vector<std::unique_ptr<LookupKey>> keys;
  std::vector<const char*> memtable_keys;
  for (const auto& [user_key, seq] : lookups) {
    keys.push_back(std::make_unique<LookupKey>(user_key, seq));
    memtable_keys.push_back(keys.back()->memtable_key().data());
  }
  std::vector<std::vector<Entry>> got(lookups.size());
  std::vector<void*> args;
  for (auto& entries : got) args.push_back(&entries);
  auto collect = [](void* arg, const char* entry) {
    static_cast<std::vector<Entry>*>(arg)->push_back(DecodeEntry(entry));
    return true;
  };
  MemTableRep* rep = h.rep();
  ASSERT_OK(rep->MultiGet(lookups.size(), memtable_keys.data(), args.data(),
                          collect, false, false, nullptr));
  for (size_t i = 0; i < lookups.size(); ++i) {
    EXPECT_EQ(EncodedAll(got[i]),
              EncodedAll(h.Get(lookups[i].first, lookups[i].second)))
        << lookups[i].first;
  }
  EXPECT_EQ(h.factory()->GetStats().sorts, 0u);

  RecordingValidator v;
  v.fail_on = KeyOf("date", 2);
  for (auto& entries : got) entries.clear();
  const Status s = rep->MultiGet(lookups.size(), memtable_keys.data(),
                                 args.data(), collect, false, false, v.Get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(v.seen.back(), KeyOf("date", 2));
}

// Whole DBs on the striped_hash memtable with RocksDB 11's batched memtable
// MultiGet, and with every memtable check on: what MultiGet, Get and
// iterators read must be what was written, a damaged entry must read as
// Corruption.
class StripedHashChecksDbTest : public ::testing::Test {
 protected:
  StripedHashChecksDbTest() : db_("striped_hash_checks") {}

  void Open(const std::string& extra_options) {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
    ConfigOptions config;
    config.ignore_unknown_options = false;
    config.ignore_unsupported_options = false;
    ASSERT_OK(GetOptionsFromString(
        config, Options(),
        "create_if_missing=true;memtable_factory=striped_hash;" + extra_options,
        &options_));
    ASSERT_STREQ(options_.memtable_factory->Name(), "striped_hash");
    ASSERT_OK(db_.Open(options_));
  }
  StripedHashMemTableStats Stats() const {
    return static_cast<const StripedHashMemTableFactory*>(
               options_.memtable_factory.get())
        ->GetStats();
  }

  // key000..key199 written, then a snapshot, then every third overwritten
  // and every seventh deleted: keys with one and with several versions.
  void Fill() {
    for (int i = 0; i < kKeys; ++i) {
      const std::string key = NumberedKey(i, 3);
      ASSERT_OK(db_->Put(WriteOptions(), key, "first-" + key));
      model_[key] = "first-" + key;
    }
    snapshot_ = db_->GetSnapshot();
    at_snapshot_ = model_;
    for (int i = 0; i < kKeys; i += 3) {
      const std::string key = NumberedKey(i, 3);
      ASSERT_OK(db_->Put(WriteOptions(), key, "second-" + key));
      model_[key] = "second-" + key;
    }
    for (int i = 0; i < kKeys; i += 7) {
      ASSERT_OK(db_->Delete(WriteOptions(), NumberedKey(i, 3)));
      model_.erase(NumberedKey(i, 3));
    }
  }
  void TearDown() override {
    if (snapshot_ != nullptr) db_->ReleaseSnapshot(snapshot_);
  }

  // MultiGet in batches of `batch` keys over key000..key219 (the last
  // twenty never written), against `model`.
  void ExpectMultiGet(const std::map<std::string, std::string>& model,
                      const Snapshot* snapshot, size_t batch) {
    ReadOptions read;
    read.snapshot = snapshot;
    for (int first = 0; first < kKeys + 20; first += static_cast<int>(batch)) {
      std::vector<std::string> names;
      for (int i = first;
           i < std::min(first + static_cast<int>(batch), kKeys + 20); ++i) {
        names.push_back(NumberedKey(i, 3));
      }
      std::vector<Slice> keys(names.begin(), names.end());
      std::vector<PinnableSlice> values(keys.size());
      std::vector<Status> statuses(keys.size());
      db_->MultiGet(read, db_->DefaultColumnFamily(), keys.size(), keys.data(),
                    values.data(), statuses.data());
      for (size_t i = 0; i < keys.size(); ++i) {
        const auto expected = model.find(names[i]);
        if (expected == model.end()) {
          EXPECT_TRUE(statuses[i].IsNotFound())
              << names[i] << ": " << statuses[i].ToString();
        } else {
          ASSERT_OK(statuses[i]);
          EXPECT_EQ(values[i].ToString(), expected->second) << names[i];
        }
      }
    }
  }
  void ExpectGets(const std::map<std::string, std::string>& model,
                  const Snapshot* snapshot) {
    ReadOptions read;
    read.snapshot = snapshot;
    for (int i = 0; i < kKeys + 20; ++i) {
      const std::string key = NumberedKey(i, 3);
      std::string value;
      const Status s = db_->Get(read, key, &value);
      const auto expected = model.find(key);
      if (expected == model.end()) {
        EXPECT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
      } else {
        ASSERT_OK(s);
        EXPECT_EQ(value, expected->second) << key;
      }
    }
  }
  // Seeks to every key (written or not) and reads a few entries on.
  void ExpectSeeks(const std::map<std::string, std::string>& model,
                   const Snapshot* snapshot) {
    ReadOptions read;
    read.snapshot = snapshot;
    std::unique_ptr<Iterator> it(db_->NewIterator(read));
    for (int i = 0; i < kKeys + 20; ++i) {
      const std::string key = NumberedKey(i, 3);
      it->Seek(key);
      auto expected = model.lower_bound(key);
      for (int step = 0; step < 3 && expected != model.end();
           ++step, ++expected, it->Next()) {
        ASSERT_TRUE(it->Valid()) << key << ": " << it->status().ToString();
        EXPECT_EQ(it->key().ToString(), expected->first);
        EXPECT_EQ(it->value().ToString(), expected->second);
      }
      if (expected == model.end()) {
        EXPECT_FALSE(it->Valid()) << key;
      }
      ASSERT_OK(it->status());
    }
  }

  static constexpr int kKeys = 200;
  ScratchDb db_;
  Options options_;
  std::map<std::string, std::string> model_;
  std::map<std::string, std::string> at_snapshot_;
  const Snapshot* snapshot_ = nullptr;
};

TEST_F(StripedHashChecksDbTest, BatchLookupMultiGetReadsTheHashIndex) {
  ASSERT_NO_FATAL_FAILURE(Open("memtable_batch_lookup_optimization=true"));
  ASSERT_NO_FATAL_FAILURE(Fill());
  const StripedHashMemTableStats before = Stats();
  for (size_t batch : {1, 7, 32, 33, 64}) {
    ExpectMultiGet(model_, nullptr, batch);
    ExpectMultiGet(at_snapshot_, snapshot_, batch);
  }
  const StripedHashMemTableStats after = Stats();
  // Every key looked up in the index, none read through a sorted view.
  EXPECT_GE(after.lookups() - before.lookups(), 5u * 2 * (kKeys + 20));
  EXPECT_EQ(after.sorts, 0u);
  ExpectGets(model_, nullptr);
  ExpectGets(at_snapshot_, snapshot_);
  ExpectSeeks(model_, nullptr);
  ExpectSeeks(at_snapshot_, snapshot_);
}

// memtable_verify_per_key_checksum_on_seek is spelled as every version since
// 10.7 parses it (11.5 added the corrected spelling, and still reads this).
constexpr char kAllChecks[] =
    "memtable_batch_lookup_optimization=true;paranoid_memory_checks=true;"
    "memtable_protection_bytes_per_key=8;"
    "memtable_veirfy_per_key_checksum_on_seek=true";

TEST_F(StripedHashChecksDbTest, AllChecksReadWhatWasWritten) {
  ASSERT_NO_FATAL_FAILURE(Open(kAllChecks));
  ASSERT_NO_FATAL_FAILURE(Fill());
  for (size_t batch : {1, 32, 64}) {
    ExpectMultiGet(model_, nullptr, batch);
    ExpectMultiGet(at_snapshot_, snapshot_, batch);
  }
  ExpectGets(model_, nullptr);
  ExpectGets(at_snapshot_, snapshot_);
  ExpectSeeks(model_, nullptr);
  ExpectSeeks(at_snapshot_, snapshot_);
}

// Overwrites a byte of the value an iterator is on, in the memtable's own
// memory (a memtable iterator's values point into it), as a stray write
// would; the entry's checksum no longer matches.
void DamageValue(Iterator* it) {
  ASSERT_TRUE(it->Valid());
  char* value = const_cast<char*>(it->value().data());
  value[0] = static_cast<char>(value[0] ^ 0x20);
}

// A Get or MultiGet of the newest value walks the key's older versions too,
// and validates each: a damaged older version is Corruption, where reading
// only the entry returned would not notice it.
TEST_F(StripedHashChecksDbTest, DamagedOlderVersionIsCorruption) {
  ASSERT_NO_FATAL_FAILURE(Open(kAllChecks));
  ASSERT_NO_FATAL_FAILURE(Fill());
  const std::string key = NumberedKey(3, 3);  // overwritten after snapshot_
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), key, &value));
  ASSERT_EQ(value, "second-" + key);
  {
    ReadOptions read;
    read.snapshot = snapshot_;
    std::unique_ptr<Iterator> it(db_->NewIterator(read));
    it->Seek(key);
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->value().ToString(), "first-" + key);
    DamageValue(it.get());
  }
  Status s = db_->Get(ReadOptions(), key, &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  const std::string names[] = {NumberedKey(1, 3), key, NumberedKey(4, 3)};
  const Slice keys[] = {names[0], names[1], names[2]};
  PinnableSlice values[3];
  Status statuses[3];
  db_->MultiGet(ReadOptions(), db_->DefaultColumnFamily(), 3, keys, values,
                statuses);
  EXPECT_TRUE(statuses[1].IsCorruption()) << statuses[1].ToString();
}

// A seek validates the entry before the one it lands on, which reading
// from the landing entry on would not notice.
TEST_F(StripedHashChecksDbTest, DamagedEntryBeforeASeekTargetIsCorruption) {
  ASSERT_NO_FATAL_FAILURE(Open(kAllChecks));
  ASSERT_NO_FATAL_FAILURE(Fill());
  const std::string before = NumberedKey(10, 3);  // one version
  const std::string target = NumberedKey(11, 3);
  {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    it->Seek(target);
    ASSERT_TRUE(it->Valid());
    ASSERT_OK(it->status());
    it->Seek(before);
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->key().ToString(), before);
    DamageValue(it.get());
  }
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  it->Seek(target);
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}
// RocksDB's DBMemTableTest.IntegrityChecks on a whole DB: a key with one
// version damaged in the memtable's memory (its first byte, key000001 to
// aey000001) is Corruption for Get, MultiGet and iterators, before and after
// a new view sorts the damaged bytes into the wrong place, with either
// check on. Only allow_data_in_errors lets the status name the damaged key.
TEST_F(StripedHashChecksDbTest, DamagedOnlyVersionIsCorruptionForEveryRead) {
  const std::string damaged_hex = Slice("aey000001").ToString(true);
  for (const char* checks : {"paranoid_memory_checks=true",
                             "memtable_protection_bytes_per_key=8;"
                             "memtable_veirfy_per_key_checksum_on_seek=true"}) {
    for (bool allow_data : {false, true}) {
      SCOPED_TRACE(std::string(checks) + (allow_data ? ", data" : ""));
      auto expect_corruption = [&](const Status& s, const char* read) {
        EXPECT_TRUE(s.IsCorruption()) << read << ": " << s.ToString();
        EXPECT_EQ(s.ToString().find(damaged_hex) != std::string::npos,
                  allow_data)
            << read << ": " << s.ToString();
      };
      db_.Wipe();
      ASSERT_NO_FATAL_FAILURE(
          Open(std::string(checks) +
               ";allow_data_in_errors=" + (allow_data ? "true" : "false")));
      ASSERT_OK(db_->Put(WriteOptions(), "key000000", "val0"));
      ASSERT_OK(db_->Put(WriteOptions(), "key000002", "val2"));
      ASSERT_OK(db_->Put(WriteOptions(), "key000001", "val1"));
      {
        // With pin_data the iterator's key is the memtable's own bytes.
        ReadOptions pinned;
        pinned.pin_data = true;
        std::unique_ptr<Iterator> it(db_->NewIterator(pinned));
        it->Seek("key000001");
        ASSERT_TRUE(it->Valid());
        ASSERT_EQ(it->key().ToString(), "key000001");
        const_cast<char*>(it->key().data())[0] = 'a';
      }
      std::string value;
      expect_corruption(db_->Get(ReadOptions(), "key000001", &value), "Get");
      std::vector<std::string> values;
      std::vector<Status> statuses =
          db_->MultiGet(ReadOptions(), {db_->DefaultColumnFamily()},
                        {Slice("key000001")}, &values);
      expect_corruption(statuses[0], "MultiGet");
      {
        std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
        it->Seek("key000001");
        EXPECT_FALSE(it->Valid());
        expect_corruption(it->status(), "Seek to the damaged key");
      }
      // Without the sorted view's own order to show it (a new view sorts
      // the damaged key first), a scan from its neighbour still meets it.
      ASSERT_OK(db_->Put(WriteOptions(), "key000003", "val3"));
      std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
      it->Seek("key000000");
      if (it->Valid()) {
        ASSERT_EQ(it->key().ToString(), "key000000");
        it->Next();
        EXPECT_FALSE(it->Valid() && it->key().ToString() == "key000002")
            << "skipped the damaged key without an error";
      }
      expect_corruption(it->status(), "scan past the damaged key");
    }
  }
}
#endif  // CUCKOO_MEMTABLE_MULTIGET

}  // namespace
}  // namespace rocksdb_cuckoo::testing
