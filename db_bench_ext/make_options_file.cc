// make_options_file: writes the OPTIONS file that db_bench_compare.py hands
// to the stock db_bench (--options_file) to run a table factory that db_bench
// has no flag for, such as CuckooHashTable.
//
//   LD_PRELOAD=build/librocksdb_cuckoo.so make_options_file
//     --base=<OPTIONS file db_bench wrote for --use_cuckoo_table>
//     --cf_options='table_factory={id=CuckooHashTable;hash_table_ratio=0.9}'
//     --expect_table_factory=CuckooHashTable --out=ours.options
// (one command line).
//
// Starting from the OPTIONS file of a flag-configured db_bench run keeps every
// other option identical to that run. The factory is found exactly as db_bench
// finds it (this tool links nothing of the plugin: preload it), and lookups are
// strict, so an unregistered id fails here instead of silently becoming a
// BlockBasedTable. RocksDB itself writes the file, by opening a
// scratch DB with the result, so it round-trips by construction.
#include <gflags/gflags.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "tests/support/db_open.h"

DEFINE_string(base, "", "OPTIONS file to start from (required).");
DEFINE_string(cf_options, "",
              "Column family options string applied on top of --base.");
DEFINE_string(db_options, "", "DB options string applied on top of --base.");
DEFINE_string(expect_table_factory, "",
              "Fail unless the resulting table factory is an instance of "
              "this id.");
DEFINE_string(out, "", "Where to write the OPTIONS file (required).");

namespace {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::Status;

void Check(const Status& s, const std::string& what) {
  if (s.ok()) return;
  std::fprintf(stderr, "make_options_file: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Write a db_bench OPTIONS file with a table factory "
      "from an options string");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_base.empty() || FLAGS_out.empty()) {
    std::fprintf(stderr, "make_options_file: --base and --out are required\n");
    return 2;
  }
  Env* env = Env::Default();

  // Strict: an unknown option or an unregistered id is an error.
  ConfigOptions config;
  config.env = env;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  config.input_strings_escaped = true;  // OPTIONS files escape their values
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  Check(ROCKSDB_NAMESPACE::LoadOptionsFromFile(config, FLAGS_base, &db_options,
                                               &families),
        "load " + FLAGS_base);

  config.input_strings_escaped = false;
  Check(ROCKSDB_NAMESPACE::GetDBOptionsFromString(
            config, db_options, FLAGS_db_options, &db_options),
        FLAGS_db_options);
  for (ColumnFamilyDescriptor& family : families) {
    Check(ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
              config, family.options, FLAGS_cf_options, &family.options),
          FLAGS_cf_options);
    const auto& factory = family.options.table_factory;
    if (factory == nullptr ||
        (!FLAGS_expect_table_factory.empty() &&
         !factory->IsInstanceOf(FLAGS_expect_table_factory))) {
      Check(Status::InvalidArgument(
                "table factory is " +
                std::string(factory ? factory->Name() : "null") + ", not " +
                FLAGS_expect_table_factory +
                " (is librocksdb_cuckoo.so preloaded?)"),
            family.name);
    }
  }

  // Let RocksDB write the file: open and close a scratch DB with the result.
  const std::string scratch = FLAGS_out + ".scratch-db";
  Options destroy_options(db_options, families.front().options);
  Check(ROCKSDB_NAMESPACE::DestroyDB(scratch, destroy_options),
        "destroy " + scratch);
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  DB* db = nullptr;
  std::vector<ColumnFamilyHandle*> handles;
  Check(rocksdb_cuckoo::OpenDB(db_options, scratch, families, &handles, &db),
        "open " + scratch);
  for (ColumnFamilyHandle* h : handles)
    Check(db->DestroyColumnFamilyHandle(h), "close");
  Check(db->Close(), "close " + scratch);
  delete db;

  std::string name;
  Check(ROCKSDB_NAMESPACE::GetLatestOptionsFileName(scratch, env, &name),
        "find OPTIONS in " + scratch);
  std::string text;
  Check(ROCKSDB_NAMESPACE::ReadFileToString(env, scratch + "/" + name, &text),
        "read " + name);
  Check(ROCKSDB_NAMESPACE::WriteStringToFile(env, text, FLAGS_out),
        "write " + FLAGS_out);
  Check(ROCKSDB_NAMESPACE::DestroyDB(scratch, destroy_options),
        "destroy " + scratch);
  env->DeleteDir(scratch).PermitUncheckedError();
  std::printf("%s\n", FLAGS_out.c_str());
  return 0;
}
