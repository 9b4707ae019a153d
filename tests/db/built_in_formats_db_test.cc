// Files of RocksDB's own formats in a column family whose table factory is
// CuckooHashTable: an existing DB switched to it, and files a default
// SstFileWriter wrote (BlockBasedTable), ingested. Both must read as
// before, and compactions rewrite them as cuckoo hash tables.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

std::string KeyOf(int i) { return "key" + std::to_string(1000 + i); }

class BuiltInFormatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        ::testing::TempDir() + "/built_in_formats_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Keys [0, n) with value "<prefix><i>", in one table file of the format
  // `options.table_factory` writes.
  void WriteDb(const Options& options, const std::string& prefix, int n) {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, db_dir(), &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < n; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), KeyOf(i), prefix + std::to_string(i)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  // The format of each live table file, by its magic number.
  static std::vector<std::string> TableFormats(DB* db) {
    std::vector<LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    std::vector<std::string> formats;
    for (const LiveFileMetaData& file : files) {
      const uint64_t magic = testing::FileMagic(file.db_path + "/" + file.name);
      formats.push_back(
          magic == testing::kCuckooHashTableMagic   ? "CuckooHashTable"
          : magic == testing::kBlockBasedTableMagic ? "BlockBasedTable"
                                                    : "other");
    }
    return formats;
  }
  static void ExpectValues(DB* db, const std::string& prefix, int n) {
    for (int i = 0; i < n; i += 7) {
      std::string value;
      ASSERT_OK(db->Get(ReadOptions(), KeyOf(i), &value));
      EXPECT_EQ(value, prefix + std::to_string(i));
    }
    std::string value;
    EXPECT_TRUE(db->Get(ReadOptions(), "absent", &value).IsNotFound());
  }
  std::string db_dir() const { return dir_ + "/db"; }

  std::string dir_;
};

TEST_F(BuiltInFormatsTest, DbSwitchedFromBlockBasedTableReadsAndMigrates) {
  Options options;
  options.create_if_missing = true;
  WriteDb(options, "old", 500);

  options.table_factory = NewCuckooHashTableFactory();
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, db_dir(), &raw));
  std::unique_ptr<DB> db(raw);
  ExpectValues(db.get(), "old", 500);
  EXPECT_EQ(TableFormats(db.get()),
            std::vector<std::string>{"BlockBasedTable"});

  // New writes go to cuckoo files; a full compaction rewrites the old one.
  ASSERT_OK(db->Put(WriteOptions(), KeyOf(3), "new3"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(TableFormats(db.get()),
            std::vector<std::string>{"CuckooHashTable"});
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), KeyOf(3), &value));
  EXPECT_EQ(value, "new3");
  ASSERT_OK(db->Get(ReadOptions(), KeyOf(4), &value));
  EXPECT_EQ(value, "old4");
}

TEST_F(BuiltInFormatsTest, DefaultSstFileWriterFilesIngest) {
  const std::string file = dir_ + "/block_based.sst";
  SstFileWriter writer{EnvOptions(), Options()};
  ASSERT_OK(writer.Open(file));
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(writer.Put(KeyOf(i), "ingested" + std::to_string(i)));
  }
  ASSERT_OK(writer.Finish());

  Options options;
  options.create_if_missing = true;
  options.table_factory = NewCuckooHashTableFactory();
  // SstFileReader opens it through the cuckoo factory too.
  SstFileReader reader(options);
  ASSERT_OK(reader.Open(file));
  ASSERT_OK(reader.VerifyChecksum());
  EXPECT_EQ(reader.GetTableProperties()->num_entries, 300u);

  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, db_dir(), &raw));
  std::unique_ptr<DB> db(raw);
  ASSERT_OK(db->Put(WriteOptions(), KeyOf(5), "older"));
  ASSERT_OK(db->IngestExternalFile({file}, IngestExternalFileOptions()));
  ExpectValues(db.get(), "ingested", 300);
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ExpectValues(db.get(), "ingested", 300);
  EXPECT_EQ(TableFormats(db.get()),
            std::vector<std::string>{"CuckooHashTable"});
}

TEST_F(BuiltInFormatsTest, PlainTableFilesReadWithMmap) {
  Options options;
  options.create_if_missing = true;
  options.allow_mmap_reads = true;  // PlainTable reads only through mmap
  options.prefix_extractor.reset(NewFixedPrefixTransform(4));
  options.table_factory.reset(NewPlainTableFactory());
  WriteDb(options, "plain", 200);

  options.table_factory = NewCuckooHashTableFactory();
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, db_dir(), &raw));
  std::unique_ptr<DB> db(raw);
  ExpectValues(db.get(), "plain", 200);
}

TEST_F(BuiltInFormatsTest, UnknownFormatIsCorruption) {
  Options options;
  options.create_if_missing = true;
  WriteDb(options, "v", 10);
  // A table file whose last bytes belong to no format.
  std::string table;
  for (const auto& entry : std::filesystem::directory_iterator(db_dir())) {
    if (entry.path().extension() == ".sst") table = entry.path();
  }
  ASSERT_FALSE(table.empty());
  {
    FILE* f = fopen(table.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(fseek(f, -8, SEEK_END), 0);
    ASSERT_EQ(fwrite("notatabl", 1, 8, f), 8u);
    fclose(f);
  }
  options.table_factory = NewCuckooHashTableFactory();
  options.paranoid_checks = true;
  options.max_open_files = -1;  // open every table file at DB open
  DB* raw = nullptr;
  const Status s = OpenDB(options, db_dir(), &raw);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("bad magic number"), std::string::npos)
      << s.ToString();
  delete raw;
}

}  // namespace
}  // namespace rocksdb_cuckoo
