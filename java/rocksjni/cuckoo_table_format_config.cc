#include "java/rocksjni/cuckoo_table_format_config.h"

#include "table/cuckoo_hash_table.h"

namespace rocksdb_cuckoo_jni {

jobject NewCuckooHashTableConfig(
    JNIEnv* env, const ROCKSDB_NAMESPACE::TableFactory& factory) {
  const auto* options =
      factory.GetOptions<rocksdb_cuckoo::CuckooHashTableOptions>();
  jclass cls = env->FindClass("org/rocksdb/CuckooHashTableConfig");
  if (options == nullptr || cls == nullptr) return nullptr;
  // CuckooHashTableConfig(double, boolean, int, boolean, byte, boolean)
  jmethodID init = env->GetMethodID(cls, "<init>", "(DZIZBZ)V");
  if (init == nullptr) return nullptr;
  return env->NewObject(cls, init, options->hash_table_ratio,
                        static_cast<jboolean>(options->identity_as_first_hash),
                        static_cast<jint>(options->max_search_depth),
                        static_cast<jboolean>(options->slot_ordered),
                        static_cast<jbyte>(options->checksum),
                        static_cast<jboolean>(options->load_in_background));
}

}  // namespace rocksdb_cuckoo_jni
