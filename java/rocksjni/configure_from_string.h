// How the JNI classes of rocksdb-cuckoo make a configured object from a
// Java options string: RocksDB parses and checks it exactly as it would an
// options string or OPTIONS file, and a refusal becomes a Java
// IllegalArgumentException carrying RocksDB's message.
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "rocksdb/configurable.h"
#include "rocksdb/convenience.h"
#include "rocksdb/status.h"
#include "rocksjni/portal.h"

namespace rocksdb_cuckoo_jni {

// Strict parsing: an unknown or unsupported option is an error.
inline ROCKSDB_NAMESPACE::ConfigOptions StrictConfigOptions() {
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  config.invoke_prepare_options = true;
  return config;
}

// Configures `object`, registered as `name`, from `options`. An `id` in the
// string must name the object ("id=CuckooHashTable;hash_table_ratio=0.8").
inline ROCKSDB_NAMESPACE::Status ConfigureFromString(
    ROCKSDB_NAMESPACE::Configurable* object, const char* name,
    const std::string& options) {
  std::unordered_map<std::string, std::string> map;
  ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::StringToMap(options, &map);
  if (!s.ok()) return s;
  const auto id = map.find("id");
  if (id != map.end()) {
    if (id->second != name) {
      return ROCKSDB_NAMESPACE::Status::InvalidArgument(
          std::string(name) + ": options name another object: id=", id->second);
    }
    map.erase(id);
  }
  return object->ConfigureFromMap(StrictConfigOptions(), map);
}

// The Java string `jstr`; false with a Java exception pending on failure.
inline bool CopyString(JNIEnv* env, jstring jstr, std::string* out) {
  jboolean has_exception = JNI_FALSE;
  *out = ROCKSDB_NAMESPACE::JniUtil::copyStdString(env, jstr, &has_exception);
  return has_exception == JNI_FALSE;
}

// Makes a `T` from the Java options string `joptions`, or throws
// IllegalArgumentException and returns null.
template <typename T>
T* NewConfigured(JNIEnv* env, jstring joptions, const char* name) {
  std::string options;
  if (!CopyString(env, joptions, &options)) return nullptr;
  auto* object = new T();
  const ROCKSDB_NAMESPACE::Status s =
      ConfigureFromString(object, name, options);
  if (!s.ok()) {
    delete object;
    ROCKSDB_NAMESPACE::IllegalArgumentExceptionJni::ThrowNew(env, s);
    return nullptr;
  }
  return object;
}

// NewConfigured as the `Base*` RocksJava takes ownership of (the handle
// Options.setTableFactory, setMemTableFactory and setEnv read); 0 after a
// Java exception.
template <typename Base, typename T>
jlong NewConfiguredHandle(JNIEnv* env, jstring joptions, const char* name) {
  Base* object = NewConfigured<T>(env, joptions, name);
  return static_cast<jlong>(reinterpret_cast<uintptr_t>(object));
}

}  // namespace rocksdb_cuckoo_jni
