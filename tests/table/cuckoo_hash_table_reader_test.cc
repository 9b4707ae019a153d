// CuckooHashTableReader on edge cases: lookups of every entry type and size,
// snapshots, range tombstones, size estimates, checksums, pinned values and
// the page cache.
#include "table/cuckoo_hash_table_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <map>
#include <random>

#include "db/range_tombstone_fragmenter.h"
#include "table/cuckoo_hash_table_format.h"
#include "tests/support/cuckoo_hash_table_fixture.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo::testing {
namespace {

class CuckooHashTableReaderTest : public CuckooHashTableTest {};

TEST_P(CuckooHashTableReaderTest, EmptyTable) {
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

TEST_P(CuckooHashTableReaderTest, OneKey) {
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

TEST_P(CuckooHashTableReaderTest, EmptyKeyAndEmptyValue) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("", 1, kTypeValue), "empty key"},
                      {InternalKeyOf("x", 1, kTypeValue), ""}}));
  EXPECT_EQ(h->Get("").value, "empty key");
  auto r = h->Get("x");
  EXPECT_EQ(r.state, GetContext::kFound);
  EXPECT_EQ(r.value, "");
}

TEST_P(CuckooHashTableReaderTest, HugeValues) {
  auto h = Harness();
  const std::string big(3 << 20, 'v');
  ASSERT_OK(h->Build({{InternalKeyOf("big", 1, kTypeValue), big},
                      {InternalKeyOf("small", 1, kTypeValue), "s"}}));
  EXPECT_EQ(h->Get("big").value, big);
  EXPECT_EQ(h->Get("small").value, "s");
}

TEST_P(CuckooHashTableReaderTest, ManyKeysAllFoundAndAbsentNotFound) {
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

TEST_P(CuckooHashTableReaderTest, EightByteIntegerKeys) {
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

// In slot order the bytes after an entry may be an empty slot: a lookup that
// does not stop at the entry (invisible at the snapshot, or a merge operand
// needing more) must not read on.
TEST_P(CuckooHashTableReaderTest, SlotOrderLookupsStopAtTheirEntry) {
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

// In a file of fixed slots a hit trusts its entry without checking the
// bucket that pointed there, but a miss may only be answered from verified
// fingerprints: a damaged fingerprint must not hide its key, whether the
// file is mapped or loaded.
TEST_P(CuckooHashTableReaderTest, DamagedFingerprintNeverHidesItsKey) {
  auto h = Harness();
  constexpr int kKeys = 2000;
  Entries entries;
  for (int i = 0; i < kKeys; i++) {
    entries.emplace_back(InternalKeyOf(NumberedKey(i), 0, kTypeValue),
                         std::string(20, static_cast<char>('a' + i % 26)));
  }
  ASSERT_OK(h->Build(entries));
  const std::string pristine = ReadWholeFile(h->path());
  Layout layout;
  ASSERT_OK(layout.DecodeFromFile(pristine));
  ASSERT_TRUE(layout.fixed_slots());
  for (int i = 0; i < kKeys; i += 97) {
    const std::string key = NumberedKey(i);
    SCOPED_TRACE(key);
    // Slot s's entry starts at s x the entry size, with the key first.
    const size_t at = pristine.find(key);
    ASSERT_LT(at, layout.data_size);
    ASSERT_EQ(at % layout.slot_entry_size, 0u);
    const uint64_t slot = at / layout.slot_entry_size;
    std::string damaged = pristine;
    damaged[layout.buckets_offset +
            slot / kSlotsPerBucket * layout.bucket_stride() +
            slot % kSlotsPerBucket * sizeof(uint16_t)] ^= 0x10;
    ASSERT_TRUE(WriteWholeFile(h->path(), damaged));
    ASSERT_OK(h->Open());
    const auto r = h->Get(key);
    EXPECT_TRUE(r.status.IsCorruption())
        << r.status.ToString() << ", state " << static_cast<int>(r.state);
  }
}

TEST_P(CuckooHashTableReaderTest, VersionsOfOneKeyHonourSnapshots) {
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

TEST_P(CuckooHashTableReaderTest, AllEntryTypes) {
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

TEST_P(CuckooHashTableReaderTest, RangeTombstonesAreStoredAndFragmented) {
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

TEST_P(CuckooHashTableReaderTest, NoTombstoneIteratorWithoutTombstones) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("a", 1, kTypeValue), "1"}}));
  EXPECT_EQ(h->reader()->NewRangeTombstoneIterator(read_options_), nullptr);
}

TEST_P(CuckooHashTableReaderTest, ApproximateOffsetsGrowWithKeys) {
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
TEST_P(CuckooHashTableReaderTest, ApproximateSizesFollowTheBytesOfTheEntries) {
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
TEST_P(CuckooHashTableReaderTest, ASmallFilesMetadataCountsAtItsEnd) {
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

TEST_P(CuckooHashTableReaderTest, VerifyChecksumAndReopen) {
  auto h = Harness();
  ASSERT_OK(h->Build({{InternalKeyOf("a", 1, kTypeValue), "1"}}));
  EXPECT_OK(h->reader()->VerifyChecksum(
      ReadOptions(), TableReaderCaller::kUserVerifyChecksum));
  ASSERT_OK(h->Open());
  EXPECT_EQ(h->Get("a").value, "1");
}

TEST_P(CuckooHashTableReaderTest, PinnedValueOutlivesReader) {
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

TEST_P(CuckooHashTableReaderTest, LoadedTableLeavesThePageCache) {
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

INSTANTIATE_TEST_SUITE_P(ReadModes, CuckooHashTableReaderTest, ReadModes(),
                         ReadModeName);

}  // namespace
}  // namespace rocksdb_cuckoo::testing
