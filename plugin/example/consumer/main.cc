// Uses the installed rocksdb-cuckoo package: its headers, its C++ factory and
// its registered name.
//   consumer_{shared,static} <db_path>
#include <rocksdb_cuckoo/cuckoo_hash_table.h>
#include <rocksdb_cuckoo/rocksdb_cuckoo.h>

#include <cstdio>
#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/object_registry.h"

namespace rdb = ROCKSDB_NAMESPACE;

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <db_path>\n", argv[0]);
    return 2;
  }
#ifdef CONSUMER_CALLS_REGISTER
  register_rocksdb_cuckoo(*rdb::ObjectLibrary::Default(), "");
#endif
  // The name must resolve: registered above (static) or by the shared
  // library's initializer. Strict options so an unknown id is an error.
  rdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<rdb::TableFactory> by_name;
  rdb::Status s = rdb::TableFactory::CreateFromString(
      config, "id=CuckooHashTable;hash_table_ratio=0.8", &by_name);
  if (!s.ok() || by_name == nullptr) {
    fprintf(stderr, "CuckooHashTable did not resolve: %s\n",
            s.ToString().c_str());
    return 1;
  }

  rocksdb_cuckoo::CuckooHashTableOptions table_options;
  table_options.identity_as_first_hash = false;
  rdb::Options options;
  options.create_if_missing = true;
  options.table_factory =
      rocksdb_cuckoo::NewCuckooHashTableFactory(table_options);
  s = rdb::DestroyDB(argv[1], options);
  rdb::DB* raw = nullptr;
  if (s.ok()) {
    s = rdb::DB::Open(options, argv[1], &raw);
  }
  if (!s.ok()) {
    fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rdb::DB> db(raw);
  for (int i = 0; i < 100 && s.ok(); ++i) {
    s = db->Put(rdb::WriteOptions(), "k" + std::to_string(i),
                "v" + std::to_string(i));
  }
  if (s.ok()) {
    s = db->Flush(rdb::FlushOptions());
  }
  std::string value;
  if (s.ok()) {
    s = db->Get(rdb::ReadOptions(), "k42", &value);
  }
  if (!s.ok() || value != "v42") {
    fprintf(stderr, "write/flush/read: %s, value '%s'\n", s.ToString().c_str(),
            value.c_str());
    return 1;
  }
  printf("factory %s by name, %s from C++; consumer OK\n", by_name->Name(),
         db->GetOptions().table_factory->Name());
  return db->Close().ok() ? 0 : 1;
}
