// JNI of org.rocksdb.CuckooHashTableConfig.
#include <jni.h>

#include "include/org_rocksdb_CuckooHashTableConfig.h"
#include "java/rocksjni/configure_from_string.h"
#include "java/rocksjni/cuckoo_table_format_config.h"
#include "table/cuckoo_hash_table_factory.h"

using rocksdb_cuckoo::CuckooHashTableFactory;
using rocksdb_cuckoo::kCuckooHashTableName;
using rocksdb_cuckoo_jni::NewConfigured;

jlong Java_org_rocksdb_CuckooHashTableConfig_newTableFactory(JNIEnv* env,
                                                             jclass,
                                                             jstring joptions) {
  return rocksdb_cuckoo_jni::NewConfiguredHandle<
      ROCKSDB_NAMESPACE::TableFactory, CuckooHashTableFactory>(
      env, joptions, kCuckooHashTableName);
}

jobject Java_org_rocksdb_CuckooHashTableConfig_parse(JNIEnv* env, jclass,
                                                     jstring joptions) {
  std::unique_ptr<CuckooHashTableFactory> factory(
      NewConfigured<CuckooHashTableFactory>(env, joptions,
                                            kCuckooHashTableName));
  if (!factory) return nullptr;
  return rocksdb_cuckoo_jni::NewCuckooHashTableConfig(env, *factory);
}
