// Closing a DB while the background loader is still reading one of its
// CuckooHashTable files. RocksDB destroys a column family (its statistics
// and per-level read histograms among it) before it evicts the column
// family's table readers, so a read the loader has in flight then must not
// record into them: under AddressSanitizer that is a use after free, in a
// release build a crash. The files' reads are slowed down here so that the
// loader is surely mid-read when the DB closes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/statistics.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kKeys = 40000;
constexpr auto kReadDelay = std::chrono::milliseconds(20);

std::string KeyOf(int i) { return testing::NumberedKey(i, 8); }
std::string ValueOf(int i) { return std::string(100, 'a' + i % 26); }

// Table files whose reads each take kReadDelay while `slow` is set.
class SlowTableReadsFileSystem : public FileSystemWrapper {
 public:
  explicit SlowTableReadsFileSystem(const std::shared_ptr<FileSystem>& base)
      : FileSystemWrapper(base) {}
  const char* Name() const override { return "SlowTableReadsFileSystem"; }

  IOStatus NewRandomAccessFile(const std::string& name,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override {
    IOStatus s = target()->NewRandomAccessFile(name, options, result, dbg);
    if (s.ok() && name.size() > 4 && name.substr(name.size() - 4) == ".sst") {
      result->reset(new SlowFile(std::move(*result), &slow));
    }
    return s;
  }

  std::atomic<bool> slow{false};

 private:
  class SlowFile : public FSRandomAccessFileOwnerWrapper {
   public:
    SlowFile(std::unique_ptr<FSRandomAccessFile>&& file,
             const std::atomic<bool>* slow)
        : FSRandomAccessFileOwnerWrapper(std::move(file)), slow_(slow) {}
    IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                  Slice* result, char* scratch,
                  IODebugContext* dbg) const override {
      if (slow_->load()) std::this_thread::sleep_for(kReadDelay);
      return target()->Read(offset, n, options, result, scratch, dbg);
    }

   private:
    const std::atomic<bool>* const slow_;
  };
};

TEST(CloseWhileLoadingTest, ClosingStopsTheLoaderWithoutTouchingFreedStats) {
  auto fs = std::make_shared<SlowTableReadsFileSystem>(FileSystem::Default());
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  Options options;
  options.create_if_missing = true;
  options.env = env.get();
  options.allow_mmap_reads = false;
  // Statistics make RocksDB's file reader record every read's latency in
  // the column family's histograms.
  options.statistics = CreateDBStatistics();
  CuckooHashTableOptions table;
  table.load_in_background = true;
  options.table_factory = NewCuckooHashTableFactory(table);

  testing::ScratchDb db("close_while_loading");
  ASSERT_OK(db.Open(options));
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), KeyOf(i), ValueOf(i)));
  }
  ASSERT_OK(db->Flush(FlushOptions()));

  // Reopened, the file's bulk is not loaded; the first lookup loads its
  // chunks and hands the rest (several slow reads) to the loader.
  ASSERT_OK(db.Open(options));
  fs->slow = true;
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), KeyOf(kKeys / 2), &value));
  EXPECT_EQ(value, ValueOf(kKeys / 2));
  db.Close();
  fs->slow = false;

  // The file is intact and every key reads back.
  ASSERT_OK(db.Open(options));
  for (int i = 0; i < kKeys; i += 997) {
    ASSERT_OK(db->Get(ReadOptions(), KeyOf(i), &value));
    EXPECT_EQ(value, ValueOf(i));
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
