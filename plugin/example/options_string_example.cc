// Uses the CuckooHashTable format only through an options string, the way an
// application that must not depend on the plugin's C++ API would: no plugin
// type appears below, just the name `CuckooHashTable` in a string.
//
//   options_string_example [db_path]
//
// Pitfall: with a default ConfigOptions, an id that nobody
// registered parses as OK with a null factory, and the DB then silently uses
// BlockBasedTable. So ignore_unsupported_options is off and the factory is
// checked for null.
#include <cstdio>
#include <memory>
#include <string>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"

using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::Status;

namespace {

int Fail(const char* what, const Status& s) {
  fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string db_path =
      argc > 1 ? argv[1] : "/tmp/rocksdb_cuckoo_options_string_example";

  // Linked statically, the plugin registers its names only when asked. (With
  // librocksdb_cuckoo.so, linked or LD_PRELOADed, this call is redundant.)
  register_rocksdb_cuckoo(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");

  ConfigOptions config;
  config.ignore_unsupported_options = false;  // unknown id -> error, not null
  config.ignore_unknown_options = false;      // misspelt option -> error
  ColumnFamilyOptions cf_options;
  Status s = ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
      config, ColumnFamilyOptions(),
      "table_factory={id=CuckooHashTable;hash_table_ratio=0.9;"
      "identity_as_first_hash=false};"
      "write_buffer_size=4194304",
      &cf_options);
  if (!s.ok()) {
    return Fail("parsing the options string", s);
  }
  if (cf_options.table_factory == nullptr ||
      std::string(cf_options.table_factory->Name()) != "CuckooHashTable") {
    fprintf(
        stderr, "CuckooHashTable is not registered (got %s)\n",
        cf_options.table_factory ? cf_options.table_factory->Name() : "null");
    return 1;
  }

  Options options(ROCKSDB_NAMESPACE::DBOptions(), cf_options);
  options.create_if_missing = true;
  s = ROCKSDB_NAMESPACE::DestroyDB(db_path, options);
  if (!s.ok()) {
    return Fail("removing an old DB", s);
  }
  std::unique_ptr<DB> db;
#if ROCKSDB_MAJOR >= 11
  s = DB::Open(options, db_path, &db);
#else  // before 11.0, DB::Open hands out a raw pointer
  {
    DB* raw = nullptr;
    s = DB::Open(options, db_path, &raw);
    db.reset(raw);
  }
#endif
  if (!s.ok()) {
    return Fail("opening the DB", s);
  }

  constexpr int kKeys = 1000;
  ROCKSDB_NAMESPACE::WriteOptions write_options;
  for (int i = 0; i < kKeys; ++i) {
    s = db->Put(write_options, "key" + std::to_string(i),
                "value" + std::to_string(i));
    if (!s.ok()) {
      return Fail("Put", s);
    }
  }
  // The flush writes the memtable into a CuckooHashTable SST file.
  s = db->Flush(ROCKSDB_NAMESPACE::FlushOptions());
  if (!s.ok()) {
    return Fail("Flush", s);
  }

  int found = 0;
  for (int i = 0; i < kKeys; ++i) {
    std::string value;
    s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), "key" + std::to_string(i),
                &value);
    if (s.ok() && value == "value" + std::to_string(i)) {
      ++found;
    } else if (!s.ok() && !s.IsNotFound()) {
      return Fail("Get", s);
    }
  }
  std::string missing;
  s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), "no-such-key", &missing);
  const bool miss_ok = s.IsNotFound();

  // Evidence that the flush went through our builder: its files carry
  // user-collected properties named rocksdb.cuckoo.*.
  ROCKSDB_NAMESPACE::TablePropertiesCollection tables;
  s = db->GetPropertiesOfAllTables(&tables);
  if (!s.ok()) {
    return Fail("GetPropertiesOfAllTables", s);
  }
  int cuckoo_files = 0;
  for (const auto& file : tables) {
    for (const auto& prop : file.second->user_collected_properties) {
      if (prop.first.rfind("rocksdb.cuckoo.", 0) == 0) {
        ++cuckoo_files;
        break;
      }
    }
  }
  const std::string db_factory = db->GetOptions().table_factory->Name();

  printf("table factory: %s\n", db_factory.c_str());
  printf("table options:\n%s",
         cf_options.table_factory->GetPrintableOptions().c_str());
  printf("SST files: %zu, with rocksdb.cuckoo.* properties: %d\n",
         tables.size(), cuckoo_files);
  printf("read back %d of %d keys; missing key %s\n", found, kKeys,
         miss_ok ? "not found (ok)" : "FOUND (wrong)");

  s = db->Close();
  if (!s.ok()) {
    return Fail("Close", s);
  }
  const bool ok = found == kKeys && miss_ok &&
                  db_factory == "CuckooHashTable" && !tables.empty() &&
                  cuckoo_files == static_cast<int>(tables.size());
  printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
