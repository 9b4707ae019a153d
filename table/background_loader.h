// One thread per process that loads table files read into memory (not
// mapped) in the background, one at a time, in the order they asked.
//
// A loaded table reads a chunk of its file the first time a lookup reaches
// it, so lookups soon after opening wait for those reads. A table that
// lookups have started to use is handed to this thread, which reads the
// rest of it in file order while the lookups go on. The thread starts on
// first use and is never joined: it sleeps while there is nothing to load.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace rocksdb_cuckoo {

class BackgroundLoader {
 public:
  // One table's request: `load` runs on the loader's thread and returns
  // early once `stop` reads true.
  struct Job {
    std::function<void(const std::atomic<bool>& stop)> load;
    std::atomic<bool> stop{false};
  };

  // The process's loader (never destroyed: tables may close during static
  // destruction).
  static BackgroundLoader& Instance();

  // Queues `job` (or drops it, if no thread can be started); it must stay
  // alive until Remove(job) returns.
  // REQUIRES: mu_ not held.
  void Add(Job* job);
  // Takes `job` out of the queue, or, if it is running, stops it and waits
  // for it to return; from then on the loader does not touch it. Not from
  // inside `job`'s own load, which would wait for itself.
  // REQUIRES: mu_ not held.
  void Remove(Job* job);

 private:
  BackgroundLoader() = default;
  // The loader thread's loop: runs each job with mu_ released.
  // REQUIRES: mu_ not held.
  void Main();

  std::mutex mu_;
  std::condition_variable work_;     // the queue got a job
  std::condition_variable stopped_;  // the running job returned
  // Guarded by mu_ (Main, the only writer of running_, also reads it
  // without mu_ while the job runs).
  std::deque<Job*> queue_;
  Job* running_ = nullptr;
  bool started_ = false;
};

}  // namespace rocksdb_cuckoo
