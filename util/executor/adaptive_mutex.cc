#include "util/executor/adaptive_mutex.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rocksdb_cuckoo {

namespace {

// The calls below fail only on a programming error (an invalid or
// unlocked mutex), which the pool must not continue past.
void Check(int rc, const char* what) {
  if (rc != 0) {
    fprintf(stderr, "AdaptiveMutex: %s: %s\n", what, strerror(rc));
    abort();
  }
}

}  // namespace

AdaptiveMutex::AdaptiveMutex() {
  pthread_mutexattr_t attr;
  Check(pthread_mutexattr_init(&attr), "pthread_mutexattr_init");
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
  // glibc: spin (bounded, with backoff) before sleeping.
  Check(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP),
        "pthread_mutexattr_settype");
#endif
  Check(pthread_mutex_init(&mu_, &attr), "pthread_mutex_init");
  pthread_mutexattr_destroy(&attr);
}

AdaptiveMutex::~AdaptiveMutex() { pthread_mutex_destroy(&mu_); }

void AdaptiveMutex::lock() { Check(pthread_mutex_lock(&mu_), "lock"); }

bool AdaptiveMutex::try_lock() { return pthread_mutex_trylock(&mu_) == 0; }

void AdaptiveMutex::unlock() { Check(pthread_mutex_unlock(&mu_), "unlock"); }

}  // namespace rocksdb_cuckoo
