// GetPluginUsage counts what the plugin's parts did in this process, so a
// user can tell that a DB really runs them; ROCKSDB_CUCKOO_PRINT_USAGE makes
// the process print the counts as it exits. A DB on RocksDB's own table,
// memtable and Env moves none of them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

// Writes a key, flushes it into a table file, reads it back, closes.
void WriteFlushRead(const Options& options) {
  testing::ScratchDb db("plugin_usage");
  ASSERT_OK(db.Open(options));
  ASSERT_OK(db->Put(WriteOptions(), "key", "value"));
  ASSERT_OK(db->Flush(FlushOptions()));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "key", &value));
  EXPECT_EQ(value, "value");
}

// Options naming all three parts, resolved through the ObjectRegistry.
Options OursOptions(std::shared_ptr<Env>* env_guard) {
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  ConfigOptions strict;
  strict.ignore_unknown_options = false;
  strict.ignore_unsupported_options = false;
  Options options;
  EXPECT_OK(GetOptionsFromString(
      strict, Options(),
      "create_if_missing=true;table_factory={id=CuckooHashTable};"
      "memtable_factory=striped_hash",
      &options));
  Env* env = nullptr;
  EXPECT_OK(Env::CreateFromString(strict, "AsyncExecutorEnv", &env, env_guard));
  options.env = env;
  return options;
}

TEST(PluginUsageTest, CountsWhatEachPartDid) {
  std::shared_ptr<Env> env_guard;
  const Options options = OursOptions(&env_guard);
  const PluginUsage before = GetPluginUsage();
  ASSERT_NO_FATAL_FAILURE(WriteFlushRead(options));
  const PluginUsage after = GetPluginUsage();
  EXPECT_GE(after.tables_built - before.tables_built, 1u);
  EXPECT_GE(after.tables_opened - before.tables_opened, 1u);
  EXPECT_GE(after.memtables_created - before.memtables_created, 1u);
  EXPECT_GE(after.env_jobs_run - before.env_jobs_run, 1u) << "the flush";
}

TEST(PluginUsageTest, RocksDbsOwnPartsCountNothing) {
  Options options;
  options.create_if_missing = true;
  const PluginUsage before = GetPluginUsage();
  ASSERT_NO_FATAL_FAILURE(WriteFlushRead(options));
  const PluginUsage after = GetPluginUsage();
  EXPECT_EQ(after.tables_built, before.tables_built);
  EXPECT_EQ(after.tables_opened, before.tables_opened);
  EXPECT_EQ(after.memtables_created, before.memtables_created);
  EXPECT_EQ(after.env_jobs_run, before.env_jobs_run);
}

TEST(PluginUsageDeathTest, PrintsTheCountsAtExitWhenAsked) {
  EXPECT_EXIT(
      {
        setenv("ROCKSDB_CUCKOO_PRINT_USAGE", "1", 1);
        std::shared_ptr<Env> env_guard;
        WriteFlushRead(OursOptions(&env_guard));
        env_guard.reset();
        exit(0);
      },
      ::testing::ExitedWithCode(0),
      "rocksdb-cuckoo usage: tables_opened=[1-9][0-9]* tables_built=[1-9]"
      "[0-9]* memtables_created=[1-9][0-9]* env_jobs_run=[1-9]");
}

}  // namespace
}  // namespace rocksdb_cuckoo
