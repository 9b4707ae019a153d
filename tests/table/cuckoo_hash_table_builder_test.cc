// CuckooHashTableBuilder: what it writes for each shape of input (slot order
// or key order, trailers kept or dropped) and the properties it counts.
#include "table/cuckoo_hash_table_builder.h"

#include <gtest/gtest.h>

#include "table/cuckoo_hash_table_format.h"
#include "tests/support/cuckoo_hash_table_fixture.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo::testing {
namespace {

class CuckooHashTableBuilderTest : public CuckooHashTableTest {};

// Fixed-size entries, one per user key: the data goes in slot order (or key
// order when the option is off) and reads the same either way.
TEST_P(CuckooHashTableBuilderTest, FixedSizeEntriesInSlotOrderAndKeyOrder) {
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

// A second version of a key, a different entry size, or the same entry size
// split differently between key and value, midway, turns slot ordering off
// for the file; the entries already buffered stay correct.
TEST_P(CuckooHashTableBuilderTest, SlotOrderFallsBackToKeyOrder) {
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
TEST_P(CuckooHashTableBuilderTest, SlotEntriesStoreTrailersOnlyWhenNeeded) {
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
TEST_P(CuckooHashTableBuilderTest, EmptySlotEntryKeepsItsTrailer) {
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

// RocksDB reads these counts back (compensated sizes divide by the raw sizes
// whenever a file holds more entries than deletions; 9.x checks compaction
// input counts), so they must be exactly BlockBasedTable's for the same input.
TEST_P(CuckooHashTableBuilderTest, EntryCountsMatchBlockBasedTable) {
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

// RocksDB's DBTest.ApproximateSizes: 80 values of 100 KB made a file a fifth
// larger than its data, as the empty slots of a slot-ordered file each took
// an entry's size.
TEST_P(CuckooHashTableBuilderTest, LargeEntriesOfOneSizeWasteNoSpace) {
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

// A compaction cuts its output files by EstimatedFileSize: the files come
// out the size RocksDB's target_file_size options ask for only if the
// estimate, empty slots included, is the size.
TEST_P(CuckooHashTableBuilderTest, EstimatedFileSizeIsTheSize) {
  for (bool slot_ordered : {true, false}) {
    for (int value_size : {20, 100, 400}) {
      // Sequence 0: a bottommost file, whose slots drop the trailers.
      for (SequenceNumber seq : {0, 1}) {
        auto h = Harness(slot_ordered);
        Entries entries;
        for (int i = 0; i < 50000; i++) {
          entries.emplace_back(InternalKeyOf(NumberedKey(i), seq, kTypeValue),
                               std::string(value_size, 'a' + i % 26));
        }
        ASSERT_OK(h->Build(entries));
        const double ratio =
            static_cast<double>(h->estimated_file_size()) / h->FileSize();
        EXPECT_GT(ratio, 0.97) << slot_ordered << " " << value_size << seq;
        EXPECT_LT(ratio, 1.03) << slot_ordered << " " << value_size << seq;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ReadModes, CuckooHashTableBuilderTest, ReadModes(),
                         ReadModeName);

}  // namespace
}  // namespace rocksdb_cuckoo::testing
