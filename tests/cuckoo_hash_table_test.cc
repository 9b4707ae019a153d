// Builder, reader and iterator of the CuckooHashTable format on edge cases,
// without a DB: tables are built straight from internal keys.
#include "table/cuckoo_hash_table.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>

#include "db/range_tombstone_fragmenter.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/internal_iterator.h"
#include "tests/db_test_helpers.h"
#include "tests/status_assertions.h"
#include "tests/table_harness.h"

namespace rocksdb_cuckoo {
namespace {

using testing::InternalKeyOf;
using testing::ReadWholeFile;
using testing::TableHarness;
using namespace ROCKSDB_NAMESPACE;
using Entries = std::vector<std::pair<std::string, std::string>>;

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

// "key00000", "key00001", ...: keys of one size, sorted by number.
std::string NumberedKey(int i) {
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

TEST_P(CuckooHashTableTest, EmptyTable) {
  auto h = Harness();
  ASSERT_OK(h->Build({}));
  EXPECT_EQ(h->Get("a").state, GetContext::kNotFound);
  auto it = Iter(h.get());
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek(InternalKeyOf("a", 1, kTypeValue));
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(h->reader()->GetTableProperties()->num_entries, 0u);
}

TEST_P(CuckooHashTableTest, OneKey) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("key", 5, kTypeValue), "value"}}));
  auto r = h->Get("key");
  EXPECT_EQ(r.state, GetContext::kFound);
  EXPECT_EQ(r.value, "value");
  EXPECT_TRUE(r.pinned) << "values must be pinned, not copied";
  EXPECT_EQ(h->Get("kez").state, GetContext::kNotFound);
  EXPECT_EQ(h->Get("ke").state, GetContext::kNotFound);
  EXPECT_EQ(h->Get("key", 4).state, GetContext::kNotFound)
      << "an older snapshot must not see the entry";
}

TEST_P(CuckooHashTableTest, EmptyKeyAndEmptyValue) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("", 1, kTypeValue), "empty key"},
                      {InternalKeyOf("x", 1, kTypeValue), ""}}));
  EXPECT_EQ(h->Get("").value, "empty key");
  auto r = h->Get("x");
  EXPECT_EQ(r.state, GetContext::kFound);
  EXPECT_EQ(r.value, "");
}

TEST_P(CuckooHashTableTest, HugeValues) {
  auto h = Harness();
  const std::string big(3 << 20, 'v');
  ASSERT_OK(h->Build({{InternalKeyOf("big", 1, kTypeValue), big},
                      {InternalKeyOf("small", 1, kTypeValue), "s"}}));
  EXPECT_EQ(h->Get("big").value, big);
  EXPECT_EQ(h->Get("small").value, "s");
}

TEST_P(CuckooHashTableTest, ManyKeysAllFoundAndAbsentNotFound) {
  auto h = Harness();
  Entries entries;
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 20000; i++) {
    std::string key(1 + rng() % 24, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    if (model.count(key)) continue;
    model[key] = "v" + std::to_string(i);
    entries.emplace_back(InternalKeyOf(key, 1, kTypeValue), model[key]);
  }
  ASSERT_OK(h->Build(entries));
  for (auto& [key, value] : model) {
    auto r = h->Get(key);
    ASSERT_EQ(r.state, GetContext::kFound) << "key size " << key.size();
    ASSERT_EQ(r.value, value);
  }
  for (int i = 0; i < 20000; i++) {
    std::string key = "absent" + std::to_string(i);
    if (!model.count(key)) {
      ASSERT_EQ(h->Get(key).state, GetContext::kNotFound);
    }
  }
  auto props = h->reader()->GetTableProperties();
  EXPECT_EQ(props->num_entries, model.size());
  EXPECT_EQ(props->user_collected_properties.at("rocksdb.cuckoo.num_user_keys"),
            std::to_string(model.size()));
}

TEST_P(CuckooHashTableTest, EightByteIntegerKeys) {
  auto h = Harness();
  Entries entries;
  for (uint64_t i = 0; i < 50000; i++) {
    std::string key(8, '\0');
    const uint64_t big_endian = __builtin_bswap64(i * 3);
    memcpy(key.data(), &big_endian, 8);
    entries.emplace_back(InternalKeyOf(key, 1, kTypeValue), std::to_string(i));
  }
  ASSERT_OK(h->Build(entries));
  for (uint64_t i = 0; i < 150000; i++) {
    std::string key(8, '\0');
    const uint64_t big_endian = __builtin_bswap64(i);
    memcpy(key.data(), &big_endian, 8);
    auto r = h->Get(key);
    if (i % 3 == 0) {
      ASSERT_EQ(r.state, GetContext::kFound) << i;
      ASSERT_EQ(r.value, std::to_string(i / 3));
    } else {
      ASSERT_EQ(r.state, GetContext::kNotFound) << i;
    }
  }
}

// Fixed-size entries, one per user key: the data goes in slot order (or key
// order when the option is off) and reads the same either way.
TEST_P(CuckooHashTableTest, FixedSizeEntriesInSlotOrderAndKeyOrder) {
  for (bool slot_ordered : {true, false}) {
    auto h = Harness(slot_ordered);
    Entries entries;
    for (uint64_t i = 0; i < 20000; i++) {
      std::string key(16, '\0');
      const uint64_t scrambled = (i + 1) * 0x9E3779B97F4A7C15ULL;
      const uint64_t big_endian = __builtin_bswap64(i);
      memcpy(key.data(), &big_endian, 8);
      memcpy(key.data() + 8, &scrambled, 8);
      std::string value(100, static_cast<char>('a' + i % 26));
      memcpy(value.data(), &i, sizeof(i));
      entries.emplace_back(InternalKeyOf(key, 0, kTypeValue), value);
    }
    ASSERT_OK(h->Build(entries));
    auto props = h->reader()->GetTableProperties();
    EXPECT_EQ(props->user_collected_properties.at("rocksdb.cuckoo.data_order"),
              slot_ordered ? "slot" : "key");
    for (auto& [ikey, value] : entries) {
      auto r = h->Get(ExtractUserKey(ikey));
      ASSERT_EQ(r.state, GetContext::kFound);
      ASSERT_EQ(r.value, value);
    }
    EXPECT_EQ(h->Get(std::string(16, '\xff')).state, GetContext::kNotFound);
    std::sort(entries.begin(), entries.end(), [&](auto& a, auto& b) {
      return h->icomp().Compare(a.first, b.first) < 0;
    });
    auto it = Iter(h.get());
    EXPECT_EQ(ScanForward(it.get()), entries);
    EXPECT_EQ(ScanBackward(it.get()), entries);
    it->Seek(entries[777].first);
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value().ToString(), entries[777].second);
    uint64_t previous = 0;
    for (size_t i = 0; i < entries.size(); i += 1000) {
      const uint64_t offset =
          ApproximateOffsetOf(h->reader(), entries[i].first,
                              TableReaderCaller::kUserApproximateSize);
      EXPECT_GE(offset, previous);
      previous = offset;
    }
  }
}

// In slot order the bytes after an entry may be an empty slot: a lookup that
// does not stop at the entry (invisible at the snapshot, or a merge operand
// needing more) must not read on.
TEST_P(CuckooHashTableTest, SlotOrderLookupsStopAtTheirEntry) {
  auto h = Harness();
  Entries entries;
  for (int i = 0; i < 300; i++) {
    const std::string key = NumberedKey(i);
    entries.emplace_back(
        InternalKeyOf(key, 100, i % 2 == 0 ? kTypeValue : kTypeMerge), "v");
  }
  ASSERT_OK(h->Build(entries));
  ASSERT_EQ(h->reader()->GetTableProperties()->user_collected_properties.at(
                "rocksdb.cuckoo.data_order"),
            "slot");
  for (int i = 0; i < 300; i++) {
    const std::string key = NumberedKey(i);
    auto hidden = h->Get(key, 99);
    ASSERT_OK(hidden.status);
    EXPECT_EQ(hidden.state, GetContext::kNotFound);
    auto visible = h->Get(key);
    ASSERT_OK(visible.status);
    EXPECT_EQ(visible.state,
              i % 2 == 0 ? GetContext::kFound : GetContext::kMerge);
  }
}

// A second version of a key, a different entry size, or the same entry size
// split differently between key and value, midway, turns slot ordering off
// for the file; the entries already buffered stay correct.
TEST_P(CuckooHashTableTest, SlotOrderFallsBackToKeyOrder) {
  struct Late {
    const char* key;
    SequenceNumber sequence;
    const char* value;
  };
  for (const Late& late :
       {Late{"key00250", 3, "older-value-size1"}, Late{"key00250x", 5, "v"},
        Late{"key00250x", 5, "value-of-size16"}}) {
    auto h = Harness();
    Entries entries;
    for (int i = 0; i < 500; i++) {
      const std::string key = NumberedKey(i);
      entries.emplace_back(InternalKeyOf(key, 5, kTypeValue),
                           "value-of-size-17");
    }
    entries.emplace_back(InternalKeyOf(late.key, late.sequence, kTypeValue),
                         late.value);
    ASSERT_OK(h->Build(entries));
    EXPECT_EQ(h->reader()->GetTableProperties()->user_collected_properties.at(
                  "rocksdb.cuckoo.data_order"),
              "key");
    EXPECT_EQ(h->Get("key00250").value, "value-of-size-17");
    EXPECT_EQ(h->Get("key00499").value, "value-of-size-17");
    EXPECT_EQ(h->Get(late.key, late.sequence).value, late.value);
  }
}

// Slot entries keep the key's trailer only when some entry needs it: a file
// of kTypeValue entries at sequence 0 (a bottommost file, an ingested one)
// stores user keys alone, and reads back the same internal keys.
TEST_P(CuckooHashTableTest, SlotEntriesStoreTrailersOnlyWhenNeeded) {
  struct Case {
    SequenceNumber sequence_of_key_7;
    ValueType type_of_key_7;
    bool without_trailers;
  };
  for (const Case& c : {Case{0, kTypeValue, true}, Case{9, kTypeValue, false},
                        Case{0, kTypeMerge, false}}) {
    auto h = Harness();
    Entries entries;
    for (int i = 0; i < 200; i++) {
      const std::string key = NumberedKey(i);
      entries.emplace_back(
          i == 7 ? InternalKeyOf(key, c.sequence_of_key_7, c.type_of_key_7)
                 : InternalKeyOf(key, 0, kTypeValue),
          "value" + std::to_string(10000 + i));
    }
    ASSERT_OK(h->Build(entries));
    Layout layout;
    ASSERT_OK(layout.DecodeFromFile(ReadWholeFile(h->path())));
    ASSERT_TRUE(layout.fixed_slots());
    EXPECT_EQ(layout.keys_without_trailers, c.without_trailers);
    EXPECT_EQ(layout.slot_entry_size, (c.without_trailers ? 8u : 16u) + 10u);
    std::sort(entries.begin(), entries.end(), [&](auto& a, auto& b) {
      return h->icomp().Compare(a.first, b.first) < 0;
    });
    auto it = Iter(h.get());
    EXPECT_EQ(ScanForward(it.get()), entries);
    EXPECT_EQ(ScanBackward(it.get()), entries);
    it->Seek(InternalKeyOf("key00007", kMaxSequenceNumber, kValueTypeForSeek));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key().ToString(), entries[7].first);
    auto r = h->Get("key00007", 8);
    EXPECT_EQ(r.state, c.sequence_of_key_7 > 8         ? GetContext::kNotFound
                       : c.type_of_key_7 == kTypeMerge ? GetContext::kMerge
                                                       : GetContext::kFound);
    EXPECT_EQ(h->Get("key00150").value, "value10150");
    EXPECT_EQ(h->Get("key0015").state, GetContext::kNotFound);
  }
}

// An empty user key with an empty value is a slot entry of 0 bytes without
// its trailer: such a file keeps the trailer instead.
TEST_P(CuckooHashTableTest, EmptySlotEntryKeepsItsTrailer) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("", 0, kTypeValue), ""}}));
  Layout layout;
  ASSERT_OK(layout.DecodeFromFile(ReadWholeFile(h->path())));
  EXPECT_TRUE(layout.fixed_slots());
  EXPECT_FALSE(layout.keys_without_trailers);
  auto r = h->Get("");
  EXPECT_EQ(r.state, GetContext::kFound);
  EXPECT_EQ(r.value, "");
}

TEST_P(CuckooHashTableTest, VersionsOfOneKeyHonourSnapshots) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("k", 30, kTypeValue), "v30"},
                      {InternalKeyOf("k", 20, kTypeDeletion), ""},
                      {InternalKeyOf("k", 10, kTypeValue), "v10"},
                      {InternalKeyOf("j", 15, kTypeValue), "j15"},
                      {InternalKeyOf("l", 15, kTypeValue), "l15"}}));
  EXPECT_EQ(h->Get("k").value, "v30");
  EXPECT_EQ(h->Get("k", 30).value, "v30");
  EXPECT_EQ(h->Get("k", 29).state, GetContext::kDeleted);
  EXPECT_EQ(h->Get("k", 20).state, GetContext::kDeleted);
  EXPECT_EQ(h->Get("k", 19).value, "v10");
  EXPECT_EQ(h->Get("k", 9).state, GetContext::kNotFound);
  EXPECT_EQ(h->Get("j").value, "j15");
  EXPECT_EQ(h->Get("l").value, "l15");
}

TEST_P(CuckooHashTableTest, AllEntryTypes) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("put", 1, kTypeValue), "p"},
                      {InternalKeyOf("del", 1, kTypeDeletion), ""},
                      {InternalKeyOf("sdel", 1, kTypeSingleDeletion), ""},
                      {InternalKeyOf("m", 3, kTypeMerge), "c"},
                      {InternalKeyOf("m", 2, kTypeMerge), "b"},
                      {InternalKeyOf("m", 1, kTypeValue), "a"},
                      {InternalKeyOf("only_merge", 2, kTypeMerge), "y"},
                      {InternalKeyOf("only_merge", 1, kTypeMerge), "x"}}));
  EXPECT_EQ(h->Get("put").value, "p");
  EXPECT_EQ(h->Get("del").state, GetContext::kDeleted);
  EXPECT_EQ(h->Get("sdel").state, GetContext::kDeleted);
  auto merged = h->Get("m");
  EXPECT_EQ(merged.state, GetContext::kFound);
  EXPECT_EQ(merged.value, "a,b,c");
  EXPECT_EQ(h->Get("m", 2).value, "a,b");
  auto operands = h->Get("only_merge");
  EXPECT_EQ(operands.state, GetContext::kMerge);
  EXPECT_EQ(operands.operands, (std::vector<std::string>{"x", "y"}));
  auto props = h->reader()->GetTableProperties();
  EXPECT_EQ(props->num_deletions, 2u);
  EXPECT_EQ(props->num_merge_operands, 4u);
}

// RocksDB reads these counts back (compensated sizes divide by the raw sizes
// whenever a file holds more entries than deletions; 9.x checks compaction
// input counts), so they must be exactly BlockBasedTable's for the same input.
TEST_P(CuckooHashTableTest, EntryCountsMatchBlockBasedTable) {
  const std::vector<Entries> inputs = {
      {{InternalKeyOf("a", 7, kTypeRangeDeletion), "c"},
       {InternalKeyOf("x", 5, kTypeRangeDeletion), "zz"}},
      {{InternalKeyOf("put", 1, kTypeValue), "value"},
       {InternalKeyOf("del", 2, kTypeDeletion), ""},
       {InternalKeyOf("sdel", 3, kTypeSingleDeletion), ""},
       {InternalKeyOf("m", 5, kTypeMerge), "b"},
       {InternalKeyOf("m", 4, kTypeMerge), "a"},
       {InternalKeyOf("b", 6, kTypeRangeDeletion), "n"}}};
  for (const Entries& input : inputs) {
    auto ours = Harness();
    ASSERT_OK(ours->Build(input));
    TableHarness theirs(
        std::shared_ptr<TableFactory>(NewBlockBasedTableFactory()),
        ours->path() + ".bbt", GetParam().mmap, std::make_shared<JoinMerge>());
    ASSERT_OK(theirs.Build(input));
    auto a = ours->reader()->GetTableProperties();
    auto b = theirs.reader()->GetTableProperties();
    EXPECT_EQ(a->num_entries, b->num_entries);
    EXPECT_EQ(a->num_deletions, b->num_deletions);
    EXPECT_EQ(a->num_range_deletions, b->num_range_deletions);
    EXPECT_EQ(a->num_merge_operands, b->num_merge_operands);
    EXPECT_EQ(a->raw_key_size, b->raw_key_size);
    EXPECT_EQ(a->raw_value_size, b->raw_value_size);
    EXPECT_GT(a->raw_key_size + a->raw_value_size, 0u);
  }
}

TEST_P(CuckooHashTableTest, RangeTombstonesAreStoredAndFragmented) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("b", 10, kTypeValue), "old"},
                      {InternalKeyOf("b", 30, kTypeValue), "new"},
                      {InternalKeyOf("a", 20, kTypeRangeDeletion), "c"},
                      {InternalKeyOf("x", 5, kTypeRangeDeletion), "z"}}));
  EXPECT_EQ(h->reader()->GetTableProperties()->num_range_deletions, 2u);
  std::unique_ptr<FragmentedRangeTombstoneIterator> tombstones(
      h->reader()->NewRangeTombstoneIterator(read_options_));
  ASSERT_NE(tombstones, nullptr);
  EXPECT_EQ(tombstones->MaxCoveringTombstoneSeqnum("b"), 20u);
  EXPECT_EQ(tombstones->MaxCoveringTombstoneSeqnum("y"), 5u);
  EXPECT_EQ(tombstones->MaxCoveringTombstoneSeqnum("d"), 0u);
  tombstones->SeekToFirst();
  ASSERT_TRUE(tombstones->Valid());
  EXPECT_EQ(tombstones->start_key().ToString(), "a");
  EXPECT_EQ(tombstones->end_key().ToString(), "c");
  // Point entries are unaffected in the file; the DB applies tombstones.
  EXPECT_EQ(h->Get("b").value, "new");
  auto it = Iter(h.get());
  EXPECT_EQ(ScanForward(it.get()).size(), 2u);
}

TEST_P(CuckooHashTableTest, NoTombstoneIteratorWithoutTombstones) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("a", 1, kTypeValue), "1"}}));
  EXPECT_EQ(h->reader()->NewRangeTombstoneIterator(read_options_), nullptr);
}

TEST_P(CuckooHashTableTest, IteratorOrderSeekAndPrev) {
  auto h = Harness();
  Entries entries;
  for (int i = 0; i < 1000; i++) {
    const std::string key = NumberedKey(i * 2);
    entries.emplace_back(InternalKeyOf(key, 100 + i % 3, kTypeValue),
                         "v" + std::to_string(i));
    if (i % 10 == 0) {  // an older version of some keys
      entries.emplace_back(InternalKeyOf(key, 50, kTypeMerge), "old");
    }
  }
  ASSERT_OK(h->Build(entries));
  std::sort(entries.begin(), entries.end(), [&](auto& a, auto& b) {
    return h->icomp().Compare(a.first, b.first) < 0;
  });
  auto it = Iter(h.get());
  EXPECT_EQ(ScanForward(it.get()), entries);
  EXPECT_EQ(ScanBackward(it.get()), entries);
  EXPECT_TRUE(it->IsKeyPinned());
  EXPECT_TRUE(it->IsValuePinned());

  // Seek to a missing key lands on the next one; SeekForPrev on the previous.
  it->Seek(InternalKeyOf("key00003", kMaxSequenceNumber, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(ExtractUserKey(it->key()).ToString(), "key00004");
  it->SeekForPrev(InternalKeyOf("key00003", 0, kTypeDeletion));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(ExtractUserKey(it->key()).ToString(), "key00002");
  // Exact match for SeekForPrev stays on it.
  it->SeekForPrev(entries[7].first);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), entries[7].first);
  // Between two versions of one key: Seek picks the older, SeekForPrev newer.
  it->Seek(InternalKeyOf("key00000", 70, kTypeValue));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(GetInternalKeySeqno(it->key()), 50u);
  it->SeekForPrev(InternalKeyOf("key00000", 70, kTypeValue));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(GetInternalKeySeqno(it->key()), 100u);
  // Past both ends.
  it->Seek(InternalKeyOf("zzz", kMaxSequenceNumber, kValueTypeForSeek));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(InternalKeyOf("a", 0, kTypeValue));
  EXPECT_FALSE(it->Valid());
  it->SeekToFirst();
  it->Prev();
  EXPECT_FALSE(it->Valid());
}

TEST_P(CuckooHashTableTest, ApproximateOffsetsGrowWithKeys) {
  auto h = Harness();
  Entries entries;
  for (int i = 0; i < 1000; i++) {
    const std::string key = NumberedKey(i);
    entries.emplace_back(InternalKeyOf(key, 1, kTypeValue),
                         std::string(100, 'v'));
  }
  ASSERT_OK(h->Build(entries));
  auto* r = h->reader();
  const uint64_t a = ApproximateOffsetOf(
      r, entries[10].first, TableReaderCaller::kUserApproximateSize);
  const uint64_t b = ApproximateOffsetOf(
      r, entries[900].first, TableReaderCaller::kUserApproximateSize);
  EXPECT_LT(a, b);
  EXPECT_GT(ApproximateSize(r, entries[0].first, entries[999].first,
                            TableReaderCaller::kUserApproximateSize),
            90000u);
  std::vector<TableReader::Anchor> anchors;
  ASSERT_OK(r->ApproximateKeyAnchors(ReadOptions(), anchors));
  ASSERT_EQ(anchors.size(), 128u);
  EXPECT_EQ(anchors.back().user_key, "key00999");
}

// RocksDB's DBTest.ApproximateSizes_MixOfSmallAndLarge and
// HiddenValuesAreRemoved: a few large values among many small ones. An
// estimate by position alone gave a range of 200 small entries ten times
// their size here.
TEST_P(CuckooHashTableTest, ApproximateSizesFollowTheBytesOfTheEntries) {
  auto h = Harness();
  Entries entries;
  for (int i = 0; i < 400; i++) {
    const bool large = i % 100 == 0;  // 4 values of 100 KB
    entries.emplace_back(InternalKeyOf(NumberedKey(i), 1, kTypeValue),
                         std::string(large ? 100000 : 10, 'v'));
  }
  ASSERT_OK(h->Build(entries));
  auto* r = h->reader();
  // 199 small entries (keys 1 to 199 less the large 100th): a few KB.
  const uint64_t small_range =
      ApproximateSize(r, entries[1].first, entries[100].first,
                      TableReaderCaller::kUserApproximateSize) +
      ApproximateSize(r, entries[101].first, entries[200].first,
                      TableReaderCaller::kUserApproximateSize);
  EXPECT_LT(small_range, 10000u);
  // One large value: about 100 KB.
  const uint64_t large_range =
      ApproximateSize(r, entries[100].first, entries[101].first,
                      TableReaderCaller::kUserApproximateSize);
  EXPECT_GT(large_range, 95000u);
  EXPECT_LT(large_range, 110000u);
  // Subcompaction anchors weigh the same bytes: the 128 ranges add up to
  // the file, and those holding a large value carry most of it.
  std::vector<TableReader::Anchor> anchors;
  ASSERT_OK(r->ApproximateKeyAnchors(ReadOptions(), anchors));
  uint64_t total = 0, largest = 0;
  for (const auto& a : anchors) {
    total += a.range_size;
    largest = std::max<uint64_t>(largest, a.range_size);
  }
  EXPECT_GT(largest, 95000u);
  EXPECT_GT(total, 400000u);
}

// RocksDB's DBTest.HiddenValuesAreRemoved: in a file of a few small entries
// the metadata is most of the file; as with BlockBasedTable it counts only
// past the last key, not spread over the entries' estimates.
TEST_P(CuckooHashTableTest, ASmallFilesMetadataCountsAtItsEnd) {
  auto h = Harness();
  Entries entries;
  for (int i = 0; i < 4; i++) {
    entries.emplace_back(InternalKeyOf(NumberedKey(i), 1, kTypeValue), "v");
  }
  ASSERT_OK(h->Build(entries));
  EXPECT_LT(ApproximateSize(h->reader(), entries[0].first, entries[3].first,
                            TableReaderCaller::kUserApproximateSize),
            100u);
  EXPECT_EQ(
      ApproximateOffsetOf(h->reader(), InternalKeyOf("zzz", 1, kTypeValue),
                          TableReaderCaller::kUserApproximateSize),
      h->FileSize());
}

// RocksDB's DBTest.ApproximateSizes: 80 values of 100 KB made a file a fifth
// larger than its data, as the empty slots of a slot-ordered file each took
// an entry's size.
TEST_P(CuckooHashTableTest, LargeEntriesOfOneSizeWasteNoSpace) {
  auto h = Harness();
  Entries entries;
  uint64_t data_bytes = 0;
  for (int i = 0; i < 80; i++) {
    entries.emplace_back(InternalKeyOf(NumberedKey(i), 1, kTypeValue),
                         std::string(100000, 'a' + i % 26));
    data_bytes += entries.back().first.size() + entries.back().second.size();
  }
  ASSERT_OK(h->Build(entries));
  EXPECT_LT(h->FileSize(), data_bytes + data_bytes / 50);
  // And each entry's share of the size estimates is its own size.
  const uint64_t one =
      ApproximateSize(h->reader(), entries[10].first, entries[11].first,
                      TableReaderCaller::kUserApproximateSize);
  EXPECT_GT(one, 100000u);
  EXPECT_LT(one, 102000u);
}

TEST_P(CuckooHashTableTest, VerifyChecksumAndReopen) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("a", 1, kTypeValue), "1"}}));
  EXPECT_OK(h->reader()->VerifyChecksum(
      ReadOptions(), TableReaderCaller::kUserVerifyChecksum));
  ASSERT_OK(h->Open());
  EXPECT_EQ(h->Get("a").value, "1");
}

TEST_P(CuckooHashTableTest, PinnedValueOutlivesReader) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("a", 1, kTypeValue), "survives"}}));
  PinnableSlice value;
  MergeContext merge_context;
  SequenceNumber max_covering_tombstone_seq = 0;
  GetContext ctx(BytewiseComparator(), nullptr, nullptr, nullptr,
                 GetContext::kNotFound, "a", &value, nullptr, nullptr,
                 &merge_context, true, &max_covering_tombstone_seq,
                 SystemClock::Default().get());
  ASSERT_OK(h->reader()->Get(ReadOptions(),
                             InternalKeyOf("a", kMaxSequenceNumber, kTypeValue),
                             &ctx, nullptr));
  ASSERT_TRUE(value.IsPinned());
  ASSERT_OK(h->Open());  // closes the first reader while the value is pinned
  EXPECT_EQ(value.ToString(), "survives");  // ASan would flag a freed buffer
  value.Reset();
}

// Fraction of a file's pages in the page cache, or -1 if it cannot tell.
double PageCacheFraction(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  double fraction = -1;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      std::vector<unsigned char> resident((size + page - 1) / page);
      if (mincore(map, size, resident.data()) == 0) {
        size_t in_cache = 0;
        for (unsigned char r : resident) in_cache += r & 1;
        fraction = static_cast<double>(in_cache) / resident.size();
      }
      munmap(map, size);
    }
  }
  close(fd);
  return fraction;
}

TEST_P(CuckooHashTableTest, LoadedTableLeavesThePageCache) {
  auto h = Harness();
  struct statfs fs;
  ASSERT_EQ(statfs(::testing::TempDir().c_str(), &fs), 0);
  if (fs.f_type == TMPFS_MAGIC) {
    GTEST_SKIP() << "tmpfs: the file's pages are its storage";
  }
  Entries entries;
  for (int i = 0; i < 20000; i++) {
    entries.emplace_back(InternalKeyOf(NumberedKey(i), 0, kTypeValue),
                         std::string(100, 'v'));
  }
  ASSERT_OK(h->Build(entries));
  // Written back and read whole: every page is cached and clean.
  const int fd = open(h->path().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
  ASSERT_GT(ReadWholeFile(h->path()).size(), size_t{2} << 20);
  ASSERT_GT(PageCacheFraction(h->path()), 0.9);

  ASSERT_OK(h->Open());
  // Reads every chunk (a loaded table loads each as it first verifies it).
  ASSERT_OK(h->reader()->VerifyChecksum(
      ReadOptions(), TableReaderCaller::kUserVerifyChecksum));
  const double cached = PageCacheFraction(h->path());
  if (GetParam().mmap) {
    EXPECT_GT(cached, 0.9);  // the mapping reads from the page cache
  } else {
    EXPECT_LT(cached, 0.1);  // the reader's buffer is the only copy
  }
  EXPECT_EQ(h->Get(NumberedKey(12345)).value, std::string(100, 'v'));
}

INSTANTIATE_TEST_SUITE_P(
    ReadModes, CuckooHashTableTest,
    ::testing::Values(Param{true, false}, Param{false, false},
                      Param{true, true}, Param{false, true}),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(info.param.mmap ? "Mmap" : "Loaded") +
             (info.param.identity ? "Identity" : "Hashed");
    });

}  // namespace
}  // namespace rocksdb_cuckoo
