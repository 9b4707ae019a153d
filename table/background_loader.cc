#include "table/background_loader.h"

#include <pthread.h>

#include <algorithm>
#include <thread>

namespace rocksdb_cuckoo {

BackgroundLoader& BackgroundLoader::Instance() {
  static BackgroundLoader* loader = new BackgroundLoader;
  return *loader;
}

void BackgroundLoader::Add(Job* job) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(job);
  if (!started_) {
    started_ = true;
    std::thread(&BackgroundLoader::Main, this).detach();
  }
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
