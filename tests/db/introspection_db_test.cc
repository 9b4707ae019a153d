// What applications and operators ask a DB about its data, and the manual
// file operations they run, with both of the plugin's parts: approximate
// sizes of key ranges (table files and memtable), the key count estimate,
// CompactFiles, DeleteFilesInRange, iterators that pin their keys
// (ReadOptions::pin_data), and whole-file checksums (VerifyFileChecksums).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/file_checksum.h"
#include "rocksdb/metadata.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/version.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 20000;

std::string KeyOf(int i) { return testing::NumberedKey(i, 6); }
std::string ValueOf(int i) { return std::string(80, 'a' + i % 26); }

class IntrospectionTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    options_.create_if_missing = true;
    options_.allow_mmap_reads = GetParam();
    options_.disable_auto_compactions = true;
    options_.memtable_factory = NewStripedHashMemTableFactory();
    options_.table_factory = NewCuckooHashTableFactory();
    ASSERT_OK(db_.Open(options_));
  }

  // Writes keys [begin, end) and flushes them into one file.
  void WriteFile(int begin, int end) {
    for (int i = begin; i < end; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), ValueOf(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }

  uint64_t SizeOf(int begin, int end, bool files, bool memtables) {
    const std::string from = KeyOf(begin);
    const std::string to = KeyOf(end);
    const Range range(from, to);
    SizeApproximationOptions options;
    options.include_files = files;
    options.include_memtables = memtables;
    uint64_t size = 0;
    EXPECT_OK(db_->GetApproximateSizes(options, db_->DefaultColumnFamily(),
                                       &range, 1, &size));
    return size;
  }

  uint64_t LiveFileBytes() {
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    uint64_t bytes = 0;
    for (const LiveFileMetaData& f : files) bytes += f.size;
    return bytes;
  }

  Options options_;
  testing::ScratchDb db_{"introspection"};
};

TEST_P(IntrospectionTest, ApproximateSizesFollowTheKeyRange) {
  WriteFile(0, kKeys);
  const uint64_t file_bytes = LiveFileBytes();
  const uint64_t whole = SizeOf(0, kKeys, true, false);
  const uint64_t half = SizeOf(0, kKeys / 2, true, false);
  const uint64_t quarter = SizeOf(kKeys / 2, kKeys * 3 / 4, true, false);
  EXPECT_GE(whole, file_bytes * 8 / 10);
  EXPECT_LE(whole, file_bytes);
  EXPECT_GE(half, whole * 4 / 10);
  EXPECT_LE(half, whole * 6 / 10);
  EXPECT_GE(quarter, whole * 15 / 100);
  EXPECT_LE(quarter, whole * 35 / 100);
  // Past the file's last key.
  EXPECT_LE(SizeOf(kKeys, kKeys + 1000, true, false), file_bytes / 100);

  // Keys only in the memtable: its estimate counts about the range's share.
  for (int i = kKeys; i < 2 * kKeys; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), ValueOf(i)));
  }
  uint64_t count = 0;
  uint64_t bytes = 0;
  const std::string from = KeyOf(kKeys);
  const std::string to = KeyOf(kKeys + kKeys / 2);
  db_->GetApproximateMemTableStats(db_->DefaultColumnFamily(), Range(from, to),
                                   &count, &bytes);
  EXPECT_GE(count, uint64_t{kKeys} * 4 / 10);
  EXPECT_LE(count, uint64_t{kKeys} * 6 / 10);
  EXPECT_GT(SizeOf(kKeys, kKeys + kKeys / 2, false, true), 0u);

  uint64_t estimate = 0;
  ASSERT_TRUE(db_->GetIntProperty("rocksdb.estimate-num-keys", &estimate));
  EXPECT_GE(estimate, uint64_t{kKeys} * 2 * 9 / 10);
  EXPECT_LE(estimate, uint64_t{kKeys} * 2 * 11 / 10);
}

TEST_P(IntrospectionTest, CompactFilesRewritesChosenFilesInTheFormat) {
  WriteFile(0, kKeys / 2);
  WriteFile(kKeys / 4, kKeys);  // overwrites the upper half of the first
  std::vector<std::string> inputs;
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 2u);
  for (const LiveFileMetaData& f : files) inputs.push_back(f.name);
  ASSERT_OK(db_->CompactFiles(CompactionOptions(), inputs, /*level=*/1));
  files.clear();
  db_->GetLiveFilesMetaData(&files);
  ASSERT_FALSE(files.empty());
  for (const LiveFileMetaData& f : files) {
    EXPECT_EQ(f.level, 1);
    EXPECT_EQ(f.num_entries, static_cast<uint64_t>(kKeys)) << f.name;
    EXPECT_NE(testing::FileMagic(f.db_path + f.name),
              testing::kBlockBasedTableMagic)
        << f.name;
  }
  std::string value;
  for (int i = 0; i < kKeys; i += 7) {
    ASSERT_OK(db_->Get(ReadOptions(), KeyOf(i), &value));
    EXPECT_EQ(value, ValueOf(i));
  }
}

TEST_P(IntrospectionTest, DeleteFilesInRangeDropsTheFilesItCovers) {
  WriteFile(0, kKeys / 2);
  WriteFile(kKeys / 2, kKeys);
  // Files below L0 can be dropped: move both to L1.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  const size_t before = files.size();
  ASSERT_GE(before, 1u);
  const std::string begin = KeyOf(0);
  const std::string end = KeyOf(kKeys);
  const Slice begin_slice(begin);
  const Slice end_slice(end);
  ASSERT_OK(DeleteFilesInRange(db_.get(), db_->DefaultColumnFamily(),
                               &begin_slice, &end_slice));
  files.clear();
  db_->GetLiveFilesMetaData(&files);
  EXPECT_TRUE(files.empty());
  std::string value;
  EXPECT_TRUE(db_->Get(ReadOptions(), KeyOf(5), &value).IsNotFound());
  // The DB goes on taking and reading writes.
  ASSERT_OK(db_->Put(WriteOptions(), KeyOf(5), "again"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Get(ReadOptions(), KeyOf(5), &value));
  EXPECT_EQ(value, "again");
}

TEST_P(IntrospectionTest, PinnedIteratorKeysStayValidWhileItLives) {
  WriteFile(0, kKeys);
  ReadOptions read;
  read.pin_data = true;
  std::unique_ptr<Iterator> it(db_->NewIterator(read));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  std::string pinned;
  ASSERT_OK(it->GetProperty("rocksdb.iterator.is-key-pinned", &pinned));
  ASSERT_EQ(pinned, "1") << "CuckooHashTable keys live in the file's memory";
  // Keys and values as slices into the table, not copies.
  std::vector<Slice> keys;
  std::vector<Slice> values;
  for (; it->Valid(); it->Next()) {
    keys.push_back(it->key());
    values.push_back(it->value());
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(keys.size(), size_t{kKeys});
  for (int i = 0; i < kKeys; i++) {
    ASSERT_EQ(keys[i].ToString(), KeyOf(i));
    ASSERT_EQ(values[i].ToString(), ValueOf(i));
  }
}

TEST_P(IntrospectionTest, FileChecksumsAreRecordedAndCatchDamage) {
  options_.file_checksum_gen_factory = GetFileChecksumGenCrc32cFactory();
  ASSERT_OK(db_.Open(options_));
  WriteFile(0, kKeys / 2);
  WriteFile(kKeys / 4, kKeys);  // overlaps: the compaction rewrites both
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));

  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].file_checksum_func_name, "FileChecksumCrc32c");
  EXPECT_NE(files[0].file_checksum, kUnknownFileChecksum);
#if ROCKSDB_MAJOR < 9
  if (options_.allow_mmap_reads) {
    // 7.8's VerifyFileChecksums reads through a prefetch buffer that it
    // disables under allow_mmap_reads, so it fails whatever the table format
    // (9.x reads the file directly).
    GTEST_SKIP() << "RocksDB 7.8 cannot verify file checksums with mmap reads";
  }
#endif
  ASSERT_OK(db_->VerifyFileChecksums(ReadOptions()));

  // One byte changed on disk, in the middle of the file.
  const std::string path = files[0].db_path + files[0].name;
  std::string bytes = testing::ReadWholeFile(path);
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x01;
  ASSERT_TRUE(testing::WriteWholeFile(path, bytes));
  EXPECT_TRUE(db_->VerifyFileChecksums(ReadOptions()).IsCorruption());
}

// With a bounded table cache, RocksDB reads the properties of files it has
// not opened straight from the file with its own generic reader (at open,
// for compaction statistics, and here), not through ours. RocksDB 11's
// reader accepts only RocksDB's own magic numbers: it refuses our files,
// clearly, and everything read through our reader stays right.
TEST_P(IntrospectionTest, PropertiesOfFilesOutsideTheTableCache) {
  options_.max_open_files = 20;  // a table cache of 10 files
  options_.statistics = CreateDBStatistics();
  ASSERT_OK(db_.Open(options_));
  constexpr int kFiles = 30;
  for (int f = 0; f < kFiles; f++) WriteFile(f * 100, f * 100 + 100);
  ASSERT_OK(db_.Open(options_));  // nothing cached

  TablePropertiesCollection properties;
  const Status s = db_->GetPropertiesOfAllTables(&properties);
#if ROCKSDB_MAJOR >= 11
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("unsupported format_version"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find(".sst"), std::string::npos) << s.ToString();
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), KeyOf(1234), &value));
  // With every table open (max_open_files = -1, the default), the
  // properties come from our readers.
  options_.max_open_files = -1;
  ASSERT_OK(db_.Open(options_));
  properties.clear();
  ASSERT_OK(db_->GetPropertiesOfAllTables(&properties));
#else
  ASSERT_OK(s);
  EXPECT_GT(
      options_.statistics->getTickerCount(NUMBER_DIRECT_LOAD_TABLE_PROPERTIES),
      0u);
#endif
  ASSERT_EQ(properties.size(), size_t{kFiles});
  for (const auto& [path, file] : properties) {
    EXPECT_EQ(file->num_entries, 100u) << path;
    EXPECT_EQ(file->column_family_name, kDefaultColumnFamilyName) << path;
  }
  // The estimates RocksDB builds from them at open.
  uint64_t keys = 0;
  ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kEstimateNumKeys, &keys));
  EXPECT_EQ(keys, uint64_t{kFiles * 100});
}

INSTANTIATE_TEST_SUITE_P(ReadModes, IntrospectionTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Mmap" : "Loaded";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
