// The tools a user inspects a rocksdb-cuckoo DB with: the stock
// ldb with the shared library preloaded, our cuckoo_ldb without preload, and
// cuckoo_sst_dump on the DB's CuckooHashTable files, including bad input.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "tests/support/db_open.h"

namespace {

namespace fs = std::filesystem;
namespace rdb = ROCKSDB_NAMESPACE;

constexpr const char* kStockLdb = "/usr/bin/ldb";
constexpr int kKeys = 100;

struct Result {
  int exit_code = -1;  // 128 + signal when the command crashed
  std::string output;  // stdout and stderr together
};

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

Result RunCommand(const std::string& command) {
  Result r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    r.output = "popen failed";
    return r;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) {
    r.output.append(buf, n);
  }
  int status = pclose(pipe);
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.exit_code = 128 + WTERMSIG(status);
  }
  return r;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

int CountOccurrences(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%03d", i);
  return buf;
}

std::string Value(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "value%03d", i);
  return buf;
}

std::string HexOf(const std::string& s) {
  return rdb::Slice(s).ToString(/*hex=*/true);
}

#ifdef CUCKOO_CUCKOO_SST_DUMP
constexpr const char* kSstDump = CUCKOO_CUCKOO_SST_DUMP;
#else
constexpr const char* kSstDump = nullptr;
#endif
#ifdef CUCKOO_CUCKOO_LDB
constexpr const char* kCuckooLdb = CUCKOO_CUCKOO_LDB;
#else
constexpr const char* kCuckooLdb = nullptr;
#endif

// cuckoo_sst_dump with `args`, never with a preloaded library.
std::string SstDump(const std::string& args) {
  return std::string("env -u LD_PRELOAD ") + Quote(kSstDump ? kSstDump : "") +
         " " + args;
}

#define SKIP_WITHOUT(tool)                                     \
  do {                                                         \
    if ((tool) == nullptr) {                                   \
      GTEST_SKIP() << #tool " was not built (no such target)"; \
    }                                                          \
  } while (0)

// One DB per test process (ctest runs every case as its own process): two
// CuckooHashTable files, the second holding an overwrite and a delete.
class ToolsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/cuckoo_tools_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = new std::string(tmpl);
    db_ = new std::string(*dir_ + "/db");
    sst_files_ = new std::vector<std::string>();
    setup_error_ = new std::string(WriteDb());
  }

  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
    delete db_;
    delete sst_files_;
    delete setup_error_;
  }

  void SetUp() override { ASSERT_EQ(*setup_error_, ""); }

  // Writes the DB through the static library, named by an options string
  // only; returns "" or what went wrong.
  static std::string WriteDb() {
    register_rocksdb_cuckoo(*rdb::ObjectLibrary::Default(), "");
    rdb::ConfigOptions config;
    config.ignore_unsupported_options = false;
    rdb::ColumnFamilyOptions cf;
    rdb::Status s = rdb::GetColumnFamilyOptionsFromString(
        config, rdb::ColumnFamilyOptions(),
        "table_factory={id=CuckooHashTable};disable_auto_compactions=true",
        &cf);
    if (!s.ok()) return "options: " + s.ToString();
    if (cf.table_factory == nullptr ||
        std::string(cf.table_factory->Name()) != "CuckooHashTable") {
      return "CuckooHashTable did not resolve";
    }
    rdb::Options options(rdb::DBOptions(), cf);
    options.create_if_missing = true;
    rdb::DB* raw = nullptr;
    s = rocksdb_cuckoo::OpenDB(options, *db_, &raw);
    if (!s.ok()) return "open: " + s.ToString();
    std::unique_ptr<rdb::DB> db(raw);
    for (int i = 0; i < kKeys && s.ok(); ++i) {
      s = db->Put(rdb::WriteOptions(), Key(i), Value(i));
    }
    if (s.ok()) s = db->Flush(rdb::FlushOptions());
    if (s.ok()) s = db->Put(rdb::WriteOptions(), Key(5), "value005-v2");
    if (s.ok()) s = db->Delete(rdb::WriteOptions(), Key(7));
    if (s.ok()) s = db->Flush(rdb::FlushOptions());
    if (s.ok()) s = db->Close();
    if (!s.ok()) return "write: " + s.ToString();

    bool options_file_names_us = false;
    for (const auto& entry : fs::directory_iterator(*db_)) {
      std::string name = entry.path().filename().string();
      if (name.size() > 4 && name.substr(name.size() - 4) == ".sst") {
        sst_files_->push_back(entry.path().string());
      }
      if (name.rfind("OPTIONS-", 0) == 0) {
        std::ifstream in(entry.path());
        std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
        options_file_names_us |= Contains(text, "CuckooHashTable");
      }
    }
    std::sort(sst_files_->begin(), sst_files_->end());
    if (sst_files_->size() != 2) {
      return "expected 2 SST files, found " +
             std::to_string(sst_files_->size());
    }
    if (!options_file_names_us) return "no OPTIONS file names CuckooHashTable";
    return "";
  }

  // The file with key000..key099 (the first flush).
  static const std::string& FirstSst() { return (*sst_files_)[0]; }

  static std::string Copy(const std::string& from, const std::string& name) {
    std::string to = *dir_ + "/" + name;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to;
  }

  static std::string* dir_;
  static std::string* db_;
  static std::vector<std::string>* sst_files_;
  static std::string* setup_error_;
};

std::string* ToolsTest::dir_ = nullptr;
std::string* ToolsTest::db_ = nullptr;
std::vector<std::string>* ToolsTest::sst_files_ = nullptr;
std::string* ToolsTest::setup_error_ = nullptr;

// Checks the ldb output of the DB written above: `scan` prints
// "key : value", `dump` prints "key ==> value".
void ExpectDbContents(const Result& r, const std::string& delim) {
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "key000" + delim + "value000")) << r.output;
  EXPECT_TRUE(Contains(r.output, "key099" + delim + "value099")) << r.output;
  EXPECT_TRUE(Contains(r.output, "key005" + delim + "value005-v2")) << r.output;
  EXPECT_FALSE(Contains(r.output, "key007" + delim)) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, delim), kKeys - 1) << r.output;
}

// ldb's scan prints "key : value" in 7.8 and "key ==> value" in 9.x.
#if ROCKSDB_MAJOR >= 9
constexpr const char* kScanDelim = " ==> ";
#else
constexpr const char* kScanDelim = " : ";
#endif
constexpr const char* kDumpDelim = " ==> ";

// ---- stock ldb + LD_PRELOAD ----------------------------------------------

class StockLdbTest : public ToolsTest {
 protected:
  void SetUp() override {
    ToolsTest::SetUp();
#ifdef CUCKOO_SANITIZED
    GTEST_SKIP() << "sanitizer build: the sanitizer runtime must be the first "
                    "library in the process, so an instrumented "
                    "librocksdb_cuckoo.so cannot be LD_PRELOADed into the "
                    "stock (uninstrumented) ldb";
#endif
    if (CUCKOO_SHARED_LIBRARY[0] == '\0') {
      GTEST_SKIP() << "no librocksdb_cuckoo.so in this build (in-tree "
                      "RocksDB: its own ldb has the plugin built in)";
    }
    if (access(kStockLdb, X_OK) != 0) {
      GTEST_SKIP() << kStockLdb << " not installed (package rocksdb-tools)";
    }
  }

  static std::string Ldb(const std::string& args) {
    return std::string("env LD_PRELOAD=") + Quote(CUCKOO_SHARED_LIBRARY) + " " +
           kStockLdb + " --db=" + Quote(*db_) + " " + args;
  }
};

TEST_F(StockLdbTest, ScanWithPreload) {
  ExpectDbContents(RunCommand(Ldb("scan")), kScanDelim);
}

TEST_F(StockLdbTest, GetWithPreload) {
  Result r = RunCommand(Ldb("get key042"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "value042\n");
  r = RunCommand(Ldb("get key005"));
  EXPECT_EQ(r.output, "value005-v2\n");
  r = RunCommand(Ldb("get key007"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "NotFound")) << r.output;
}

TEST_F(StockLdbTest, DumpWithPreload) {
  ExpectDbContents(RunCommand(Ldb("dump")), kDumpDelim);
}

// The negative control: without the library ldb cannot read the files, so
// the tests above really exercise the preloaded factory.
TEST(StockLdbNoPreloadTest, CannotReadWithoutPlugin) {
  if (CUCKOO_SHARED_LIBRARY[0] == '\0') {
    GTEST_SKIP() << "no preload tests to control in this build (in-tree "
                    "RocksDB)";
  }
  if (access(kStockLdb, X_OK) != 0) {
    GTEST_SKIP() << kStockLdb << " not installed (package rocksdb-tools)";
  }
  char tmpl[] = "/tmp/cuckoo_tools_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string db = std::string(tmpl) + "/db";
  {
    register_rocksdb_cuckoo(*rdb::ObjectLibrary::Default(), "");
    rdb::ConfigOptions config;
    config.ignore_unsupported_options = false;
    rdb::Options options;
    ASSERT_TRUE(rdb::GetOptionsFromString(config, rdb::Options(),
                                          "table_factory={id=CuckooHashTable}",
                                          &options)
                    .ok());
    options.create_if_missing = true;
    rdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb_cuckoo::OpenDB(options, db, &raw).ok());
    std::unique_ptr<rdb::DB> d(raw);
    ASSERT_TRUE(d->Put(rdb::WriteOptions(), "key042", "value042").ok());
    ASSERT_TRUE(d->Flush(rdb::FlushOptions()).ok());
    ASSERT_TRUE(d->Close().ok());
  }
  Result r = RunCommand(std::string("env -u LD_PRELOAD ") + kStockLdb +
                        " --db=" + Quote(db) + " get key042");
  EXPECT_NE(r.output, "value042\n");
  EXPECT_NE(r.exit_code, 0) << r.output;
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

// ---- cuckoo_ldb, no preload ----------------------------------------------

class CuckooLdbTest : public ToolsTest {
 protected:
  void SetUp() override {
    ToolsTest::SetUp();
    SKIP_WITHOUT(kCuckooLdb);
  }
  static std::string Ldb(const std::string& args) {
    return std::string("env -u LD_PRELOAD ") + Quote(kCuckooLdb) +
           " --db=" + Quote(*db_) + " " + args;
  }
};

TEST_F(CuckooLdbTest, Scan) {
  ExpectDbContents(RunCommand(Ldb("scan")), kScanDelim);
}

TEST_F(CuckooLdbTest, Get) {
  Result r = RunCommand(Ldb("get key042"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "value042\n");
  // key007 was deleted: 7.8's ldb fails, 9.x's says so and exits 0.
  r = RunCommand(Ldb("get key007"));
  EXPECT_TRUE(r.exit_code != 0 || Contains(r.output, "Key not found"))
      << r.output;
  EXPECT_FALSE(Contains(r.output, "value007")) << r.output;
}

TEST_F(CuckooLdbTest, Dump) {
  ExpectDbContents(RunCommand(Ldb("dump")), kDumpDelim);
}

TEST_F(CuckooLdbTest, ScanRangeHex) {
  Result r = RunCommand(Ldb("scan --hex --from=0x" + HexOf("key010") +
                            " --to=0x" + HexOf("key013")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, kScanDelim), 3) << r.output;
  EXPECT_TRUE(Contains(
      r.output, "0x" + HexOf("key012") + kScanDelim + "0x" + HexOf("value012")))
      << r.output;
}

// The commands that take ldb's base options rather than a column family's:
// they must still open the tables with the factory the OPTIONS file names.
// RepairDB moves every table it cannot read to lost/ and reports OK, so a
// repair that read our files as BlockBasedTable would leave an empty DB.
class CuckooLdbBaseOptionsTest : public CuckooLdbTest {
 protected:
  void SetUp() override {
    CuckooLdbTest::SetUp();
    if (IsSkipped()) return;
    copy_ = *dir_ + "/copy_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(copy_);
    fs::copy(*db_, copy_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(copy_); }
  std::string LdbOnCopy(const std::string& args) const {
    return std::string("env -u LD_PRELOAD ") + Quote(kCuckooLdb) +
           " --db=" + Quote(copy_) + " " + args;
  }
  std::string copy_;
};

TEST_F(CuckooLdbBaseOptionsTest, RepairAfterLosingTheManifestKeepsEveryTable) {
  for (const auto& entry : fs::directory_iterator(copy_)) {
    const std::string name = entry.path().filename().string();
    if (name == "CURRENT" || name.rfind("MANIFEST-", 0) == 0) {
      fs::remove(entry.path());
    }
  }
  Result r = RunCommand(LdbOnCopy("repair"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Contains(r.output, "ignoring")) << r.output;
  if (fs::exists(copy_ + "/lost")) {
    for (const auto& entry : fs::directory_iterator(copy_ + "/lost")) {
      EXPECT_NE(entry.path().extension(), ".sst") << entry.path();
    }
  }
  ExpectDbContents(RunCommand(LdbOnCopy("scan")), kScanDelim);
}

TEST_F(CuckooLdbBaseOptionsTest, ReduceLevelsAndFileChecksumDumpReadTheTables) {
  Result r = RunCommand(LdbOnCopy("file_checksum_dump"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Contains(r.output, "magic number")) << r.output;
  r = RunCommand(LdbOnCopy("reduce_levels --new_levels=3"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Contains(r.output, "magic number")) << r.output;
  ExpectDbContents(RunCommand(LdbOnCopy("scan")), kScanDelim);
}

// Leaving the plugin: dump the DB with cuckoo_ldb and load the dump into a
// new DB, which gets RocksDB's defaults (BlockBasedTable, skip list); the
// new DB holds exactly the old one's keys and values.
TEST_F(CuckooLdbBaseOptionsTest, DumpLoadsIntoABlockBasedDb) {
  const std::string target = copy_ + "_block_based";
  fs::remove_all(target);
  Result r = RunCommand(LdbOnCopy("dump --hex") + " | env -u LD_PRELOAD " +
                        Quote(kCuckooLdb) + " --db=" + Quote(target) +
                        " --create_if_missing load --hex");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  bool options_name_block_based = false;
  for (const auto& entry : fs::directory_iterator(target)) {
    if (entry.path().filename().string().rfind("OPTIONS-", 0) != 0) continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    options_name_block_based |=
        Contains(text, "table_factory=BlockBasedTable") &&
        !Contains(text, "CuckooHashTable");
  }
  EXPECT_TRUE(options_name_block_based);
  ExpectDbContents(
      RunCommand(std::string("env -u LD_PRELOAD ") + Quote(kCuckooLdb) +
                 " --db=" + Quote(target) + " scan"),
      kScanDelim);
  fs::remove_all(target);
}

// ldb's own `backup` names shared table files by DB session id, which
// RocksDB 9 and later read with SstFileDumper and refuse on our tables;
// cuckoo_ldb's names them by checksum. ldb's `restore` reads no table.
using CuckooLdbBackupTest = CuckooLdbBaseOptionsTest;

TEST_F(CuckooLdbBackupTest, BackupRestoresTheSameData) {
  const std::string backup = copy_ + "_backup";
  const std::string restored = copy_ + "_restored";
  fs::remove_all(backup);
  fs::remove_all(restored);
  Result r = RunCommand(
      LdbOnCopy("backup --num_threads=2 --backup_dir=" + Quote(backup)));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "open db OK\nopen backup engine OK\ncreate new backup OK\n");
  int tables = 0;
  for (const auto& entry :
       fs::directory_iterator(backup + "/shared_checksum")) {
    tables += entry.path().extension() == ".sst";
  }
  EXPECT_EQ(tables, 2);

  r = RunCommand(std::string("env -u LD_PRELOAD ") + Quote(kCuckooLdb) +
                 " --db=" + Quote(restored) +
                 " restore --backup_dir=" + Quote(backup));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "restore from backup OK")) << r.output;
  const Result scan =
      RunCommand(std::string("env -u LD_PRELOAD ") + Quote(kCuckooLdb) +
                 " --db=" + Quote(restored) + " scan");
  ExpectDbContents(scan, kScanDelim);
  EXPECT_EQ(scan.output, RunCommand(LdbOnCopy("scan")).output);
  fs::remove_all(backup);
  fs::remove_all(restored);
}

TEST_F(CuckooLdbBackupTest, BackupWithoutDirFails) {
  const Result r = RunCommand(LdbOnCopy("backup"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "--backup_dir: missing backup directory"))
      << r.output;
}

// ---- cuckoo_sst_dump -----------------------------------------------------

class SstDumpTest : public ToolsTest {
 protected:
  void SetUp() override {
    ToolsTest::SetUp();
    SKIP_WITHOUT(kSstDump);
  }
};

TEST_F(SstDumpTest, ScanPrintsEveryInternalEntry) {
  Result r =
      RunCommand(SstDump("--file=" + Quote(FirstSst()) + " --command=scan"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Sst file format: CuckooHashTable"))
      << r.output;
  EXPECT_EQ(CountOccurrences(r.output, " => "), kKeys) << r.output;
  for (int i : {0, 42, 99}) {
    EXPECT_TRUE(Contains(r.output, "'" + Key(i) + "' seq:")) << r.output;
    EXPECT_TRUE(Contains(r.output, "type:1 => " + Value(i))) << r.output;
  }
  // Keys come out in order.
  EXPECT_LT(r.output.find("'key010'"), r.output.find("'key011'"));
}

TEST_F(SstDumpTest, ScanShowsDeletionsOfTheSecondFile) {
  Result r = RunCommand(
      SstDump("--file=" + Quote((*sst_files_)[1]) + " --command=scan"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "'key005' seq:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "=> value005-v2")) << r.output;
  EXPECT_TRUE(Contains(r.output, "'key007' seq:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "type:0 =>")) << r.output;  // kTypeDeletion
}

TEST_F(SstDumpTest, FromToBoundsTheScan) {
  Result r = RunCommand(SstDump("--file=" + Quote(FirstSst()) +
                                " --command=scan --from=key010 --to=key020"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, " => "), 10) << r.output;
  EXPECT_TRUE(Contains(r.output, "'key010'")) << r.output;
  EXPECT_TRUE(Contains(r.output, "'key019'")) << r.output;
  EXPECT_FALSE(Contains(r.output, "'key009'")) << r.output;
  EXPECT_FALSE(Contains(r.output, "'key020'")) << r.output;
}

TEST_F(SstDumpTest, ReadNumLimitsTheScan) {
  Result r = RunCommand(SstDump("--file=" + Quote(FirstSst()) +
                                " --command=scan --from=key050 --read_num=5"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, " => "), 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "'key054'")) << r.output;
  EXPECT_FALSE(Contains(r.output, "'key055'")) << r.output;
}

TEST_F(SstDumpTest, HexOutputAndHexInput) {
  Result r = RunCommand(SstDump("--file=" + Quote(FirstSst()) +
                                " --command=scan --output_hex --input_key_hex" +
                                " --from=0x" + HexOf("key030") +
                                " --to=" + HexOf("key032")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, " => "), 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "'" + HexOf("key031") + "'")) << r.output;
  EXPECT_TRUE(Contains(r.output, "=> " + HexOf("value031"))) << r.output;
  EXPECT_FALSE(Contains(r.output, "value031")) << r.output;
}

TEST_F(SstDumpTest, CheckReadsAllEntries) {
  Result r =
      RunCommand(SstDump("--file=" + Quote(FirstSst()) + " --command=check"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "check: 100 entries")) << r.output;
  EXPECT_TRUE(Contains(r.output, " 0 errors")) << r.output;
}

TEST_F(SstDumpTest, VerifyChecksum) {
  Result r =
      RunCommand(SstDump("--file=" + Quote(FirstSst()) + " --command=verify"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "The file is ok")) << r.output;
}

TEST_F(SstDumpTest, ShowProperties) {
  Result r = RunCommand(SstDump("--file=" + Quote(FirstSst()) +
                                " --command=none --show_properties"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "# entries: 100")) << r.output;
  EXPECT_TRUE(Contains(r.output, "rocksdb.cuckoo.")) << r.output;
  EXPECT_FALSE(Contains(r.output, " => ")) << r.output;  // no scan
}

TEST_F(SstDumpTest, DirectoryProcessesEveryFile) {
  Result r = RunCommand(SstDump("--file=" + Quote(*db_) + " --command=check"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, "Process "), 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "check: 100 entries")) << r.output;
  EXPECT_TRUE(Contains(r.output, "check: 2 entries")) << r.output;
}

TEST_F(SstDumpTest, ReadsBlockBasedFilesToo) {
  std::string db = *dir_ + "/block_based_db";
  {
    rdb::Options options;
    options.create_if_missing = true;
    rdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb_cuckoo::OpenDB(options, db, &raw).ok());
    std::unique_ptr<rdb::DB> d(raw);
    ASSERT_TRUE(d->Put(rdb::WriteOptions(), "bb-key", "bb-value").ok());
    ASSERT_TRUE(d->Flush(rdb::FlushOptions()).ok());
    ASSERT_TRUE(d->Close().ok());
  }
  Result r = RunCommand(SstDump("--file=" + Quote(db) + " --command=scan"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Sst file format: block-based")) << r.output;
  EXPECT_TRUE(Contains(r.output, "'bb-key' seq:1, type:1 => bb-value"))
      << r.output;
}

TEST_F(SstDumpTest, MissingFileFails) {
  std::string missing = *dir_ + "/no-such-file.sst";
  Result r = RunCommand(SstDump("--file=" + Quote(missing)));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "no-such-file.sst")) << r.output;
  EXPECT_TRUE(Contains(r.output, "cannot open table")) << r.output;
}

TEST_F(SstDumpTest, UsageErrors) {
  Result r = RunCommand(SstDump("--file=x --bogus"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "Unknown argument: --bogus")) << r.output;
  r = RunCommand(SstDump("--file=x --command=frobnicate"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = RunCommand(SstDump(""));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = RunCommand(
      SstDump("--file=x --options_string=table_factory={id=NoSuchTable}"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "Invalid --options_string")) << r.output;
}

TEST_F(SstDumpTest, OptionsStringNamesTheFactory) {
  Result r = RunCommand(SstDump("--file=" + Quote(FirstSst()) +
                                " --command=check --options_string=" +
                                Quote("table_factory={id=CuckooHashTable}")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "check: 100 entries")) << r.output;
  // Forcing the wrong format is an error, not a crash.
  r = RunCommand(SstDump("--file=" + Quote(FirstSst()) +
                         " --command=check --options_string=" +
                         Quote("table_factory={id=BlockBasedTable}")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

// A damaged file gives a message and exit status 1: never a crash, never a
// clean pass.
Result ExpectRejected(const std::string& command, const std::string& path) {
  Result r =
      RunCommand(SstDump("--file=" + Quote(path) + " --command=" + command));
  EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
  EXPECT_TRUE(Contains(r.output, path)) << command << ": " << r.output;
  EXPECT_FALSE(Contains(r.output, "The file is ok")) << r.output;
  return r;
}

TEST_F(SstDumpTest, CorruptedFileFails) {
  std::string bad = Copy(FirstSst(), "corrupted.sst");
  auto size = fs::file_size(bad);
  ASSERT_GT(size, 256u);
  {
    // Flip bits in the middle of the file, away from the footer.
    std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes(64, '\0');
    f.seekg(static_cast<std::streamoff>(size / 2));
    f.read(&bytes[0], bytes.size());
    for (char& c : bytes) c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write(bytes.data(), bytes.size());
  }
  ExpectRejected("verify", bad);
  ExpectRejected("check", bad);
}

TEST_F(SstDumpTest, TruncatedFileFails) {
  std::string bad = Copy(FirstSst(), "truncated.sst");
  fs::resize_file(bad, fs::file_size(bad) / 2);
  ExpectRejected("scan", bad);
  ExpectRejected("verify", bad);
}

TEST_F(SstDumpTest, GarbageAndEmptyFilesFail) {
  std::string garbage = *dir_ + "/garbage.sst";
  {
    std::ofstream out(garbage, std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(i * 37 + 11));
  }
  Result r = ExpectRejected("scan", garbage);
  EXPECT_TRUE(Contains(r.output, "Unknown table magic number")) << r.output;
  std::string empty = *dir_ + "/empty.sst";
  { std::ofstream out(empty); }
  ExpectRejected("scan", empty);
  std::string tiny = *dir_ + "/tiny.sst";
  {
    std::ofstream out(tiny);
    out << "abc";
  }
  ExpectRejected("scan", tiny);
}

}  // namespace
