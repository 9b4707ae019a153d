// JNI of org.rocksdb.CuckooOptionsUtil. Loading an OPTIONS file is RocksJava's
// own (its OptionsUtil natives, called here directly); what differs is
// describing a column family's table factory to Java, which RocksJava does
// for BlockBasedTable only.
#include <jni.h>

#include <cstring>
#include <string>

#include "include/org_rocksdb_CuckooOptionsUtil.h"
#include "include/org_rocksdb_OptionsUtil.h"
#include "java/rocksjni/configure_from_string.h"
#include "java/rocksjni/cuckoo_table_format_config.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/backup_engine.h"
#include "table/cuckoo_hash_table.h"

void Java_org_rocksdb_CuckooOptionsUtil_loadLatestOptions(
    JNIEnv* env, jclass cls, jlong cfg_handle, jstring jdb_path,
    jlong db_options_handle, jobject cf_descs) {
  Java_org_rocksdb_OptionsUtil_loadLatestOptions(env, cls, cfg_handle, jdb_path,
                                                 db_options_handle, cf_descs);
}

void Java_org_rocksdb_CuckooOptionsUtil_loadOptionsFromFile(
    JNIEnv* env, jclass cls, jlong cfg_handle, jstring joptions_file,
    jlong db_options_handle, jobject cf_descs) {
  Java_org_rocksdb_OptionsUtil_loadOptionsFromFile(
      env, cls, cfg_handle, joptions_file, db_options_handle, cf_descs);
}

namespace {

// RocksDB's Get*OptionsFromString for `Options`.
template <typename Options>
using ParseOptions =
    ROCKSDB_NAMESPACE::Status (*)(const ROCKSDB_NAMESPACE::ConfigOptions&,
                                  const Options&, const std::string&, Options*);

// Parses `joptions` over default `Options` with `parse` into the object at
// `result_handle`, or throws RocksDBException with RocksDB's message.
template <typename Options>
void ParseInto(JNIEnv* env, jlong cfg_handle, jstring joptions,
               jlong result_handle, ParseOptions<Options> parse) {
  std::string options;
  if (!rocksdb_cuckoo_jni::CopyString(env, joptions, &options)) return;
  const auto& config =
      *reinterpret_cast<ROCKSDB_NAMESPACE::ConfigOptions*>(cfg_handle);
  Options parsed;
  const ROCKSDB_NAMESPACE::Status s =
      parse(config, Options(), options, &parsed);
  if (!s.ok()) {
    ROCKSDB_NAMESPACE::RocksDBExceptionJni::ThrowNew(env, s);
    return;
  }
  *reinterpret_cast<Options*>(result_handle) = parsed;
}

}  // namespace

void Java_org_rocksdb_CuckooOptionsUtil_columnFamilyOptionsFromString(
    JNIEnv* env, jclass, jlong cfg_handle, jstring joptions,
    jlong result_handle) {
  ParseInto<ROCKSDB_NAMESPACE::ColumnFamilyOptions>(
      env, cfg_handle, joptions, result_handle,
      ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString);
}

void Java_org_rocksdb_CuckooOptionsUtil_dbOptionsFromString(
    JNIEnv* env, jclass, jlong cfg_handle, jstring joptions,
    jlong result_handle) {
  ParseInto<ROCKSDB_NAMESPACE::DBOptions>(
      env, cfg_handle, joptions, result_handle,
      ROCKSDB_NAMESPACE::GetDBOptionsFromString);
}

jobject Java_org_rocksdb_CuckooOptionsUtil_readTableFormatConfig(
    JNIEnv* env, jclass cls, jlong cf_options_handle) {
  const auto* cf_options =
      reinterpret_cast<ROCKSDB_NAMESPACE::ColumnFamilyOptions*>(
          cf_options_handle);
  const auto* factory = cf_options->table_factory.get();
  if (factory == nullptr) return nullptr;
  if (std::strcmp(factory->Name(), rocksdb_cuckoo::kCuckooHashTableName) == 0) {
    return rocksdb_cuckoo_jni::NewCuckooHashTableConfig(env, *factory);
  }
  if (std::strcmp(factory->Name(),
                  ROCKSDB_NAMESPACE::TableFactory::kBlockBasedTableName()) ==
      0) {
    return Java_org_rocksdb_OptionsUtil_readTableFormatConfig(
        env, cls, cf_options_handle);
  }
  return nullptr;  // no Java class describes this factory
}

void Java_org_rocksdb_CuckooOptionsUtil_setLegacyBackupFileNaming(
    JNIEnv*, jclass, jlong backup_engine_options_handle) {
  reinterpret_cast<ROCKSDB_NAMESPACE::BackupEngineOptions*>(
      backup_engine_options_handle)
      ->share_files_with_checksum_naming =
      ROCKSDB_NAMESPACE::BackupEngineOptions::kLegacyCrc32cAndFileSize;
}
