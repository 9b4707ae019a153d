// cuckoo_ldb: RocksDB's ldb with every rocksdb-cuckoo factory registered, so
// DBs written with the plugin open without LD_PRELOAD. Same commands and
// flags as the stock ldb, e.g.
//   cuckoo_ldb --db=/path/to/db scan
//   cuckoo_ldb --db=/path/to/db get <key>
//   cuckoo_ldb --db=/path/to/db dump
// The DB's OPTIONS file names the table factory (ldb loads it by default when
// --db is given).
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/ldb_tool.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/object_registry.h"

int main(int argc, char** argv) {
  // The static library registers nothing by itself; ldb resolves names through
  // ObjectLibrary::Default() when it loads the OPTIONS file.
  register_rocksdb_cuckoo(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
  ROCKSDB_NAMESPACE::LDBTool tool;
  tool.Run(argc, argv, ROCKSDB_NAMESPACE::Options());
  return 0;  // Run() exits with the command's status; not reached.
}
