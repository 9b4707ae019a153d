// JNI of org.rocksdb.AsyncExecutorEnv.
#include "util/async_executor_env.h"

#include <jni.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "include/org_rocksdb_AsyncExecutorEnv.h"
#include "java/rocksjni/configure_from_string.h"

namespace {

using ROCKSDB_NAMESPACE::FileLock;
using ROCKSDB_NAMESPACE::Status;

// The Env behind a Java AsyncExecutorEnv. Java may close it while DBs still
// use it (Kafka Streams closes a store's config setter before the store's
// DB), and a DB keeps a raw Env pointer. So the Env counts what holds it:
// Java's handle, every column family a DB registered its data paths for
// (RegisterDbPaths, also read-only DBs), and every DB LOCK file taken
// through it. The last release ends it. A DB's LOCK is released last of
// what a closing DB does through its Env, and a read-only DB's last column
// family last of what it does, so no DB touches the Env after that.
class JavaAsyncExecutorEnv : public rocksdb_cuckoo::AsyncExecutorEnv {
 public:
  Status RegisterDbPaths(const std::vector<std::string>& paths) override {
    const Status s = AsyncExecutorEnv::RegisterDbPaths(paths);
    if (s.ok()) Acquire();
    return s;
  }
  // RocksDB unregisters only paths it registered successfully.
  Status UnregisterDbPaths(const std::vector<std::string>& paths) override {
    const Status s = AsyncExecutorEnv::UnregisterDbPaths(paths);
    Release();
    return s;
  }
  Status LockFile(const std::string& fname, FileLock** lock) override {
    const Status s = AsyncExecutorEnv::LockFile(fname, lock);
    if (s.ok()) Acquire();
    return s;
  }
  Status UnlockFile(FileLock* lock) override {
    const Status s = AsyncExecutorEnv::UnlockFile(lock);
    Release();
    return s;
  }

  // What holds the Env besides Java's handle.
  int64_t Users() const { return holders_.load() - 1; }

  // Java's handle is closed.
  void ReleaseJavaHandle() { Release(); }

 private:
  void Acquire() { holders_.fetch_add(1); }
  void Release() {
    if (holders_.fetch_sub(1) == 1) delete this;
  }

  std::atomic<int64_t> holders_{1};  // Java's handle
};

JavaAsyncExecutorEnv* FromHandle(jlong handle) {
  return static_cast<JavaAsyncExecutorEnv*>(
      reinterpret_cast<ROCKSDB_NAMESPACE::Env*>(handle));
}

}  // namespace

jlong Java_org_rocksdb_AsyncExecutorEnv_newEnv(JNIEnv* env, jclass,
                                               jstring joptions) {
  return rocksdb_cuckoo_jni::NewConfiguredHandle<ROCKSDB_NAMESPACE::Env,
                                                 JavaAsyncExecutorEnv>(
      env, joptions, rocksdb_cuckoo::AsyncExecutorEnv::kClassName());
}

jobject Java_org_rocksdb_AsyncExecutorEnv_config(JNIEnv* env, jclass,
                                                 jlong handle) {
  const auto* options =
      FromHandle(handle)->GetOptions<rocksdb_cuckoo::AsyncExecutorEnvOptions>();
  jclass cls = env->FindClass("org/rocksdb/AsyncExecutorEnvConfig");
  if (options == nullptr || cls == nullptr) return nullptr;
  jstring stats_file = env->NewStringUTF(options->stats_file.c_str());
  if (stats_file == nullptr) return nullptr;
  // AsyncExecutorEnvConfig(int, int, int, int, boolean, boolean, String)
  jmethodID init =
      env->GetMethodID(cls, "<init>", "(IIIIZZLjava/lang/String;)V");
  if (init == nullptr) return nullptr;
  return env->NewObject(
      cls, init, options->high_pri_threads, options->low_pri_threads,
      options->bottom_pri_threads, options->user_pri_threads,
      static_cast<jboolean>(options->fair_share),
      static_cast<jboolean>(options->starvation_helper), stats_file);
}

jstring Java_org_rocksdb_AsyncExecutorEnv_statsString(JNIEnv* env, jclass,
                                                      jlong handle) {
  return env->NewStringUTF(FromHandle(handle)->StatsString().c_str());
}

jlong Java_org_rocksdb_AsyncExecutorEnv_users(JNIEnv*, jclass, jlong handle) {
  return static_cast<jlong>(FromHandle(handle)->Users());
}

void Java_org_rocksdb_AsyncExecutorEnv_release(JNIEnv*, jclass, jlong handle) {
  FromHandle(handle)->ReleaseJavaHandle();
}
