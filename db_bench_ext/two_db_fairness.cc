// two_db_fairness: two DBs share one Env; DB A floods it with flushes and
// compactions while DB B writes at a steady rate. Measured: how long B's
// sealed memtables wait for their flush to start (p50/p99/max), B's write
// stall time and A's write rate, with RocksDB's default Env and with
// AsyncExecutorEnv (fair turns, and FIFO for reference), in one process.
//
//   two_db_fairness --runs=3 --seconds=20 --low_threads=2
//
// The shared pools are capped below what A's options would use
// (--low_threads, set after both DBs are open, as a process hosting many DBs
// caps its background threads), and with --high_threads=0 flushes share the
// LOW pool with compactions (RocksDB schedules flushes on LOW when the HIGH
// pool is empty). That is where a FIFO queue makes B's flush wait behind
// A's whole backlog of compactions.
//
// The flush wait is taken from RocksDB's own callbacks (OnMemTableSealed to
// OnFlushBegin), so it means the same for every Env; the job wait (from
// Env::Schedule to the job's start, all of B's jobs) is the Env's own part
// of it, measured by a thin EnvWrapper around each Env. Runs alternate the
// Envs' order; the table gives medians, min-max, and ratios to the default.
#include <gflags/gflags.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "tests/support/db_open.h"
#include "util/async_executor_env.h"
#include "util/executor/latency_histogram.h"
#include "util/scheduling_env_wrapper.h"

DEFINE_int32(runs, 3, "Runs per Env (median reported).");
DEFINE_int32(seconds, 20, "Length of one run.");
DEFINE_int32(low_threads, 2, "LOW pool threads of the shared Env.");
DEFINE_int32(high_threads, 0,
             "HIGH pool threads of the shared Env; 0 puts flushes on LOW.");
DEFINE_int32(flood_bg_jobs, 8, "max_background_jobs of the flooding DB A.");
DEFINE_int32(flood_writers, 1, "Threads writing to DB A as fast as they can.");
DEFINE_int32(victim_rate, 8000, "Puts per second to DB B.");
DEFINE_int32(value_size, 512, "Value bytes of both DBs.");
DEFINE_int64(flood_buffer, 1 << 20, "write_buffer_size of DB A.");
DEFINE_int64(victim_buffer, 256 << 10, "write_buffer_size of DB B.");
DEFINE_bool(with_fifo, true,
            "Also run AsyncExecutorEnv with fair_share=false (plain FIFO).");
DEFINE_string(db_dir, "/tmp/two_db_fairness", "Parent folder of the DBs.");
DEFINE_bool(print_stats, true, "Print the executor's statistics per run.");

namespace {

using rocksdb_cuckoo::AsyncExecutorEnv;
using rocksdb_cuckoo::AsyncExecutorEnvOptions;
using rocksdb_cuckoo::FormatNanos;
using rocksdb_cuckoo::LatencyDistribution;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::EventListener;
using ROCKSDB_NAMESPACE::FlushJobInfo;
using ROCKSDB_NAMESPACE::MemTableInfo;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::Statistics;
using ROCKSDB_NAMESPACE::WriteOptions;
using Clock = std::chrono::steady_clock;

int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

// Time from a memtable's sealing to the start of the flush that takes it.
class FlushWaitListener : public EventListener {
 public:
  const char* Name() const override { return "FlushWaitListener"; }
  void OnMemTableSealed(const MemTableInfo&) override {
    std::lock_guard<std::mutex> lock(mu_);
    sealed_.push_back(MonotonicNanos());
  }
  void OnFlushBegin(DB*, const FlushJobInfo&) override {
    const int64_t now = MonotonicNanos();
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t sealed : sealed_) {
      waits_.Add(static_cast<uint64_t>(std::max<int64_t>(0, now - sealed)));
    }
    sealed_.clear();
  }
  LatencyDistribution waits() {
    std::lock_guard<std::mutex> lock(mu_);
    return waits_;
  }

 private:
  std::mutex mu_;
  std::vector<int64_t> sealed_;
  LatencyDistribution waits_;
};

// Sits between the DBs and the Env under test and times, for the jobs of
// one DB, the span from Schedule to the job's start: the Env's own share of
// the flush wait, without the RocksDB work around it.
// Files and time are the target's, so the wrapper adds nothing to the DBs'
// writes but the timing.
class JobWaitEnv : public rocksdb_cuckoo::SchedulingEnvWrapper {
 public:
  explicit JobWaitEnv(Env* target) : SchedulingEnvWrapper(target) {}
  const char* Name() const override { return "JobWaitEnv"; }

  // Jobs tagged by this DB (DBImpl's address, or it plus a TaskType).
  void Watch(const void* db) { db_.store(reinterpret_cast<uintptr_t>(db)); }
  LatencyDistribution waits() {
    std::lock_guard<std::mutex> lock(mu_);
    return waits_;
  }

  void Schedule(void (*function)(void*), void* arg, Priority pri, void* tag,
                void (*unschedule)(void*)) override {
    const uintptr_t t = reinterpret_cast<uintptr_t>(tag);
    if (tag == nullptr || t - db_.load() >= 16) {
      target()->Schedule(function, arg, pri, tag, unschedule);
      return;
    }
    auto* job = new Job{this, function, arg, unschedule, MonotonicNanos()};
    target()->Schedule(&Job::Run, job, pri, tag, &Job::Unschedule);
  }

 private:
  struct Job {
    JobWaitEnv* env;
    void (*function)(void*);
    void* arg;
    void (*unschedule)(void*);
    int64_t scheduled;
    static void Run(void* p) {
      std::unique_ptr<Job> job(static_cast<Job*>(p));
      {
        std::lock_guard<std::mutex> lock(job->env->mu_);
        job->env->waits_.Add(static_cast<uint64_t>(
            std::max<int64_t>(0, MonotonicNanos() - job->scheduled)));
      }
      job->function(job->arg);
    }
    static void Unschedule(void* p) {
      std::unique_ptr<Job> job(static_cast<Job*>(p));
      if (job->unschedule != nullptr) job->unschedule(job->arg);
    }
  };

  std::atomic<uintptr_t> db_{0};
  std::mutex mu_;
  LatencyDistribution waits_;
};

Options BaseOptions(Env* env) {
  Options options;
  options.env = env;
  options.create_if_missing = true;
  options.compression = ROCKSDB_NAMESPACE::kNoCompression;
  options.max_write_buffer_number = 4;
  options.level0_file_num_compaction_trigger = 2;
  options.target_file_size_base = 1 << 20;
  options.max_bytes_for_level_base = 4 << 20;
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
  return options;
}

std::string RandomKey(std::mt19937_64* rnd) {
  char buf[17];
  snprintf(buf, sizeof(buf), "%016llx",
           static_cast<unsigned long long>((*rnd)()));
  return buf;
}

struct RunResult {
  LatencyDistribution flush_wait;  // DB B, sealed memtable to flush start
  LatencyDistribution job_wait;    // DB B, Schedule to job start
  uint64_t victim_stall_micros = 0;
  double flood_puts_per_second = 0;
  std::string stats;  // the executor's, when it is ours
};

RunResult RunOnce(Env* tested, const std::string& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  JobWaitEnv timing(tested);
  Env* env = &timing;
  Options flood = BaseOptions(env);
  flood.write_buffer_size = static_cast<size_t>(FLAGS_flood_buffer);
  flood.max_background_jobs = FLAGS_flood_bg_jobs;
  Options victim = BaseOptions(env);
  victim.write_buffer_size = static_cast<size_t>(FLAGS_victim_buffer);
  auto listener = std::make_shared<FlushWaitListener>();
  victim.listeners.push_back(listener);

  DB* raw = nullptr;
  ROCKSDB_NAMESPACE::Status s =
      rocksdb_cuckoo::OpenDB(flood, dir + "/flood", &raw);
  if (!s.ok()) {
    fprintf(stderr, "open: %s\n", s.ToString().c_str());
    exit(1);
  }
  std::unique_ptr<DB> db_a(raw);
  s = rocksdb_cuckoo::OpenDB(victim, dir + "/victim", &raw);
  if (!s.ok()) {
    fprintf(stderr, "open: %s\n", s.ToString().c_str());
    exit(1);
  }
  std::unique_ptr<DB> db_b(raw);
  // DB::Open hands out the DBImpl, whose address tags its jobs.
  timing.Watch(db_b.get());
  // Cap the shared pools now: DB::Open only ever raises them.
  env->SetBackgroundThreads(FLAGS_low_threads, Env::LOW);
  env->SetBackgroundThreads(FLAGS_high_threads, Env::HIGH);

  WriteOptions write_options;
  write_options.disableWAL = true;
  const std::string value(static_cast<size_t>(FLAGS_value_size), 'v');
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> flood_puts{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < FLAGS_flood_writers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rnd(w + 1);
      while (!stop.load(std::memory_order_relaxed)) {
        if (db_a->Put(write_options, RandomKey(&rnd), value).ok()) {
          flood_puts.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }
  threads.emplace_back([&] {
    std::mt19937_64 rnd(1000);
    const auto period =
        std::chrono::nanoseconds(1000000000LL / std::max(1, FLAGS_victim_rate));
    auto next = Clock::now();
    while (!stop.load(std::memory_order_relaxed)) {
      db_b->Put(write_options, RandomKey(&rnd), value).PermitUncheckedError();
      next += period;
      std::this_thread::sleep_until(next);
    }
  });
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(FLAGS_seconds));
  stop.store(true);
  for (auto& t : threads) t.join();
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();

  RunResult result;
  result.flush_wait = listener->waits();
  result.victim_stall_micros =
      victim.statistics->getTickerCount(ROCKSDB_NAMESPACE::STALL_MICROS);
  result.flood_puts_per_second =
      static_cast<double>(flood_puts.load()) / seconds;
  db_a->Close().PermitUncheckedError();
  db_b->Close().PermitUncheckedError();
  db_a.reset();
  db_b.reset();
  result.job_wait = timing.waits();
  if (auto* ours = tested->CheckedCast<AsyncExecutorEnv>()) {
    result.stats = ours->StatsString();
  }
  std::filesystem::remove_all(dir);
  return result;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Contender {
  Contender(std::string n, std::function<std::unique_ptr<Env>()> m)
      : name(std::move(n)), make(std::move(m)) {}
  std::string name;
  std::function<std::unique_ptr<Env>()> make;  // null: Env::Default()
  std::vector<double> p50, p99, max, job_p99, stall, flood;
};

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Two DBs on one Env, one flooding it: the other's flush wait; see the "
      "comment at the top of two_db_fairness.cc");
  gflags::ParseCommandLineFlags(&argc, &argv, true);

  std::vector<Contender> contenders;
  contenders.emplace_back("Env::Default", nullptr);
  contenders.emplace_back("AsyncExecutorEnv", [] {
    return std::unique_ptr<Env>(new AsyncExecutorEnv());
  });
  if (FLAGS_with_fifo) {
    contenders.emplace_back("AsyncExecutorEnv FIFO", [] {
      AsyncExecutorEnvOptions options;
      options.fair_share = false;
      return std::unique_ptr<Env>(
          new AsyncExecutorEnv(Env::Default(), options));
    });
  }
  printf(
      "two_db_fairness: %u cores, %d runs x %ds, LOW=%d HIGH=%d threads, "
      "A: %d writer(s) max_background_jobs=%d, B: %d puts/s\n",
      std::thread::hardware_concurrency(), FLAGS_runs, FLAGS_seconds,
      FLAGS_low_threads, FLAGS_high_threads, FLAGS_flood_writers,
      FLAGS_flood_bg_jobs, FLAGS_victim_rate);
  for (int run = 0; run < FLAGS_runs; ++run) {
    for (size_t i = 0; i < contenders.size(); ++i) {
      // Rotate who goes first.
      Contender& c = contenders[(i + run) % contenders.size()];
      std::unique_ptr<Env> owned = c.make ? c.make() : nullptr;
      Env* env = owned ? owned.get() : Env::Default();
      const RunResult r = RunOnce(env, FLAGS_db_dir);
      c.p50.push_back(static_cast<double>(r.flush_wait.Percentile(0.5)));
      c.p99.push_back(static_cast<double>(r.flush_wait.Percentile(0.99)));
      c.max.push_back(static_cast<double>(r.flush_wait.max()));
      c.job_p99.push_back(static_cast<double>(r.job_wait.Percentile(0.99)));
      c.stall.push_back(static_cast<double>(r.victim_stall_micros));
      c.flood.push_back(r.flood_puts_per_second);
      printf(
          "run %d %-22s B flush wait %s; B job wait %s; B stall %.1f ms; A "
          "%.0f puts/s\n",
          run + 1, c.name.c_str(), r.flush_wait.ToString().c_str(),
          r.job_wait.ToString().c_str(), r.victim_stall_micros / 1e3,
          r.flood_puts_per_second);
      if (FLAGS_print_stats && !r.stats.empty()) printf("%s", r.stats.c_str());
      fflush(stdout);
    }
  }
  auto range = [](const std::vector<double>& v, bool nanos) {
    auto f = [nanos](double x) {
      char buf[32];
      if (nanos) return FormatNanos(static_cast<uint64_t>(x));
      snprintf(buf, sizeof(buf), "%.0f", x);
      return std::string(buf);
    };
    return f(Median(v)) + " [" + f(*std::min_element(v.begin(), v.end())) +
           ".." + f(*std::max_element(v.begin(), v.end())) + "]";
  };
  const Contender& base = contenders[0];
  printf("\nmedian [min..max] over %d runs; ratio = median / Env::Default's\n",
         FLAGS_runs);
  for (const Contender& c : contenders) {
    std::vector<double> stall_ms;
    for (double us : c.stall) stall_ms.push_back(us / 1e3);
    printf("%s\n", c.name.c_str());
    printf("  B flush wait p99 %s (%.2fx)  p50 %s  max %s\n",
           range(c.p99, true).c_str(), Median(c.p99) / Median(base.p99),
           range(c.p50, true).c_str(), range(c.max, true).c_str());
    printf("  B job wait p99   %s (%.2fx)\n", range(c.job_p99, true).c_str(),
           Median(c.job_p99) / Median(base.job_p99));
    printf("  B stall ms %s  A puts/s %s (%.2fx)\n",
           range(stall_ms, false).c_str(), range(c.flood, false).c_str(),
           Median(c.flood) / Median(base.flood));
  }
  return 0;
}
