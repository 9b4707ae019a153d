#include "table/background_loader.h"

#include <pthread.h>

#include <algorithm>
#include <system_error>
#include <thread>

namespace rocksdb_cuckoo {

BackgroundLoader& BackgroundLoader::Instance() {
  static BackgroundLoader* loader = new BackgroundLoader;
  return *loader;
}

void BackgroundLoader::Add(Job* job) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_) {
    // Add runs inside a lookup, which must not throw: if the system has no
    // thread to give, the job is dropped and lookups load what they reach.
    try {
      std::thread(&BackgroundLoader::Main, this).detach();
    } catch (const std::system_error&) {
      return;
    }
    started_ = true;
  }
  queue_.push_back(job);
  work_.notify_one();
}

void BackgroundLoader::Remove(Job* job) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto queued = std::find(queue_.begin(), queue_.end(), job);
  if (queued != queue_.end()) {
    queue_.erase(queued);
    return;
  }
  if (running_ != job) return;
  job->stop.store(true, std::memory_order_relaxed);
  stopped_.wait(lock, [&] { return running_ != job; });
}

void BackgroundLoader::Main() {
  pthread_setname_np(pthread_self(), "cuckoo-load");
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_.wait(lock, [this] { return !queue_.empty(); });
    running_ = queue_.front();
    queue_.pop_front();
    lock.unlock();
    running_->load(running_->stop);
    lock.lock();
    running_ = nullptr;
    stopped_.notify_all();
  }
}

}  // namespace rocksdb_cuckoo
