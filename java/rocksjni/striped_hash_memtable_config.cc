// JNI of org.rocksdb.StripedHashMemTableConfig.
#include <jni.h>

#include "include/org_rocksdb_StripedHashMemTableConfig.h"
#include "java/rocksjni/configure_from_string.h"
#include "memtable/striped_hash_memtable.h"

using rocksdb_cuckoo::kStripedHashMemTableName;
using rocksdb_cuckoo::StripedHashMemTableFactory;
using rocksdb_cuckoo_jni::NewConfigured;

jlong Java_org_rocksdb_StripedHashMemTableConfig_newMemTableFactory(
    JNIEnv* env, jclass, jstring joptions) {
  return rocksdb_cuckoo_jni::NewConfiguredHandle<
      ROCKSDB_NAMESPACE::MemTableRepFactory, StripedHashMemTableFactory>(
      env, joptions, kStripedHashMemTableName);
}

jobject Java_org_rocksdb_StripedHashMemTableConfig_parse(JNIEnv* env, jclass,
                                                         jstring joptions) {
  std::unique_ptr<StripedHashMemTableFactory> factory(
      NewConfigured<StripedHashMemTableFactory>(env, joptions,
                                                kStripedHashMemTableName));
  if (!factory) return nullptr;
  std::string stripe_mode;
  const ROCKSDB_NAMESPACE::Status s = factory->GetOption(
      rocksdb_cuckoo_jni::StrictConfigOptions(), "stripe_mode", &stripe_mode);
  if (!s.ok()) {
    ROCKSDB_NAMESPACE::IllegalArgumentExceptionJni::ThrowNew(env, s);
    return nullptr;
  }
  jstring jstripe_mode = env->NewStringUTF(stripe_mode.c_str());
  jclass cls = env->FindClass("org/rocksdb/StripedHashMemTableConfig");
  if (jstripe_mode == nullptr || cls == nullptr) return nullptr;
  // StripedHashMemTableConfig(long, double, String, long)
  jmethodID init = env->GetMethodID(cls, "<init>", "(JDLjava/lang/String;J)V");
  if (init == nullptr) return nullptr;
  const auto& options = factory->options();
  return env->NewObject(cls, init, static_cast<jlong>(options.bucket_count),
                        options.max_load_factor, jstripe_mode,
                        static_cast<jlong>(options.entry_slab_size));
}
