// executor_bench: AsyncExecutorEnv's executor against RocksDB's default Env
// thread pool and a mutex+condvar timer, in one process, side by side.
//
//   executor_bench --producers=1,2 --workers=1,2,4 --runs=3
//
//   throughput  empty jobs through Env::Schedule, from --producers threads
//               onto a LOW pool of --workers threads: jobs/s from the first
//               Schedule to the last job's end.
//   latency     one producer schedules --latency_burst jobs back to back
//               every --latency_gap_us; each job records the time from
//               Schedule to its start: p50, p99.
//   addcancel   --producers threads each add a task due in an hour and
//               cancel it at once (the timer pattern of timeouts that
//               almost never fire): pairs/s. Baselines: a timer of one
//               mutex over an ordered map plus a condition variable, which
//               either tells its thread about every change ("notify all") or
//               only about a new earliest deadline ("notify earliest").
//   snooze      --producers threads move pending tasks' wake times (to
//               an hour from now); baseline: reschedule in the same timers.
//
// Every configuration runs --runs times, alternating the contenders within
// each run so they share the machine's noise. Printed: the median and the
// min-max of each, and the ratio of medians (ours / theirs for rates,
// theirs-relative for latencies: ours / default, lower is better), and for
// the rows that have a target (below, kThroughputTargets and the rest)
// whether the median ratio meets it and in how many runs a single run's
// ratio did.
#include <gflags/gflags.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "db_bench_ext/ratio_target.h"
#include "rocksdb/env.h"
#include "util/async_executor_env.h"
#include "util/executor/latency_histogram.h"
#include "util/executor/task_executor.h"

DEFINE_string(benchmarks, "throughput,latency,addcancel,snooze",
              "Comma-separated: throughput, latency, addcancel, snooze.");
DEFINE_string(producers, "1,2", "Producer thread counts to run.");
DEFINE_string(workers, "1,2,4", "Worker thread counts of the pool to run.");
DEFINE_int32(runs, 3, "Repetitions of every measurement (median reported).");
DEFINE_int64(jobs, 1000000, "Empty jobs per throughput run.");
DEFINE_int64(latency_jobs, 20000, "Jobs per latency run.");
DEFINE_int64(latency_gap_us, 20,
             "Pause between two latency bursts, so workers go idle between.");
DEFINE_int32(latency_burst, 1,
             "Jobs scheduled back to back at the start of every latency gap.");
DEFINE_int64(ops, 400000, "Add+cancel pairs (or snoozes) per run.");
DEFINE_int32(snooze_tasks, 1024, "Pending tasks the snooze benchmark moves.");
DEFINE_bool(print_stats, true,
            "Print the executor's LOW pool statistics after the throughput "
            "and the latency runs.");

namespace {

using rocksdb_cuckoo::AsyncExecutorEnv;
using rocksdb_cuckoo::LatencyDistribution;
using rocksdb_cuckoo::RatioTarget;
using rocksdb_cuckoo::SteadyNanos;
using rocksdb_cuckoo::TaskExecutor;
using rocksdb_cuckoo::TaskHandle;
using rocksdb_cuckoo::TaskOptions;
using ROCKSDB_NAMESPACE::Env;
using std::chrono::hours;

std::vector<int> ParseList(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

bool Wanted(const std::string& name) {
  for (const std::string& b : [] {
         std::vector<std::string> v;
         std::stringstream in(FLAGS_benchmarks);
         std::string item;
         while (std::getline(in, item, ',')) v.push_back(item);
         return v;
       }()) {
    if (b == name) return true;
  }
  return false;
}

// The rows' targets: empty jobs from 2 producers on 2 workers at 4x the
// default pool's rate or more; schedule-to-start latency never above the
// default pool's, under every load, with half of its p99 as the goal;
// add+cancel and snooze from one producer at 4x the mutex+condvar timers'
// rate or more.
const std::vector<RatioTarget> kThroughputTargets = {
    {RatioTarget::kAtLeast, 4}};
const std::vector<RatioTarget> kLatencyP50Targets = {{RatioTarget::kAtMost, 1}};
const std::vector<RatioTarget> kLatencyP99Targets = {
    {RatioTarget::kAtMost, 1}, {RatioTarget::kAtMost, 0.5, "goal"}};
const std::vector<RatioTarget> kTimerTargets = {{RatioTarget::kAtLeast, 4}};

// Median and spread of one contender's samples.
struct Samples {
  std::vector<double> values;
  double Median() const {
    std::vector<double> v = values;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  double Min() const { return *std::min_element(values.begin(), values.end()); }
  double Max() const { return *std::max_element(values.begin(), values.end()); }
};

std::string Rate(double per_second) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.3gM/s", per_second / 1e6);
  return buf;
}

// The ratio is ours / theirs of the medians; `targets` are judged on it and
// on each run's own ratio (the two contenders' samples are paired by run).
void PrintRow(const std::string& what, const Samples& ours,
              const Samples& theirs, const std::string& their_name, bool rate,
              const std::vector<RatioTarget>& targets = {}) {
  auto fmt = [rate](double v) {
    return rate ? Rate(v)
                : rocksdb_cuckoo::FormatNanos(static_cast<uint64_t>(v));
  };
  const double ratio = ours.Median() / theirs.Median();
  const std::vector<double> run_ratios =
      rocksdb_cuckoo::PairedRatios(ours.values, theirs.values);
  std::string verdicts;
  for (const RatioTarget& target : targets) {
    verdicts +=
        (verdicts.empty() ? "  " : "; ") + target.Verdict(ratio, run_ratios);
  }
  printf("%-34s ours %9s [%s..%s]  %-16s %9s [%s..%s]  ratio %.2fx%s\n",
         what.c_str(), fmt(ours.Median()).c_str(), fmt(ours.Min()).c_str(),
         fmt(ours.Max()).c_str(), their_name.c_str(),
         fmt(theirs.Median()).c_str(), fmt(theirs.Min()).c_str(),
         fmt(theirs.Max()).c_str(), ratio, verdicts.c_str());
  fflush(stdout);
}

// Starts `n` threads running body(i) together; returns the seconds from
// the common start until every one has returned and until done() returns.
double TimeThreads(
    int n, const std::function<void(int)>& body,
    const std::function<void()>& done = [] {}) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(i);
    });
  }
  while (ready.load() < n) std::this_thread::yield();
  const int64_t start = SteadyNanos();
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  done();
  return static_cast<double>(SteadyNanos() - start) / 1e9;
}

// ---- throughput -----------------------------------------------------------

// Counts finished jobs without a shared cache line: each thread that runs
// jobs counts on a line of its own, and the waiter sums the lines now and
// then. One counter shared by every job would pass its line between the
// workers on each job, and the benchmark would measure that line's trips
// between cores (about as long as an empty job's whole trip through our
// executor) rather than the executor.
class Countdown {
 public:
  explicit Countdown(int64_t n) : total_(n) {}
  static void Job(void* arg) {
    auto* self = static_cast<Countdown*>(arg);
    // Release: the waiter's sum happens after the job's own writes.
    self->counts_[ThreadIndex() % kSlots].n.fetch_add(
        1, std::memory_order_release);
  }
  void Wait() {
    // Polled rather than signalled: a sleeping waiter costs the workers no
    // CPU, and 50 microseconds is noise against a run of many milliseconds.
    while (Done() < total_) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  static constexpr int kSlots = 256;  // threads beyond it share, still exact
  struct alignas(64) Slot {
    std::atomic<int64_t> n{0};
  };
  static int ThreadIndex() {
    static std::atomic<int> next{0};
    thread_local const int index = next.fetch_add(1);
    return index;
  }
  int64_t Done() const {
    int64_t sum = 0;
    for (const Slot& slot : counts_) {
      sum += slot.n.load(std::memory_order_acquire);
    }
    return sum;
  }

  const int64_t total_;
  Slot counts_[kSlots];
};

double ThroughputRun(Env* env, int producers, int workers) {
  env->SetBackgroundThreads(workers, Env::LOW);
  const int64_t per_producer = FLAGS_jobs / producers;
  Countdown countdown(per_producer * producers);
  const double seconds = TimeThreads(
      producers,
      [&](int) {
        for (int64_t i = 0; i < per_producer; ++i) {
          env->Schedule(&Countdown::Job, &countdown, Env::LOW);
        }
      },
      [&] { countdown.Wait(); });
  return static_cast<double>(per_producer * producers) / seconds;
}

// ---- latency --------------------------------------------------------------

struct Stamp {
  int64_t scheduled = 0;
  std::atomic<int64_t> started{0};
  Countdown* countdown = nullptr;
  static void Job(void* arg) {
    auto* stamp = static_cast<Stamp*>(arg);
    stamp->started.store(SteadyNanos(), std::memory_order_relaxed);
    Countdown::Job(stamp->countdown);
  }
};

// p50 and p99 of schedule-to-start over n jobs, in nanoseconds.
std::pair<double, double> LatencyRun(Env* env, int workers, int64_t n) {
  env->SetBackgroundThreads(workers, Env::LOW);
  std::vector<Stamp> stamps(n);
  Countdown countdown(n);
  for (int64_t i = 0; i < n; ++i) {
    if (i % FLAGS_latency_burst == 0) {
      const int64_t until = SteadyNanos() + FLAGS_latency_gap_us * 1000;
      while (SteadyNanos() < until) {
      }
    }
    stamps[i].countdown = &countdown;
    stamps[i].scheduled = SteadyNanos();
    env->Schedule(&Stamp::Job, &stamps[i], Env::LOW);
  }
  countdown.Wait();
  LatencyDistribution d;
  for (const Stamp& s : stamps) {
    d.Add(static_cast<uint64_t>(s.started.load() - s.scheduled));
  }
  return {static_cast<double>(d.Percentile(0.5)),
          static_cast<double>(d.Percentile(0.99))};
}

// ---- the mutex+condvar timer baseline -------------------------------------

// The conventional timer the executor is measured against: one mutex over a
// deadline-ordered map and an id index, and a condition variable on which
// its thread waits for the earliest deadline or a change.
class MutexCondvarTimer {
 public:
  explicit MutexCondvarTimer(bool notify_every_change)
      : notify_every_change_(notify_every_change),
        thread_([this] { ThreadMain(); }) {}
  ~MutexCondvarTimer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

  uint64_t Add(std::chrono::nanoseconds delay, std::function<void()> fn) {
    const int64_t deadline = SteadyNanos() + delay.count();
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t id = next_id_++;
    auto it = by_deadline_.emplace(deadline, id);
    tasks_.emplace(id, Task{it, std::move(fn)});
    Changed(it == by_deadline_.begin());
    return id;
  }

  bool Cancel(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return false;
    const bool was_first = it->second.position == by_deadline_.begin();
    by_deadline_.erase(it->second.position);
    tasks_.erase(it);
    Changed(was_first);
    return true;
  }

  bool Reschedule(uint64_t id, std::chrono::nanoseconds delay) {
    const int64_t deadline = SteadyNanos() + delay.count();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return false;
    by_deadline_.erase(it->second.position);
    it->second.position = by_deadline_.emplace(deadline, id);
    Changed(it->second.position == by_deadline_.begin());
    return true;
  }

 private:
  using ByDeadline = std::multimap<int64_t, uint64_t>;
  struct Task {
    ByDeadline::iterator position;
    std::function<void()> fn;
  };

  void Changed(bool earliest) {
    if (notify_every_change_ || earliest) cv_.notify_one();
  }

  void ThreadMain() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      if (by_deadline_.empty()) {
        cv_.wait(lock);
        continue;
      }
      const int64_t first = by_deadline_.begin()->first;
      if (first > SteadyNanos()) {
        cv_.wait_until(lock, std::chrono::steady_clock::time_point(
                                 std::chrono::nanoseconds(first)));
        continue;
      }
      const uint64_t id = by_deadline_.begin()->second;
      by_deadline_.erase(by_deadline_.begin());
      auto it = tasks_.find(id);
      std::function<void()> fn = std::move(it->second.fn);
      tasks_.erase(it);
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  const bool notify_every_change_;
  std::mutex mu_;
  std::condition_variable cv_;
  ByDeadline by_deadline_;
  std::unordered_map<uint64_t, Task> tasks_;
  uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

double AddCancelOurs(int producers) {
  TaskExecutor executor({"bench"});
  executor.SetThreads(0, 1);
  const int64_t per = FLAGS_ops / producers;
  TaskOptions options;
  options.delay = hours(1);
  const double seconds = TimeThreads(producers, [&](int) {
    for (int64_t i = 0; i < per; ++i) {
      TaskHandle h = executor.Add(
          0, [] {}, options);
      executor.Cancel(h);
    }
  });
  return static_cast<double>(per * producers) / seconds;
}

double AddCancelBaseline(int producers, bool notify_every_change) {
  MutexCondvarTimer timer(notify_every_change);
  const int64_t per = FLAGS_ops / producers;
  const double seconds = TimeThreads(producers, [&](int) {
    for (int64_t i = 0; i < per; ++i) {
      timer.Cancel(timer.Add(hours(1), [] {}));
    }
  });
  return static_cast<double>(per * producers) / seconds;
}

double SnoozeOurs(int producers) {
  TaskExecutor executor({"bench"});
  executor.SetThreads(0, 1);
  TaskOptions options;
  options.delay = hours(1);
  std::vector<TaskHandle> tasks;
  for (int i = 0; i < FLAGS_snooze_tasks; ++i) {
    tasks.push_back(executor.Add(
        0, [] {}, options));
  }
  const int64_t per = FLAGS_ops / producers;
  const double seconds = TimeThreads(producers, [&](int p) {
    std::minstd_rand rnd(p + 1);
    for (int64_t i = 0; i < per; ++i) {
      executor.Snooze(tasks[rnd() % tasks.size()], hours(1));
    }
  });
  for (const TaskHandle& h : tasks) executor.Cancel(h);
  return static_cast<double>(per * producers) / seconds;
}

double SnoozeBaseline(int producers, bool notify_every_change) {
  MutexCondvarTimer timer(notify_every_change);
  std::vector<uint64_t> ids;
  for (int i = 0; i < FLAGS_snooze_tasks; ++i) {
    ids.push_back(timer.Add(hours(1), [] {}));
  }
  const int64_t per = FLAGS_ops / producers;
  const double seconds = TimeThreads(producers, [&](int p) {
    std::minstd_rand rnd(p + 1);
    for (int64_t i = 0; i < per; ++i) {
      timer.Reschedule(ids[rnd() % ids.size()], hours(1));
    }
  });
  return static_cast<double>(per * producers) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "AsyncExecutorEnv's executor vs Env::Default() and a mutex+condvar "
      "timer; see the comment at the top of executor_bench.cc");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  const std::vector<int> producer_counts = ParseList(FLAGS_producers);
  const std::vector<int> worker_counts = ParseList(FLAGS_workers);
  Env* def = Env::Default();
  printf("executor_bench: %u cores, %d runs each; median [min..max]\n",
         std::thread::hardware_concurrency(), FLAGS_runs);

  // One of each for the whole run, as a process has one Env: threads are
  // started (and resized) before a measurement, never inside one.
  AsyncExecutorEnv ours_env;
  Env* ours = &ours_env;
  auto print_stats = [&](const char* after) {
    if (!FLAGS_print_stats) return;
    printf("  AsyncExecutorEnv LOW pool after %s: %s\n", after,
           ours_env.executor().GetPoolStats(Env::LOW).ToString().c_str());
  };

  if (Wanted("throughput")) {
    for (int producers : producer_counts) {
      for (int workers : worker_counts) {
        // Unmeasured: both reach their steady state (threads started,
        // allocations made) before the runs that count.
        ThroughputRun(ours, producers, workers);
        ThroughputRun(def, producers, workers);
        Samples ours_rate, their_rate;
        for (int run = 0; run < FLAGS_runs; ++run) {
          // Alternate who goes first.
          if (run % 2 == 0) {
            ours_rate.values.push_back(ThroughputRun(ours, producers, workers));
            their_rate.values.push_back(ThroughputRun(def, producers, workers));
          } else {
            their_rate.values.push_back(ThroughputRun(def, producers, workers));
            ours_rate.values.push_back(ThroughputRun(ours, producers, workers));
          }
        }
        PrintRow("throughput p=" + std::to_string(producers) +
                     " w=" + std::to_string(workers),
                 ours_rate, their_rate, "Env::Default", true,
                 producers == 2 && workers == 2 ? kThroughputTargets
                                                : std::vector<RatioTarget>{});
      }
    }
    print_stats("throughput");
  }

  if (Wanted("latency")) {
    for (int workers : worker_counts) {
      LatencyRun(ours, workers, FLAGS_latency_jobs / 10);  // warm-up
      LatencyRun(def, workers, FLAGS_latency_jobs / 10);
      Samples ours50, ours99, theirs50, theirs99;
      auto measure = [&](Env* e, Samples* p50, Samples* p99) {
        const auto [a, b] = LatencyRun(e, workers, FLAGS_latency_jobs);
        p50->values.push_back(a);
        p99->values.push_back(b);
      };
      for (int run = 0; run < FLAGS_runs; ++run) {
        if (run % 2 == 0) {
          measure(ours, &ours50, &ours99);
          measure(def, &theirs50, &theirs99);
        } else {
          measure(def, &theirs50, &theirs99);
          measure(ours, &ours50, &ours99);
        }
      }
      PrintRow("latency p50 w=" + std::to_string(workers), ours50, theirs50,
               "Env::Default", false, kLatencyP50Targets);
      PrintRow("latency p99 w=" + std::to_string(workers), ours99, theirs99,
               "Env::Default", false, kLatencyP99Targets);
    }
    print_stats("latency");
  }

  if (Wanted("addcancel")) {
    for (int producers : producer_counts) {
      Samples ours, every, earliest;
      for (int run = 0; run < FLAGS_runs; ++run) {
        ours.values.push_back(AddCancelOurs(producers));
        every.values.push_back(AddCancelBaseline(producers, true));
        earliest.values.push_back(AddCancelBaseline(producers, false));
      }
      const std::string what = "add+cancel p=" + std::to_string(producers);
      const std::vector<RatioTarget> targets =
          producers == 1 ? kTimerTargets : std::vector<RatioTarget>{};
      PrintRow(what, ours, every, "mutex+cv (all)", true, targets);
      PrintRow(what, ours, earliest, "mutex+cv (first)", true, targets);
    }
  }

  if (Wanted("snooze")) {
    for (int producers : producer_counts) {
      Samples ours, every, earliest;
      for (int run = 0; run < FLAGS_runs; ++run) {
        ours.values.push_back(SnoozeOurs(producers));
        every.values.push_back(SnoozeBaseline(producers, true));
        earliest.values.push_back(SnoozeBaseline(producers, false));
      }
      const std::string what = "snooze p=" + std::to_string(producers);
      const std::vector<RatioTarget> targets =
          producers == 1 ? kTimerTargets : std::vector<RatioTarget>{};
      PrintRow(what, ours, every, "mutex+cv (all)", true, targets);
      PrintRow(what, ours, earliest, "mutex+cv (first)", true, targets);
    }
  }
  return 0;
}
