// Bulk loading with CuckooHashTable files: SstFileWriter builds them and
// IngestExternalFile assigns them one sequence number, written into the file
// in place (write_global_seqno=true) or kept in the DB's metadata (false).
// Every entry of an ingested file must read with that number: newer than
// what it overwrites, invisible to snapshots taken before, and still newer
// after compactions and reopens. Also: SstFileReader reads such files, and
// a damaged global seqno field is Corruption, not a wrong answer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"

namespace {

using namespace ROCKSDB_NAMESPACE;
using rocksdb_cuckoo::testing::FileMagic;
using rocksdb_cuckoo::testing::kCuckooHashTableMagic;

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%03d", i);
  return buf;
}

class IngestionTest
    : public ::testing::TestWithParam<std::tuple<bool, bool, bool>> {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }

  void SetUp() override {
    const auto [mmap, write_global_seqno, identity] = GetParam();
    write_global_seqno_ = write_global_seqno;
    root_ = ::testing::TempDir() + "/cuckoo_ingest_" +
            std::to_string(getpid()) + "_" +
            std::to_string(reinterpret_cast<uintptr_t>(this));
    std::filesystem::create_directories(root_);
    ConfigOptions config;
    config.ignore_unknown_options = false;
    config.ignore_unsupported_options = false;
    ASSERT_OK(GetOptionsFromString(
        config, Options(),
        std::string("create_if_missing=true;allow_mmap_reads=") +
            (mmap ? "true" : "false") +
            ";table_factory={id=CuckooHashTable;identity_as_first_hash=" +
            (identity ? "true" : "false") + "}",
        &options_));
    ASSERT_NE(options_.table_factory, nullptr);
    ASSERT_STREQ(options_.table_factory->Name(), "CuckooHashTable");
    Reopen();
  }

  void TearDown() override {
    if (snapshot_ != nullptr) db_->ReleaseSnapshot(snapshot_);
    db_.reset();
    std::filesystem::remove_all(root_);
  }

  void Reopen() {
    db_.reset();
    DB* raw = nullptr;
    ASSERT_OK(rocksdb_cuckoo::OpenDB(options_, root_ + "/db", &raw));
    db_.reset(raw);
  }

  // Writes `value` for keys [from, to) into an external file at `path`.
  void WriteExternalFile(const std::string& path, int from, int to,
                         const std::string& value) {
    SstFileWriter writer(EnvOptions(), options_);
    ASSERT_OK(writer.Open(path));
    for (int i = from; i < to; ++i) ASSERT_OK(writer.Put(Key(i), value));
    ASSERT_OK(writer.Finish());
    ASSERT_EQ(FileMagic(path), kCuckooHashTableMagic);
  }

  Status Ingest(const std::string& path) {
    IngestExternalFileOptions ifo;
    ifo.write_global_seqno = write_global_seqno_;
    return db_->IngestExternalFile({path}, ifo);
  }

  // Every key in [0, 750) reads as expected(i) ("" = absent) through Get,
  // MultiGet and a full scan in both directions.
  template <typename Expected>
  void ExpectContents(const Snapshot* snapshot, Expected expected,
                      const std::string& when) {
    SCOPED_TRACE(when);
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::vector<std::string> want;
    std::vector<std::string> keys;
    for (int i = 0; i < 750; ++i) {
      keys.push_back(Key(i));
      want.push_back(expected(i));
      std::string got;
      Status s = db_->Get(ro, keys.back(), &got);
      if (want.back().empty()) {
        ASSERT_TRUE(s.IsNotFound())
            << keys.back() << ": " << s.ToString() << " " << got;
      } else {
        ASSERT_TRUE(s.ok()) << keys.back() << ": " << s.ToString();
        ASSERT_EQ(got, want.back()) << keys.back();
      }
    }
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::vector<std::string> values;
    std::vector<Status> statuses = db_->MultiGet(ro, slices, &values);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (want[i].empty()) {
        ASSERT_TRUE(statuses[i].IsNotFound()) << keys[i];
      } else {
        ASSERT_OK(statuses[i]);
        ASSERT_EQ(values[i], want[i]) << keys[i];
      }
    }
    std::vector<std::pair<std::string, std::string>> forward, backward;
    std::unique_ptr<Iterator> it(db_->NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      forward.emplace_back(it->key().ToString(), it->value().ToString());
    }
    ASSERT_OK(it->status());
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      backward.emplace_back(it->key().ToString(), it->value().ToString());
    }
    ASSERT_OK(it->status());
    std::vector<std::pair<std::string, std::string>> present;
    for (int i = 0; i < 750; ++i) {
      if (!want[i].empty()) present.emplace_back(keys[i], want[i]);
    }
    ASSERT_EQ(forward, present);
    std::reverse(backward.begin(), backward.end());
    ASSERT_EQ(backward, present);
    // A seek into the overlap lands on the ingested version.
    it->Seek(Key(300));
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->value().ToString(), want[300]);
  }

  void ExpectAllFilesAreOurs() {
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    ASSERT_FALSE(files.empty());
    for (const auto& f : files) {
      EXPECT_EQ(FileMagic(f.db_path + "/" + f.name), kCuckooHashTableMagic)
          << f.name;
    }
  }

  Options options_;
  std::string root_;
  bool write_global_seqno_ = true;
  std::unique_ptr<DB> db_;
  const Snapshot* snapshot_ = nullptr;
};

// The reported case: old values for k0..k499 compacted to the bottom, a
// snapshot, then an ingested file with new values for k250..k749.
TEST_P(IngestionTest, IngestedFileOverridesOlderDataAndHidesFromSnapshots) {
  for (int i = 0; i < 500; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "old"));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  snapshot_ = db_->GetSnapshot();
  const std::string file = root_ + "/new.sst";
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(file, 250, 750, "new"));
  ASSERT_OK(Ingest(file));

  auto latest = [](int i) { return i < 250 ? "old" : "new"; };
  auto before = [](int i) { return i < 500 ? "old" : ""; };
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "after ingestion"));
  ASSERT_NO_FATAL_FAILURE(
      ExpectContents(snapshot_, before, "snapshot before ingestion"));
  ASSERT_NO_FATAL_FAILURE(ExpectAllFilesAreOurs());

  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "compacted"));
  ASSERT_NO_FATAL_FAILURE(
      ExpectContents(snapshot_, before, "snapshot, compacted"));

  db_->ReleaseSnapshot(snapshot_);
  snapshot_ = nullptr;
  CompactRangeOptions force;
  force.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(force, nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "snapshot gone"));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "reopened"));
  ASSERT_NO_FATAL_FAILURE(ExpectAllFilesAreOurs());
}

// A snapshot taken after ingestion sees the file; data written after it
// overrides it.
TEST_P(IngestionTest, LaterWritesOverrideIngestedData) {
  const std::string file = root_ + "/first.sst";
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(file, 0, 750, "ingested"));
  ASSERT_OK(Ingest(file));  // into an empty DB: sequence number 0
  // RocksDB 7.8.3 itself (BlockBasedTable too) drops the keys of a file
  // ingested at sequence 0 if a compaction runs while a snapshot at
  // sequence 0 exists (fixed in later RocksDB releases), so the snapshot
  // comes after a first write.
  ASSERT_OK(db_->Put(WriteOptions(), Key(0), "later"));
  snapshot_ = db_->GetSnapshot();
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "later"));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  auto latest = [](int i) { return i < 100 ? "later" : "ingested"; };
  auto at_snapshot = [](int i) { return i == 0 ? "later" : "ingested"; };
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "latest"));
  ASSERT_NO_FATAL_FAILURE(ExpectContents(snapshot_, at_snapshot, "snapshot"));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "compacted"));
  db_->ReleaseSnapshot(snapshot_);
  snapshot_ = nullptr;
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(ExpectContents(nullptr, latest, "reopened"));
}

// The public SstFileReader opens the external file through
// options.table_factory, before and after it was ingested.
TEST_P(IngestionTest, SstFileReaderReadsExternalFiles) {
  const std::string file = root_ + "/external.sst";
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(file, 10, 20, "v"));
  SstFileReader reader(options_);
  ASSERT_OK(reader.Open(file));
  ASSERT_OK(reader.VerifyChecksum());
  std::unique_ptr<Iterator> it(reader.NewIterator(ReadOptions()));
  int n = 10;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    EXPECT_EQ(it->key().ToString(), Key(n));
    EXPECT_EQ(it->value().ToString(), "v");
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(n, 20);
  EXPECT_EQ(reader.GetTableProperties()->num_entries, 10u);
}

// Changing an ingested file's global seqno field (written by ingestion, or
// left 0 when the number lives in the DB's metadata) makes the file disagree
// with the DB: Corruption, never the data read at a wrong sequence number. Any
// other byte of the properties is covered by the checksum as before.
TEST_P(IngestionTest, DamagedPropertiesAreCorruption) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "old"));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  const std::string file = root_ + "/new.sst";
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(file, 0, 20, "new"));
  ASSERT_OK(Ingest(file));
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  std::string ingested;
  for (const auto& f : files) {
    if (f.smallest_seqno == f.largest_seqno && f.largest_seqno > 0 &&
        f.num_entries == 20) {
      ingested = f.db_path + f.name;  // name starts with '/'
    }
  }
  ASSERT_FALSE(ingested.empty());
  std::shared_ptr<const TableProperties> props;
  TablePropertiesCollection all;
  ASSERT_OK(db_->GetPropertiesOfAllTables(&all));
  for (const auto& p : all) {
    if (p.first == ingested) props = p.second;
  }
  ASSERT_NE(props, nullptr);
  const uint64_t field = props->external_sst_file_global_seqno_offset;
  ASSERT_GT(field, 0u);
  db_.reset();

  const std::string pristine = ingested + ".pristine";
  std::filesystem::copy_file(ingested, pristine);
  // Byte offsets to damage: the global seqno itself, and the byte before
  // it (the property's value size, covered by the checksum).
  for (uint64_t at : {field, field + 7, field - 1}) {
    SCOPED_TRACE("damaged byte " + std::to_string(at));
    std::filesystem::copy_file(
        pristine, ingested, std::filesystem::copy_options::overwrite_existing);
    {
      std::fstream f(ingested, std::ios::binary | std::ios::in | std::ios::out);
      f.seekp(static_cast<std::streamoff>(at));
      char c = 0;
      f.read(&c, 1);
      f.seekp(static_cast<std::streamoff>(at));
      c = static_cast<char>(c ^ 0x5a);
      f.write(&c, 1);
    }
    DB* raw = nullptr;
    Status open = rocksdb_cuckoo::OpenDB(options_, root_ + "/db", &raw);
    std::unique_ptr<DB> db(raw);
    Status read = open;
    std::string value;
    if (open.ok()) read = db->Get(ReadOptions(), Key(5), &value);
    ASSERT_FALSE(read.ok()) << "read " << value;
    EXPECT_TRUE(read.IsCorruption()) << read.ToString();
  }
  std::filesystem::copy_file(pristine, ingested,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_NO_FATAL_FAILURE(Reopen());
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), Key(5), &value));
  EXPECT_EQ(value, "new");
}

// RocksDB's ExternalSSTFileBasicTest.IngestFileWithBadBlockChecksum, whose
// damage goes through BlockBasedTableBuilder: a file of ours damaged before
// ingestion is refused with Corruption when verify_checksums_before_ingest
// asks for its checksums, and the DB keeps what it had.
TEST_P(IngestionTest, DamagedFileIsRefusedWhenVerifiedBeforeIngestion) {
  ASSERT_OK(db_->Put(WriteOptions(), Key(5), "old"));
  const std::string file = root_ + "/damaged.sst";
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(file, 0, 200, "new"));
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(100);  // an entry's bytes
    char c = 0;
    f.read(&c, 1);
    f.seekp(100);
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
  }
  IngestExternalFileOptions ifo;
  ifo.write_global_seqno = write_global_seqno_;
  ifo.verify_checksums_before_ingest = true;
  const Status s = db_->IngestExternalFile({file}, ifo);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), Key(5), &value));
  EXPECT_EQ(value, "old");
}

// IngestExternalFiles: several files into two column families in one atomic
// step, each over data already in the memtable (which ingestion flushes).
// Every file reads in its column family only, also after a compaction and a
// reopen.
TEST_P(IngestionTest, SeveralColumnFamiliesIngestInOneStep) {
  ColumnFamilyHandle* other = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(options_, "other", &other));
  ASSERT_OK(db_->Put(WriteOptions(), Key(5), "old"));
  ASSERT_OK(db_->Put(WriteOptions(), other, Key(5), "old"));
  WriteExternalFile(root_ + "/a.sst", 0, 100, "a");
  WriteExternalFile(root_ + "/b.sst", 100, 200, "b");
  WriteExternalFile(root_ + "/c.sst", 0, 150, "c");
  IngestExternalFileArg to_default;
  to_default.column_family = db_->DefaultColumnFamily();
  to_default.external_files = {root_ + "/a.sst", root_ + "/b.sst"};
  to_default.options.write_global_seqno = write_global_seqno_;
  IngestExternalFileArg to_other;
  to_other.column_family = other;
  to_other.external_files = {root_ + "/c.sst"};
  to_other.options.write_global_seqno = write_global_seqno_;
  ASSERT_OK(db_->IngestExternalFiles({to_default, to_other}));

  auto expect_contents = [&](DB* db, ColumnFamilyHandle* default_cf,
                             ColumnFamilyHandle* other_cf) {
    for (int i = 0; i < 220; ++i) {
      std::string got;
      const Status s = db->Get(ReadOptions(), default_cf, Key(i), &got);
      if (i < 200) {
        ASSERT_OK(s);
        EXPECT_EQ(got, i < 100 ? "a" : "b") << Key(i);
      } else {
        EXPECT_TRUE(s.IsNotFound()) << Key(i) << ": " << s.ToString();
      }
      const Status t = db->Get(ReadOptions(), other_cf, Key(i), &got);
      if (i < 150) {
        ASSERT_OK(t);
        EXPECT_EQ(got, "c") << Key(i);
      } else {
        EXPECT_TRUE(t.IsNotFound()) << Key(i) << ": " << t.ToString();
      }
    }
  };
  expect_contents(db_.get(), db_->DefaultColumnFamily(), other);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), other, nullptr, nullptr));
  expect_contents(db_.get(), db_->DefaultColumnFamily(), other);
  ASSERT_OK(db_->DestroyColumnFamilyHandle(other));
  db_.reset();

  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  ASSERT_OK(rocksdb_cuckoo::OpenDB(
      options_, root_ + "/db",
      {{kDefaultColumnFamilyName, options_}, {"other", options_}}, &handles,
      &raw));
  expect_contents(raw, handles[0], handles[1]);
  for (ColumnFamilyHandle* handle : handles) {
    ASSERT_OK(raw->DestroyColumnFamilyHandle(handle));
  }
  delete raw;
}

#if ROCKSDB_MAJOR >= 10
// Files another DB wrote keep their sequence numbers when ingested with
// allow_db_generated_files; RocksDB takes their bounds from the table
// properties (the smallest since 10.x) and refuses a file without them.
TEST_P(IngestionTest, AnotherDbsFilesKeepTheirSequenceNumbers) {
  const std::string source_path = root_ + "/source";
  DB* raw = nullptr;
  ASSERT_OK(rocksdb_cuckoo::OpenDB(options_, source_path, &raw));
  std::unique_ptr<DB> source(raw);
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(source->Put(WriteOptions(), Key(i), "source" + Key(i)));
  }
  ASSERT_OK(source->Flush(FlushOptions()));
  std::vector<LiveFileMetaData> files;
  source->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 1u);
  const std::string file = files[0].db_path + files[0].name;
  ASSERT_EQ(FileMagic(file), kCuckooHashTableMagic);
  TablePropertiesCollection properties;
  ASSERT_OK(source->GetPropertiesOfAllTables(&properties));
  ASSERT_EQ(properties.size(), 1u);
  EXPECT_EQ(properties.begin()->second->key_smallest_seqno, 1u);
  EXPECT_EQ(properties.begin()->second->key_largest_seqno, 300u);

  // The target's own sequence numbers are behind the file's.
  IngestExternalFileOptions ifo;
  ifo.allow_db_generated_files = true;
  ifo.snapshot_consistency = false;
  ifo.allow_blocking_flush = false;
  ifo.link_files = true;
  ASSERT_OK(db_->IngestExternalFile({file}, ifo));
  std::string value;
  for (int i = 0; i < 300; i += 7) {
    ASSERT_OK(db_->Get(ReadOptions(), Key(i), &value));
    EXPECT_EQ(value, "source" + Key(i));
  }
  ExpectAllFilesAreOurs();
}
#endif

INSTANTIATE_TEST_SUITE_P(
    Cuckoo, IngestionTest,
    ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Bool()),
    [](const auto& info) {
      return std::string(std::get<0>(info.param) ? "mmap" : "loaded") +
             (std::get<1>(info.param) ? "_write_global_seqno"
                                      : "_seqno_in_metadata") +
             (std::get<2>(info.param) ? "_identity" : "");
    });

}  // namespace
