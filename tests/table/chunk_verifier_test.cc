// Formats >= 2 checksum the data, order index and bucket array per 64 KiB chunk
// and verifies a chunk the first time a lookup reads it: a damaged chunk must
// turn every read that touches it into Corruption while the rest of the file
// stays readable, and opening the file must not need to read the chunks.
// Files of earlier formats (format 1: one checksum per region, verified at
// open; format 2: slot entries with varints) still read.
#include "table/chunk_verifier.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <string>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/iostats_context.h"
#include "rocksdb/iterator.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/utilities/object_registry.h"
#include "table/cuckoo_hash_table.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/internal_iterator.h"
#include "table/key_location.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/numbered_table.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_harness.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

using testing::CountCorruptLookups;
using testing::InternalKeyOf;
using testing::NumberedEntries;
using testing::NumberedUserKey;
using testing::NumberedValue;
using testing::ReadWholeFile;
using testing::TableHarness;
using testing::WriteWholeFile;
using namespace ROCKSDB_NAMESPACE;

Layout LayoutOf(const std::string& file) {
  Layout layout;
  EXPECT_OK(layout.DecodeFromFile(file));
  return layout;
}

// Random bytes, so that every chunk has a checksum of its own.
std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rnd(seed);
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rnd());
  return bytes;
}

std::string SumsOf(const std::string& region) {
  std::string sums;
  for (size_t at = 0; at < region.size(); at += kChecksumChunkSize) {
    PutFixed64(&sums, ComputeChecksum(kXXH3, region.data() + at,
                                      std::min<size_t>(kChecksumChunkSize,
                                                       region.size() - at)));
  }
  return sums;
}

class ChunkVerifierTest : public ::testing::Test {
 protected:
  ChunkVerifierTest()
      : region_(RandomBytes(3 * kChecksumChunkSize + 1000, 3)),
        sums_(SumsOf(region_)) {}
  ChunkVerifier Verifier() const {
    return ChunkVerifier(kXXH3, region_.data(), region_.size(), sums_.data(),
                         "test");
  }
  std::string region_;
  const std::string sums_;
};

TEST_F(ChunkVerifierTest, IntactRangesPassAndOutOfRegionFails) {
  const ChunkVerifier verifier = Verifier();
  Status error;
  EXPECT_TRUE(verifier.Check(0, 1, &error));
  EXPECT_TRUE(verifier.Check(kChecksumChunkSize - 5, 10, &error));
  EXPECT_TRUE(verifier.Check(region_.size() - 1, 1, &error));
  EXPECT_FALSE(verifier.Check(region_.size() - 1, 2, &error));
  EXPECT_TRUE(error.IsCorruption()) << error.ToString();
  EXPECT_FALSE(verifier.Check(region_.size(), 1, &error));
  EXPECT_FALSE(verifier.Check(UINT64_MAX, 2, &error));
  EXPECT_OK(verifier.VerifyAll());
}

// IsReady answers without verifying: only what a Check verified (or a
// trusted region) is ready, and a damaged chunk never becomes so.
TEST_F(ChunkVerifierTest, IsReadyOnlyForWhatACheckVerified) {
  const ChunkVerifier verifier = Verifier();
  EXPECT_FALSE(verifier.IsReady(0, 1));
  Status error;
  ASSERT_TRUE(verifier.Check(10, 1, &error));
  EXPECT_TRUE(verifier.IsReady(0, kChecksumChunkSize));
  EXPECT_FALSE(verifier.IsReady(kChecksumChunkSize - 1, 2)) << "two chunks";
  EXPECT_FALSE(verifier.IsReady(region_.size(), 1));
  region_[2 * kChecksumChunkSize] ^= 1;
  EXPECT_FALSE(verifier.Check(2 * kChecksumChunkSize, 1, &error));
  EXPECT_FALSE(verifier.IsReady(2 * kChecksumChunkSize, 1));
  EXPECT_TRUE(ChunkVerifier().IsReady(0, 1)) << "a trusted region";
}

TEST_F(ChunkVerifierTest, DamageFailsOnlyItsChunkUntilRepaired) {
  const ChunkVerifier verifier = Verifier();
  const uint64_t damaged = 2 * kChecksumChunkSize + 7;
  region_[damaged] ^= 1;
  Status error;
  EXPECT_TRUE(verifier.Check(0, kChecksumChunkSize, &error));
  EXPECT_FALSE(verifier.Check(2 * kChecksumChunkSize - 1, 2, &error));
  EXPECT_TRUE(error.IsCorruption());
  EXPECT_NE(error.ToString().find("test region, chunk at offset " +
                                  std::to_string(2 * kChecksumChunkSize)),
            std::string::npos)
      << error.ToString();
  EXPECT_FALSE(verifier.Check(damaged, 1, &error));  // a failure is not kept
  EXPECT_TRUE(verifier.VerifyAll().IsCorruption());
  region_[damaged] ^= 1;
  EXPECT_TRUE(verifier.Check(damaged, 1, &error));
}

TEST_F(ChunkVerifierTest, VerifyAllRechecksChunksAlreadyVerified) {
  const ChunkVerifier verifier = Verifier();
  Status error;
  ASSERT_TRUE(verifier.Check(0, region_.size(), &error));
  region_[5] ^= 1;
  EXPECT_TRUE(verifier.Check(5, 1, &error));  // verified once, trusted
  EXPECT_TRUE(verifier.VerifyAll().IsCorruption());
}

// A table of several chunks in every bulk region, read through a
// TableReader (mmap on and off).
class LazyTableTest : public ::testing::TestWithParam<bool> {
 protected:
  static constexpr int kKeys = 40000;

  void SetUp() override {
    static int counter = 0;
    // Chunks load only as reads reach them, which these tests watch.
    CuckooHashTableOptions options;
    options.load_in_background = false;
    harness_ = std::make_unique<TableHarness>(
        NewCuckooHashTableFactory(options),
        ::testing::TempDir() + "/cuckoo_lazy_test_" + std::to_string(getpid()) +
            "_" + std::to_string(counter++) + ".sst",
        GetParam());
    ASSERT_OK(harness_->Build(NumberedEntries(kKeys)));
    pristine_ = ReadWholeFile(harness_->path());
    layout_ = LayoutOf(pristine_);
    ASSERT_EQ(layout_.format_version, kFormatVersion);
    ASSERT_GE(layout_.data_size, 20 * kChecksumChunkSize);
    ASSERT_GE(layout_.buckets_size(), 2 * kChecksumChunkSize);
  }

  // Reopens the file with byte `offset` flipped.
  Status OpenDamaged(uint64_t offset) {
    std::string damaged = pristine_;
    damaged[offset] ^= 0x10;
    if (!WriteWholeFile(harness_->path(), damaged)) {
      return Status::IOError("cannot write " + harness_->path());
    }
    return harness_->Open();
  }

  // Every key reads back either right or as Corruption; returns how many
  // were Corruption.
  int GetAll() { return CountCorruptLookups(harness_.get(), kKeys); }

  // Forward scan: entries are right until a Corruption stops it.
  void ScanUntilDamage(bool expect_damage) {
    std::unique_ptr<InternalIterator> it(
        harness_->reader()->NewIterator(ReadOptions(), nullptr, nullptr, false,
                                        TableReaderCaller::kUserIterator));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
      ASSERT_EQ(ExtractUserKey(it->key()).ToString(), NumberedUserKey(n));
      ASSERT_EQ(it->value().ToString(), NumberedValue(n));
    }
    if (expect_damage) {
      EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
      EXPECT_LT(n, kKeys);
    } else {
      EXPECT_OK(it->status());
      EXPECT_EQ(n, kKeys);
    }
  }

  std::unique_ptr<TableHarness> harness_;
  std::string pristine_;
  Layout layout_;
};

TEST_P(LazyTableTest, DamagedDataChunkFailsOnlyTheKeysInIt) {
  const uint64_t offset = layout_.data_size / 2;
  ASSERT_OK(OpenDamaged(offset));  // the chunk is not read at open
  const int corrupt = GetAll();
  EXPECT_GT(corrupt, 0);
  // One 64 KiB chunk of entries of about 100 bytes.
  EXPECT_LT(corrupt, 2 * static_cast<int>(kChecksumChunkSize / 60));
  ScanUntilDamage(/*expect_damage=*/true);
  EXPECT_TRUE(harness_->reader()
                  ->VerifyChecksum(ReadOptions(),
                                   TableReaderCaller::kUserVerifyChecksum)
                  .IsCorruption());
}

TEST_P(LazyTableTest, VerifyChecksumsOffSkipsTheCheckOnlyOnMappedFiles) {
  ASSERT_OK(OpenDamaged(layout_.data_size / 2));
  ReadOptions unchecked;
  unchecked.verify_checksums = false;
  int failed = 0;
  for (int i = 0; i < kKeys; i++) {
    const TableHarness::GetResult r =
        harness_->Get(NumberedUserKey(i), kMaxSequenceNumber, unchecked);
    if (!r.status.ok()) {
      EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
      failed++;
    } else if (!GetParam()) {
      EXPECT_EQ(r.value, NumberedValue(i)) << NumberedUserKey(i);
    }
  }
  if (GetParam()) {
    // As BlockBasedTable does, ReadOptions::verify_checksums=false skips
    // the check: at most the entry whose header was hit fails to parse.
    EXPECT_LE(failed, 1);
    // Those reads marked no chunk verified: checked reads still fail.
    EXPECT_GT(GetAll(), 100);
  } else {
    // A loaded file verifies each chunk as it reads it from the file, so
    // unchecked reads meet the damage as checked ones do.
    EXPECT_GT(failed, 100);
    EXPECT_EQ(GetAll(), failed);
  }
}

TEST_P(LazyTableTest, LoadedFileIsReadChunkByChunkAsLookupsReachIt) {
  if (GetParam()) GTEST_SKIP() << "a mapped file is read by page faults";
  const uint64_t file_size = pristine_.size();
  const uint64_t before_open = get_iostats_context()->bytes_read;
  ASSERT_OK(harness_->Open());
  // Opening reads the small regions (and RocksDB's property block) only.
  const uint64_t at_open = get_iostats_context()->bytes_read - before_open;
  EXPECT_LT(at_open, file_size / 20);
  EXPECT_LT(harness_->reader()->ApproximateMemoryUsage(), file_size / 20);
  EXPECT_EQ(harness_->Get(NumberedUserKey(7)).value, NumberedValue(7));
  const uint64_t one_get =
      get_iostats_context()->bytes_read - before_open - at_open;
  // The chunks around its bucket and its entry, not the file.
  EXPECT_GT(one_get, 0u);
  EXPECT_LT(one_get, file_size / 2);
  // Every key is right, whichever chunk loaded first; the bulk regions are
  // read once each.
  EXPECT_EQ(GetAll(), 0);
  ScanUntilDamage(/*expect_damage=*/false);
  ASSERT_OK(harness_->reader()->VerifyChecksum(
      ReadOptions(), TableReaderCaller::kUserVerifyChecksum));
  const uint64_t total = get_iostats_context()->bytes_read - before_open;
  EXPECT_GE(total, layout_.data_size + layout_.buckets_size());
  EXPECT_LT(total, file_size + file_size / 20);
  EXPECT_GE(harness_->reader()->ApproximateMemoryUsage(), file_size);
}

TEST_P(LazyTableTest, LoadedFileFailingToReadFailsTheLookupNotTheOpen) {
  if (GetParam()) GTEST_SKIP() << "a mapped file is read by page faults";
  ASSERT_OK(harness_->Open());
  // The file shrinks under the open reader: chunks not loaded yet cannot
  // be read, and say so; none is returned as data.
  ASSERT_TRUE(WriteWholeFile(harness_->path(),
                             pristine_.substr(0, layout_.data_size / 2)));
  int failed = 0;
  for (int i = 0; i < kKeys; i++) {
    const TableHarness::GetResult r = harness_->Get(NumberedUserKey(i));
    if (r.status.ok()) {
      EXPECT_EQ(r.value, NumberedValue(i)) << NumberedUserKey(i);
    } else {
      EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
      failed++;
    }
  }
  EXPECT_GT(failed, kKeys / 4);
}

TEST_P(LazyTableTest, DamagedBucketChunkFailsOnlyTheKeysHashedToIt) {
  const uint64_t offset = layout_.buckets_offset + kChecksumChunkSize + 100;
  ASSERT_OK(OpenDamaged(offset));
  const int corrupt = GetAll();
  EXPECT_GT(corrupt, 0);
  EXPECT_LT(corrupt, kKeys / 2);
  // A scan reads the order index and the data, not the buckets.
  ScanUntilDamage(/*expect_damage=*/false);
  EXPECT_TRUE(harness_->reader()
                  ->VerifyChecksum(ReadOptions(),
                                   TableReaderCaller::kUserVerifyChecksum)
                  .IsCorruption());
}

TEST_P(LazyTableTest, DamagedOrderIndexChunkStopsSeeksThatReachIt) {
  const uint64_t offset = layout_.order_offset + layout_.order_size() - 3;
  ASSERT_OK(OpenDamaged(offset));
  EXPECT_EQ(GetAll(), 0);  // point lookups never read the order index
  ScanUntilDamage(/*expect_damage=*/true);
  std::unique_ptr<InternalIterator> it(
      harness_->reader()->NewIterator(ReadOptions(), nullptr, nullptr, false,
                                      TableReaderCaller::kUserIterator));
  it->Seek(InternalKeyOf(NumberedUserKey(kKeys - 1), kMaxSequenceNumber,
                         kTypeValue));
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  it->Seek(InternalKeyOf(NumberedUserKey(0), kMaxSequenceNumber, kTypeValue));
  ASSERT_TRUE(it->Valid()) << it->status().ToString();
  EXPECT_OK(it->status());
  EXPECT_EQ(it->value().ToString(), NumberedValue(0));
}

TEST_P(LazyTableTest, DamagedChunkChecksumsFailTheOpen) {
  const Status s = OpenDamaged(layout_.chunk_sums_offset() + 3);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("chunk checksums of the data region"),
            std::string::npos)
      << s.ToString();
}

TEST_P(LazyTableTest, IntactFileVerifiesAndReadsEverything) {
  EXPECT_EQ(GetAll(), 0);
  ScanUntilDamage(/*expect_damage=*/false);
  EXPECT_OK(harness_->reader()->VerifyChecksum(
      ReadOptions(), TableReaderCaller::kUserVerifyChecksum));
}

INSTANTIATE_TEST_SUITE_P(ReadModes, LazyTableTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Mmap" : "Loaded";
                         });

// Key-ordered files (here: two versions of every key, kept for a snapshot)
// store each slot's entry offset in its bucket. A damaged offset can point
// at another intact entry, even an older version of the very key looked up;
// a lookup that trusted it before verifying the bucket would return that
// entry's value as found, a silent wrong answer.
class RedirectedOffsetTest : public ::testing::TestWithParam<bool> {
 protected:
  static constexpr int kKeys = 20;
  static std::string Key(int i) { return "key" + std::to_string(i); }
  static std::string NewValue(int i) {
    return "new-" + std::string(i % 7, 'n') + std::to_string(i);
  }
  static std::string OldValue(int i) { return "old-" + std::to_string(i); }

  void SetUp() override {
    harness_ = std::make_unique<TableHarness>(
        NewCuckooHashTableFactory(),
        ::testing::TempDir() + "/cuckoo_redirected_" +
            std::to_string(getpid()) + (GetParam() ? "_mmap" : "_loaded") +
            ".sst",
        GetParam());
    std::vector<std::pair<std::string, std::string>> entries;
    for (int i = 0; i < kKeys; i++) {
      entries.emplace_back(InternalKeyOf(Key(i), 9, kTypeValue), NewValue(i));
      entries.emplace_back(InternalKeyOf(Key(i), 4, kTypeValue), OldValue(i));
    }
    ASSERT_OK(harness_->Build(entries));
    pristine_ = ReadWholeFile(harness_->path());
    layout_ = LayoutOf(pristine_);
    ASSERT_FALSE(layout_.fixed_slots());
    EntryView entry;
    for (uint64_t at = 0; at < layout_.data_size; at = entry.next_offset) {
      ASSERT_TRUE(ParseEntry(pristine_.data(), layout_.data_size, at, &entry));
      entry_starts_.push_back(at);
    }
    ASSERT_EQ(entry_starts_.size(), 2u * kKeys);
  }

  // Where bucket `b` sits in the file.
  uint64_t BucketAt(uint64_t b) const {
    return layout_.buckets_offset + b * kBucketSize;
  }
  Bucket BucketOf(const std::string& file, uint64_t b) const {
    Bucket bucket;
    memcpy(&bucket, &file[BucketAt(b)], sizeof(bucket));
    return bucket;
  }
  // Reopens the file with the offset of `slot` of bucket `b` set to `to`.
  Status OpenRedirected(uint64_t b, uint32_t slot, uint64_t to) {
    std::string file = pristine_;
    Bucket bucket = BucketOf(file, b);
    bucket.Set(slot, bucket.fingerprints.fingerprint[slot], to);
    memcpy(&file[BucketAt(b)], &bucket, sizeof(bucket));
    if (!WriteWholeFile(harness_->path(), file)) {
      return Status::IOError("cannot write " + harness_->path());
    }
    return harness_->Open();
  }
  // Every key, by Get and in one MultiGet batch, reads its newest value or
  // Corruption; returns how many reads were Corruption.
  int ReadAll() {
    std::vector<std::string> keys;
    int corrupt = 0;
    auto check = [&](int i, const TableHarness::GetResult& r, const char* how) {
      if (r.status.IsCorruption()) {
        corrupt++;
        return;
      }
      EXPECT_TRUE(r.status.ok())
          << how << " " << Key(i) << ": " << r.status.ToString();
      EXPECT_EQ(r.value, NewValue(i)) << how << " " << Key(i);
    };
    for (int i = 0; i < kKeys; i++) {
      check(i, harness_->Get(Key(i)), "Get");
      keys.push_back(Key(i));
    }
    const std::vector<TableHarness::GetResult> batch = harness_->MultiGet(keys);
    for (int i = 0; i < kKeys; i++) check(i, batch[i], "MultiGet");
    return corrupt;
  }

  std::unique_ptr<TableHarness> harness_;
  std::string pristine_;
  Layout layout_;
  std::vector<uint64_t> entry_starts_;  // in the data region, in order
};

TEST_P(RedirectedOffsetTest, PointingAtAnOlderVersionIsCorruption) {
  // The newest version of key 0 and the one after it, its older version.
  const KeyLocation kh = LocateUserKey(Key(0), layout_.identity_as_first_hash,
                                       layout_.num_buckets, layout_.hash_seed);
  bool redirected = false;
  for (const uint64_t b : {kh.bucket1, kh.bucket2}) {
    const Bucket bucket = BucketOf(pristine_, b);
    for (uint32_t slot = 0; slot < kSlotsPerBucket && !redirected; slot++) {
      if (bucket.OffsetAt(slot) != entry_starts_[0]) continue;
      ASSERT_OK(OpenRedirected(b, slot, entry_starts_[1]));
      redirected = true;
    }
  }
  ASSERT_TRUE(redirected);
  const TableHarness::GetResult got = harness_->Get(Key(0));
  EXPECT_TRUE(got.status.IsCorruption()) << got.status.ToString();
  const std::vector<TableHarness::GetResult> batch =
      harness_->MultiGet({Key(1), Key(0), Key(2)});
  EXPECT_TRUE(batch[1].status.IsCorruption()) << batch[1].status.ToString();
  EXPECT_NE(batch[1].value, OldValue(0));
}

// Every slot in use, redirected in turn to every other entry: no read
// returns a wrong value, and the key whose slot it is reads Corruption.
TEST_P(RedirectedOffsetTest, EveryRedirectionIsCorruptionNeverAWrongValue) {
  int variants = 0;
  for (uint64_t b = 0; b < layout_.num_buckets; b++) {
    const Bucket bucket = BucketOf(pristine_, b);
    for (uint32_t slot = 0; slot < kSlotsPerBucket; slot++) {
      if (bucket.fingerprints.fingerprint[slot] == 0) continue;
      for (const uint64_t to : entry_starts_) {
        if (to == bucket.OffsetAt(slot)) continue;
        SCOPED_TRACE("bucket " + std::to_string(b) + " slot " +
                     std::to_string(slot) + " to " + std::to_string(to));
        ASSERT_OK(OpenRedirected(b, slot, to));
        ASSERT_GT(ReadAll(), 0);
        variants++;
      }
    }
  }
  EXPECT_EQ(variants, kKeys * (2 * kKeys - 1));  // a slot per user key
}

INSTANTIATE_TEST_SUITE_P(ReadModes, RedirectedOffsetTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Mmap" : "Loaded";
                         });

// A file written by the last release of format `version`, in "slot" or
// "key" order.
std::string EarlierFormatFile(int version, const char* order) {
  return std::string(CUCKOO_SOURCE_DIR) + "/tests/data/format" +
         std::to_string(version) + "_" + order + "_order.sst";
}

// Files written by earlier releases (tests/data/format<N>_*.sst, made by the
// last release of each format with SstFileWriter): 300 keys "key000000"..
// with values "value-<key>" in slot order, and with values of i % 50
// letters, key 7 deleted and a range deletion [key000400, key000500) in key
// order.
class EarlierFormatTest
    : public ::testing::TestWithParam<std::tuple<int, bool>> {
 protected:
  void SetUp() override {
    static std::once_flag once;
    std::call_once(
        once, [] { register_rocksdb_cuckoo(*ObjectLibrary::Default(), ""); });
    options_.table_factory = NewCuckooHashTableFactory();
    options_.allow_mmap_reads = std::get<1>(GetParam());
  }
  int version() const { return std::get<0>(GetParam()); }
  std::string Fixture(const char* order) const {
    return EarlierFormatFile(version(), order);
  }
  static std::string Key(int i) {
    char key[16];
    snprintf(key, sizeof(key), "key%06d", i);
    return key;
  }
  // Reads the whole file and checks it against `value_of`; key `deleted`
  // (if any) must not show.
  void ReadAll(const std::string& path, const char* order,
               std::string (*value_of)(int), int deleted) {
    SstFileReader reader(options_);
    ASSERT_OK(reader.Open(path));
    const auto properties = reader.GetTableProperties();
    ASSERT_NE(properties, nullptr);
    const auto& user = properties->user_collected_properties;
    EXPECT_EQ(user.at("rocksdb.cuckoo.format_version"),
              std::to_string(version()));
    EXPECT_EQ(user.at("rocksdb.cuckoo.data_order"), order);
    EXPECT_OK(reader.VerifyChecksum());
    std::unique_ptr<Iterator> it(reader.NewIterator(ReadOptions()));
    int expected = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (expected == deleted) expected++;
      ASSERT_EQ(it->key().ToString(), Key(expected));
      ASSERT_EQ(it->value().ToString(), value_of(expected));
      expected++;
    }
    EXPECT_OK(it->status());
    EXPECT_EQ(expected, 300);
    it->Seek(Key(150));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value().ToString(), value_of(150));
    it->Seek(Key(deleted));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key().ToString(), Key(deleted + 1));
  }
  static std::string SlotOrderValue(int i) { return "value-" + Key(i); }
  static std::string KeyOrderValue(int i) {
    return std::string(i % 50, static_cast<char>('a' + i % 26));
  }
  Options options_;
};

TEST_P(EarlierFormatTest, SlotOrderedFileReads) {
  ReadAll(Fixture("slot"), "slot", SlotOrderValue, -1);
}

TEST_P(EarlierFormatTest, KeyOrderedFileReads) {
  ReadAll(Fixture("key"), "key", KeyOrderValue, 7);
}

INSTANTIATE_TEST_SUITE_P(
    VersionsAndReadModes, EarlierFormatTest,
    ::testing::Combine(::testing::Values(1, 2), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<int, bool>>& info) {
      return "Format" + std::to_string(std::get<0>(info.param)) +
             (std::get<1>(info.param) ? "Mmap" : "Loaded");
    });

// Format 1 has no chunk checksums: its reader verifies every region when it
// opens the file.
class FormatOneTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    options_.table_factory = NewCuckooHashTableFactory();
    options_.allow_mmap_reads = GetParam();
  }
  Options options_;
};

TEST_P(FormatOneTest, DamageIsFoundAtOpen) {
  const std::string pristine = ReadWholeFile(EarlierFormatFile(1, "slot"));
  const Layout layout = LayoutOf(pristine);
  ASSERT_EQ(layout.format_version, 1u);
  ASSERT_EQ(layout.chunk_sums_size(), 0u);
  const std::string path = ::testing::TempDir() + "/cuckoo_format1_" +
                           std::to_string(getpid()) + ".sst";
  for (uint64_t offset :
       {uint64_t{5}, layout.order_offset + 1, layout.buckets_offset + 70}) {
    std::string damaged = pristine;
    damaged[offset] ^= 0x01;
    ASSERT_TRUE(WriteWholeFile(path, damaged));
    SstFileReader reader(options_);
    const Status s = reader.Open(path);
    EXPECT_TRUE(s.IsCorruption())
        << "offset " << offset << ": " << s.ToString();
  }
  unlink(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(ReadModes, FormatOneTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Mmap" : "Loaded";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
