// The striped_hash memtable the way users meet it: by name in options
// strings and OPTIONS files, its typed options and their validation, a DB
// running on it, and the statistics read back through the factory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "memtable/striped_hash_memtable.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/options_util.h"
#include "tests/support/db_open.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

class StripedHashOptionsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }
  StripedHashOptionsTest()
      : path_(::testing::TempDir() + "/striped_hash_options_" +
              std::to_string(getpid())) {
    strict_.ignore_unsupported_options = false;
    strict_.ignore_unknown_options = false;
    std::filesystem::remove_all(path_);
  }
  ~StripedHashOptionsTest() override { std::filesystem::remove_all(path_); }

  Status Create(const std::string& text,
                std::shared_ptr<MemTableRepFactory>* factory) {
    return MemTableRepFactory::CreateFromString(strict_, text, factory);
  }
  // Parsing `text` must fail with InvalidArgument naming `option`.
  void ExpectInvalid(const std::string& text, const std::string& option) {
    std::shared_ptr<MemTableRepFactory> factory;
    const Status s = Create(text, &factory);
    EXPECT_TRUE(s.IsInvalidArgument()) << text << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(option), std::string::npos)
        << text << ": " << s.ToString();
  }

  ConfigOptions strict_;
  std::string path_;
};

TEST_F(StripedHashOptionsTest, CreatesByIdWithTypedOptions) {
  std::shared_ptr<MemTableRepFactory> factory;
  ASSERT_OK(Create(
      "id=striped_hash;bucket_count=4096;max_load_factor=0.5;stripe_mode=core",
      &factory));
  ASSERT_NE(factory, nullptr);
  EXPECT_STREQ(factory->Name(), kStripedHashMemTableName);
  EXPECT_TRUE(factory->IsInsertConcurrentlySupported());
  EXPECT_TRUE(factory->CanHandleDuplicatedKey());
  const auto* options = factory->GetOptions<StripedHashMemTableOptions>();
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(options->bucket_count, 4096u);
  EXPECT_DOUBLE_EQ(options->max_load_factor, 0.5);
  EXPECT_EQ(options->stripe_mode, StatsStripeMode::kCore);
  // The counters follow the configured mode.
  auto* striped = factory->CheckedCast<StripedHashMemTableFactory>();
  ASSERT_NE(striped, nullptr);
  EXPECT_EQ(striped->GetStats().stripe_mode, StatsStripeMode::kCore);

  ASSERT_OK(Create("striped_hash", &factory));
  EXPECT_EQ(factory->GetOptions<StripedHashMemTableOptions>()->stripe_mode,
            StatsStripeMode::kAuto);
  ASSERT_OK(Create("id=striped_hash;stripe_mode=auto", &factory));
  EXPECT_NE(factory->CheckedCast<StripedHashMemTableFactory>()
                ->GetStats()
                .stripe_mode,
            StatsStripeMode::kAuto);
}

TEST_F(StripedHashOptionsTest, OptionsRoundTripThroughStrings) {
  std::shared_ptr<MemTableRepFactory> factory;
  ASSERT_OK(Create(
      "id=striped_hash;bucket_count=65536;max_load_factor=0.8;stripe_mode=none",
      &factory));
  std::string text;
  ASSERT_OK(factory->GetOptionString(strict_, &text));
  std::shared_ptr<MemTableRepFactory> copy;
  ASSERT_OK(Create("id=striped_hash;" + text, &copy));
  std::string mismatch;
  EXPECT_TRUE(factory->AreEquivalent(strict_, copy.get(), &mismatch))
      << mismatch;
  EXPECT_EQ(copy->GetOptions<StripedHashMemTableOptions>()->stripe_mode,
            StatsStripeMode::kNone);
}

TEST_F(StripedHashOptionsTest, BadValuesAreInvalidArgumentsNamingTheOption) {
  ExpectInvalid("id=striped_hash;bucket_count=0", "bucket_count");
  ExpectInvalid("id=striped_hash;bucket_count=8", "bucket_count");
  ExpectInvalid("id=striped_hash;bucket_count=-5", "bucket_count");
  ExpectInvalid("id=striped_hash;bucket_count=12x", "bucket_count");
  ExpectInvalid("id=striped_hash;bucket_count=2147483648", "bucket_count");
  ExpectInvalid("id=striped_hash;max_load_factor=0.95", "max_load_factor");
  ExpectInvalid("id=striped_hash;max_load_factor=0.1", "max_load_factor");
  ExpectInvalid("id=striped_hash;max_load_factor=half", "max_load_factor");
  ExpectInvalid("id=striped_hash;stripe_mode=socket", "stripe_mode");
  ExpectInvalid("id=striped_hash;stripes=4", "stripes");
  ExpectInvalid("id=striped_hash;entry_slab_size=4194303", "entry_slab_size");
  ExpectInvalid("id=striped_hash;entry_slab_size=1073741825",
                "entry_slab_size");
  ExpectInvalid("id=striped_hash;entry_slab_size=big", "entry_slab_size");
}

// Entries in huge-page slabs: a DB writes, reads, flushes and reopens as
// without them, and refuses a slab above an eighth of the write buffer (a
// memtable would flush a slab early).
TEST_F(StripedHashOptionsTest, EntrySlabsServeADbAndMustFitTheWriteBuffer) {
  Options options;
  ASSERT_OK(GetOptionsFromString(
      strict_, Options(),
      "create_if_missing=true;write_buffer_size=33554432;"
      "memtable_factory={id=striped_hash;entry_slab_size=4194304}",
      &options));
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, path_, &raw));
  std::unique_ptr<DB> db(raw);
  // About 60 MiB of entries: two memtables, the first flushed when full.
  const int kKeys = 250000;
  auto value_of = [](int i) {
    return std::string(200, static_cast<char>('a' + i % 26)) +
           std::to_string(i);
  };
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i), value_of(i)));
  }
  std::string value;
  for (int i = 0; i < kKeys; i += 97) {
    ASSERT_OK(db->Get(ReadOptions(), "key" + std::to_string(i), &value));
    ASSERT_EQ(value, value_of(i));
  }
  // The first memtable filled up and a second one took over.
  EXPECT_GE(options.memtable_factory->CheckedCast<StripedHashMemTableFactory>()
                ->GetStats()
                .memtables,
            2u);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(OpenDB(options, path_, &raw));
  db.reset(raw);
  int seen = 0;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
  ASSERT_OK(it->status());
  EXPECT_EQ(seen, kKeys);
  ASSERT_OK(db->Get(ReadOptions(), "key12345", &value));
  EXPECT_EQ(value, value_of(12345));
  it.reset();
  ASSERT_OK(db->Close());
  db.reset();

  options.write_buffer_size = 16 << 20;  // an eighth is 2 MiB: too small
  raw = nullptr;
  const Status s = OpenDB(options, path_, &raw);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("entry_slab_size"), std::string::npos);
  EXPECT_EQ(raw, nullptr);
}

TEST_F(StripedHashOptionsTest, CodeSetValuesAreCheckedToo) {
  StripedHashMemTableOptions options;
  options.max_load_factor = 1.0;
  auto factory = NewStripedHashMemTableFactory(options);
  const Status s = factory->PrepareOptions(strict_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("max_load_factor"), std::string::npos);
}

TEST_F(StripedHashOptionsTest, ColumnFamilyOptionsStringSelectsIt) {
  ColumnFamilyOptions cf;
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      strict_, ColumnFamilyOptions(),
      "memtable_factory={id=striped_hash;bucket_count=256}", &cf));
  ASSERT_NE(cf.memtable_factory, nullptr);
  EXPECT_STREQ(cf.memtable_factory->Name(), "striped_hash");
  EXPECT_EQ(cf.memtable_factory->GetOptions<StripedHashMemTableOptions>()
                ->bucket_count,
            256u);
}

TEST_F(StripedHashOptionsTest, DbRunsOnItAndOptionsFileNamesIt) {
  Options options;
  ASSERT_OK(GetOptionsFromString(
      strict_, Options(),
      "create_if_missing=true;write_buffer_size=65536;"
      "memtable_factory={id=striped_hash;stripe_mode=core}",
      &options));
  auto* factory =
      options.memtable_factory->CheckedCast<StripedHashMemTableFactory>();
  ASSERT_NE(factory, nullptr);
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, path_, &raw));
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i),
                      std::string(40, 'a' + i % 26)));
  }
  ASSERT_OK(db->Delete(WriteOptions(), "key7"));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "key1999", &value));
  EXPECT_EQ(value, std::string(40, 'a' + 1999 % 26));
  EXPECT_TRUE(db->Get(ReadOptions(), "key7", &value).IsNotFound());
  EXPECT_TRUE(db->Get(ReadOptions(), "nope", &value).IsNotFound());

  const StripedHashMemTableStats stats = factory->GetStats();
  EXPECT_EQ(stats.inserts, 2001u);
  EXPECT_EQ(stats.deletes, 1u);
  EXPECT_GE(stats.memtables, 2u);  // 2000 x ~50 bytes filled several
  EXPECT_GE(stats.hits, 1u);
  EXPECT_GE(stats.misses, 1u);
  EXPECT_GE(stats.sorts, 1u);  // flushes iterate sorted views
  EXPECT_EQ(stats.stripe_mode, StatsStripeMode::kCore);

  ASSERT_OK(db->Close());
  db.reset();
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> cfs;
  ASSERT_OK(LoadLatestOptions(strict_, path_, &db_options, &cfs));
  ASSERT_EQ(cfs.size(), 1u);
  EXPECT_STREQ(cfs[0].options.memtable_factory->Name(), "striped_hash");
  EXPECT_EQ(
      cfs[0]
          .options.memtable_factory->GetOptions<StripedHashMemTableOptions>()
          ->stripe_mode,
      StatsStripeMode::kCore);
}

TEST_F(StripedHashOptionsTest, RefusesWhatAByteHashCannotServe) {
  // Comparators that do not promise byte equality, and in-place updates.
  class OpaqueComparator : public Comparator {
   public:
    const char* Name() const override { return "test.Opaque"; }
    int Compare(const Slice& a, const Slice& b) const override {
      return a.compare(b);
    }
    void FindShortestSeparator(std::string*, const Slice&) const override {}
    void FindShortSuccessor(std::string*) const override {}
  };
  static OpaqueComparator opaque;
  Options options;
  options.create_if_missing = true;
  options.memtable_factory = NewStripedHashMemTableFactory();
  options.comparator = &opaque;
  DB* raw = nullptr;
  Status s = OpenDB(options, path_, &raw);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(raw, nullptr);

  options.comparator = BytewiseComparator();
  options.inplace_update_support = true;
  s = OpenDB(options, path_, &raw);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("inplace_update_support"), std::string::npos);
  EXPECT_EQ(raw, nullptr);
}

}  // namespace
}  // namespace rocksdb_cuckoo
