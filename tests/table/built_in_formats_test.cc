// Telling RocksDB's own table formats by a file's magic number: the last 8
// bytes read from the file (short files and failed reads reported), each
// current or legacy magic number mapped to its format, and the one shared
// factory with default options that reads each.
#include "table/built_in_formats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "file/random_access_file_reader.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/version.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"
#include "util/coding.h"

namespace rocksdb_cuckoo::testing {
namespace {

using namespace ROCKSDB_NAMESPACE;

// As RocksDB's table builders write them.
constexpr uint64_t kBlockBased = 0x88e241b785f4cff7ull;
constexpr uint64_t kLegacyBlockBased = 0xdb4775248b80fb57ull;
constexpr uint64_t kPlain = 0x8242229663bf9564ull;
constexpr uint64_t kLegacyPlain = 0x4f3418eb7a8f13b8ull;
constexpr uint64_t kRocksDbCuckoo = 0x926789d0c5f17873ull;
// CuckooHashTable's own ("cuckoohs"): not one of RocksDB's.
constexpr uint64_t kCuckooHashTable = 0x73686f6f6b637563ull;

// A file in memory that records the reads it serves, or fails them all with
// `error`.
class StringFile : public FSRandomAccessFile {
 public:
  struct ReadCall {
    uint64_t offset;
    size_t n;
  };
  StringFile(std::string data, std::vector<ReadCall>* calls,
             IOStatus error = IOStatus::OK())
      : data_(std::move(data)), calls_(calls), error_(std::move(error)) {}

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& /*options*/,
                Slice* result, char* scratch,
                IODebugContext* /*dbg*/) const override {
    calls_->push_back({offset, n});
    if (!error_.ok()) return error_;
    const size_t begin = std::min<uint64_t>(offset, data_.size());
    const size_t length = std::min(n, data_.size() - begin);
    memcpy(scratch, data_.data() + begin, length);
    *result = Slice(scratch, length);
    return IOStatus::OK();
  }

 private:
  const std::string data_;
  std::vector<ReadCall>* const calls_;
  const IOStatus error_;
};

// ReadMagicNumber over `data`, telling it the file has `file_size` bytes.
Status ReadMagicOf(const std::string& data, uint64_t file_size, uint64_t* magic,
                   std::vector<StringFile::ReadCall>* calls,
                   IOStatus error = IOStatus::OK()) {
  RandomAccessFileReader reader(
      std::make_unique<StringFile>(data, calls, std::move(error)), "in memory");
  return ReadMagicNumber(&reader, ReadOptions(), file_size, magic);
}

std::string EndingIn(uint64_t magic, size_t bytes_before) {
  std::string data(bytes_before, 'x');
  PutFixed64(&data, magic);
  return data;
}

TEST(BuiltInFormatsMagicTest, ReadsTheLastEightBytesLittleEndian) {
  std::vector<StringFile::ReadCall> calls;
  uint64_t magic = 0;
  ASSERT_OK(ReadMagicOf(EndingIn(kPlain, 100), 108, &magic, &calls));
  EXPECT_EQ(magic, kPlain);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].offset, 100u);
  EXPECT_EQ(calls[0].n, 8u);
  // A file of the magic number alone.
  calls.clear();
  ASSERT_OK(ReadMagicOf(EndingIn(kBlockBased, 0), 8, &magic, &calls));
  EXPECT_EQ(magic, kBlockBased);
  EXPECT_EQ(calls[0].offset, 0u);
}

TEST(BuiltInFormatsMagicTest, FileTooShortIsCorruptionSayingItsSize) {
  for (size_t size : {0, 1, 7}) {
    std::vector<StringFile::ReadCall> calls;
    uint64_t magic = 42;
    const Status s = ReadMagicOf(std::string(size, 'x'), size, &magic, &calls);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("too short for a magic number (" +
                                std::to_string(size) + " bytes)"),
              std::string::npos)
        << s.ToString();
    EXPECT_TRUE(calls.empty());  // nothing is read
    EXPECT_EQ(magic, 42u);
  }
}

TEST(BuiltInFormatsMagicTest, ShortReadIsCorruption) {
  // The file ends before the size it is said to have.
  std::vector<StringFile::ReadCall> calls;
  uint64_t magic = 42;
  const Status s = ReadMagicOf(EndingIn(kPlain, 8), 20, &magic, &calls);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("short read of the magic number"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(magic, 42u);
}

TEST(BuiltInFormatsMagicTest, ReadErrorIsReturnedAsItIs) {
  std::vector<StringFile::ReadCall> calls;
  uint64_t magic = 42;
  const Status s = ReadMagicOf(EndingIn(kPlain, 8), 16, &magic, &calls,
                               IOStatus::IOError("injected read error"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("injected read error"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(calls.size(), 1u);
  EXPECT_EQ(magic, 42u);
}

TEST(BuiltInFormatsMagicTest, EachMagicNumberNamesItsFormat) {
  EXPECT_EQ(BuiltInFormatOf(kBlockBased), BuiltInFormat::kBlockBasedTable);
  EXPECT_EQ(BuiltInFormatOf(kPlain), BuiltInFormat::kPlainTable);
  EXPECT_EQ(BuiltInFormatOf(kLegacyPlain), BuiltInFormat::kPlainTable);
  EXPECT_EQ(BuiltInFormatOf(kRocksDbCuckoo), BuiltInFormat::kCuckooTable);
#if ROCKSDB_MAJOR < 11
  EXPECT_EQ(BuiltInFormatOf(kLegacyBlockBased),
            BuiltInFormat::kBlockBasedTable);
#else
  // RocksDB 11 reads no legacy block-based files.
  EXPECT_EQ(BuiltInFormatOf(kLegacyBlockBased), BuiltInFormat::kNone);
#endif
  for (uint64_t other : {uint64_t{0}, kCuckooHashTable, ~uint64_t{0},
                         kBlockBased ^ 1, kPlain + 1}) {
    EXPECT_EQ(BuiltInFormatOf(other), BuiltInFormat::kNone) << other;
  }
}

TEST(BuiltInFormatsMagicTest, OneSharedFactoryWithDefaultOptionsPerFormat) {
  const TableFactory* block_based = BuiltInFactoryFor(kBlockBased);
  const TableFactory* plain = BuiltInFactoryFor(kPlain);
  const TableFactory* cuckoo = BuiltInFactoryFor(kRocksDbCuckoo);
  ASSERT_NE(block_based, nullptr);
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(cuckoo, nullptr);
  EXPECT_STREQ(block_based->Name(), TableFactory::kBlockBasedTableName());
  EXPECT_STREQ(plain->Name(), TableFactory::kPlainTableName());
  EXPECT_STREQ(cuckoo->Name(), TableFactory::kCuckooTableName());
  // The same objects every time, the legacy magic numbers' included.
  EXPECT_EQ(BuiltInFactoryFor(kBlockBased), block_based);
  EXPECT_EQ(BuiltInFactoryFor(kLegacyPlain), plain);
#if ROCKSDB_MAJOR < 11
  EXPECT_EQ(BuiltInFactoryFor(kLegacyBlockBased), block_based);
#endif
  EXPECT_EQ(BuiltInFactoryFor(kCuckooHashTable), nullptr);
  EXPECT_EQ(BuiltInFactoryFor(0), nullptr);

  const auto* bbto = block_based->GetOptions<BlockBasedTableOptions>();
  ASSERT_NE(bbto, nullptr);
  EXPECT_EQ(bbto->block_size, BlockBasedTableOptions().block_size);
  EXPECT_EQ(bbto->format_version, BlockBasedTableOptions().format_version);
  EXPECT_EQ(bbto->no_block_cache, BlockBasedTableOptions().no_block_cache);
  const auto* pto = plain->GetOptions<PlainTableOptions>();
  ASSERT_NE(pto, nullptr);
  EXPECT_EQ(pto->user_key_len, PlainTableOptions().user_key_len);
  EXPECT_EQ(pto->encoding_type, PlainTableOptions().encoding_type);
  const auto* cto = cuckoo->GetOptions<CuckooTableOptions>();
  ASSERT_NE(cto, nullptr);
  EXPECT_EQ(cto->hash_table_ratio, CuckooTableOptions().hash_table_ratio);
  EXPECT_EQ(cto->use_module_hash, CuckooTableOptions().use_module_hash);
}

// Files the formats' own builders write, read back from disk.
TEST(BuiltInFormatsMagicTest, FilesRocksDbWritesAreRecognized) {
  struct Case {
    std::shared_ptr<TableFactory> factory;
    uint64_t magic;
    BuiltInFormat format;
  };
  const std::vector<Case> cases = {
      {std::shared_ptr<TableFactory>(NewBlockBasedTableFactory()), kBlockBased,
       BuiltInFormat::kBlockBasedTable},
      // PlainTable writes a footer of format version 0, which carries the
      // legacy magic number.
      {std::shared_ptr<TableFactory>(NewPlainTableFactory()), kLegacyPlain,
       BuiltInFormat::kPlainTable},
      {std::shared_ptr<TableFactory>(NewCuckooTableFactory()), kRocksDbCuckoo,
       BuiltInFormat::kCuckooTable},
      {NewCuckooHashTableFactory(), kCuckooHashTable, BuiltInFormat::kNone}};
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.factory->Name());
    const std::string path = ::testing::TempDir() + "/built_in_formats_" +
                             std::to_string(getpid()) + "_" +
                             std::to_string(n++) + ".sst";
    Options options;
    options.table_factory = c.factory;
    SstFileWriter writer(EnvOptions(), options);
    ASSERT_OK(writer.Open(path));
    // Values of one size: newer RocksDB's CuckooTable builder refuses
    // others.
    for (int i = 0; i < 50; ++i) {
      ASSERT_OK(
          writer.Put(NumberedKey(i, 4), "value" + std::to_string(10 + i)));
    }
    ASSERT_OK(writer.Finish());
    uint64_t size = 0;
    ASSERT_OK(
        FileSystem::Default()->GetFileSize(path, IOOptions(), &size, nullptr));
    ASSERT_GT(size, 8u);
    std::unique_ptr<FSRandomAccessFile> file;
    ASSERT_OK(FileSystem::Default()->NewRandomAccessFile(path, FileOptions(),
                                                         &file, nullptr));
    RandomAccessFileReader reader(std::move(file), path);
    uint64_t magic = 0;
    ASSERT_OK(ReadMagicNumber(&reader, ReadOptions(), size, &magic));
    std::remove(path.c_str());
    EXPECT_EQ(magic, c.magic);
    EXPECT_EQ(BuiltInFormatOf(magic), c.format);
    const TableFactory* factory = BuiltInFactoryFor(magic);
    if (c.format == BuiltInFormat::kNone) {
      EXPECT_EQ(factory, nullptr);
    } else {
      ASSERT_NE(factory, nullptr);
      EXPECT_STREQ(factory->Name(), c.factory->Name());
    }
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo::testing
