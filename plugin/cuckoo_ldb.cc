// cuckoo_ldb: RocksDB's ldb with every rocksdb-cuckoo factory registered, so
// DBs written with the plugin open without LD_PRELOAD. Same commands and
// flags as the stock ldb, e.g.
//   cuckoo_ldb --db=/path/to/db scan
//   cuckoo_ldb --db=/path/to/db get <key>
//   cuckoo_ldb --db=/path/to/db dump
//   cuckoo_ldb --db=/path/to/db repair
// The DB's OPTIONS file names the table factory (ldb loads it by default when
// --db is given).
#include <cstring>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/ldb_tool.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"

namespace {

using namespace ROCKSDB_NAMESPACE;

// The default column family's options from the OPTIONS file of the DB that
// --db names, or RocksDB's defaults. ldb loads that file itself, but gives
// the commands that work on the base options rather than a column family's
// (repair, reduce_levels, file_checksum_dump) only its DB-wide part: they
// would open our tables as BlockBasedTable files, and repair moves every
// table it cannot read to lost/, leaving the DB empty.
ColumnFamilyOptions DefaultColumnFamilyOptionsOf(int argc, char** argv) {
  static constexpr char kDbFlag[] = "--db=";
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], kDbFlag, strlen(kDbFlag)) != 0) continue;
    ConfigOptions config;
    DBOptions db_options;
    std::vector<ColumnFamilyDescriptor> column_families;
    if (!LoadLatestOptions(config, argv[i] + strlen(kDbFlag), &db_options,
                           &column_families)
             .ok()) {
      break;
    }
    for (const ColumnFamilyDescriptor& family : column_families) {
      if (family.name == kDefaultColumnFamilyName) return family.options;
    }
  }
  return ColumnFamilyOptions();
}

}  // namespace

int main(int argc, char** argv) {
  // The static library registers nothing by itself; ldb resolves names through
  // ObjectLibrary::Default() when it loads the OPTIONS file.
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  LDBTool tool;
  tool.Run(argc, argv,
           Options(DBOptions(), DefaultColumnFamilyOptionsOf(argc, argv)));
  return 0;  // Run() exits with the command's status; not reached.
}
