// Statistics-update throughput: the striped_hash memtable's counters
// (StripedCounters, striped per last-level cache or per CPU) against one
// shared std::atomic per counter, the way most code counts.
//
// Each operation updates the counters one memtable insert updates (entries,
// bytes, probes, new keys); every thread runs the same number of operations
// and the result is total operations per second. Threads are pinned
// round-robin to the CPUs this process may use (--pin).
//
//   build/db_bench_ext/stats_update_bench --threads=1,2,4,8,16
//
// prints, per thread count, the median of --repeats runs for each mode (with
// min and max) and the ratio of each striped mode to the shared atomics; at
// 16 threads, whether the default mode (auto) meets its target of 10x the
// shared atomics. More threads than allowed CPUs are marked oversubscribed:
// such a row measures the scheduler's time slices, not the counters.
#include <gflags/gflags.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db_bench_ext/ratio_target.h"
#include "util/cpu_topology.h"
#include "util/striped_counters.h"

DEFINE_string(threads, "1,2,4,8,16", "comma-separated thread counts");
DEFINE_uint64(ops_per_thread, 2000000, "operations per thread and run");
DEFINE_int32(repeats, 3, "runs per thread count and mode (median reported)");
DEFINE_bool(pin, true, "pin thread i to the i-th allowed CPU (round-robin)");

namespace rocksdb_cuckoo {
namespace {

// The default configuration's target, at 16 threads.
constexpr int kTargetThreads = 16;
const RatioTarget kDefaultModeTarget{RatioTarget::kAtLeast, 10};

// The counters one insert into the striped_hash memtable updates.
constexpr size_t kCounters = 4;

// The baseline: one shared atomic per counter, declared side by side.
struct SharedCounters {
  std::atomic<uint64_t> counters[kCounters] = {};
  void Update(uint64_t i) {
    counters[0].fetch_add(1, std::memory_order_relaxed);
    counters[1].fetch_add(100 + (i & 15), std::memory_order_relaxed);
    counters[2].fetch_add(1 + (i & 1), std::memory_order_relaxed);
    if ((i & 3) == 0) counters[3].fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t Sum(size_t c) const {
    return counters[c].load(std::memory_order_relaxed);
  }
};

struct Striped {
  explicit Striped(StripeMode mode) : counters(kCounters, mode) {}
  void Update(uint64_t i) {
    const StripedCounters::Stripe stripe = counters.Local();
    stripe.Add(0, 1);
    stripe.Add(1, 100 + (i & 15));
    stripe.Add(2, 1 + (i & 1));
    if ((i & 3) == 0) stripe.Add(3, 1);
  }
  uint64_t Sum(size_t c) const { return counters.Sum(c); }
  StripedCounters counters;
};

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// Runs `threads` threads doing FLAGS_ops_per_thread updates; returns total
// operations per second. Exits if a count went missing.
template <class Counters>
double Run(Counters* counters, int threads, const std::vector<int>& cpus) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      if (FLAGS_pin) Pin(cpus[t % cpus.size()]);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      for (uint64_t i = 0; i < FLAGS_ops_per_thread; ++i) counters->Update(i);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const uint64_t expected = FLAGS_ops_per_thread * threads;
  if (counters->Sum(0) != expected) {
    fprintf(stderr, "lost updates: %llu of %llu\n",
            static_cast<unsigned long long>(counters->Sum(0)),
            static_cast<unsigned long long>(expected));
    exit(1);
  }
  return static_cast<double>(expected) / seconds;
}

struct Summary {
  double median;
  double min;
  double max;
};

Summary Summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  const double median =
      n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return {median, samples.front(), samples.back()};
}

std::vector<int> ParseThreads(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const int n = atoi(item.c_str());
    if (n <= 0) {
      fprintf(stderr, "bad --threads entry '%s'\n", item.c_str());
      exit(1);
    }
    out.push_back(n);
  }
  return out;
}

int Main() {
  const std::vector<int> cpus = AllowedCpus();
  const CpuTopology& topology = CpuTopology::System();
  size_t llc_stripes = 0;
  size_t core_stripes = 0;
  topology.StripeMap(StripeMode::kLlc, &llc_stripes);
  topology.StripeMap(StripeMode::kCore, &core_stripes);
  const char* auto_is =
      topology.Resolve(StripeMode::kAuto) == StripeMode::kLlc ? "llc" : "core";
  printf(
      "stats_update_bench: %zu allowed CPUs, %zu last-level caches in "
      "sysfs; stripes: llc=%zu core=%zu; auto (the default) is %s here; "
      "%llu ops/thread, %d repeats, pin=%d\n",
      cpus.size(), topology.num_llcs(), llc_stripes, core_stripes, auto_is,
      static_cast<unsigned long long>(FLAGS_ops_per_thread), FLAGS_repeats,
      FLAGS_pin);
  printf("%-8s %-7s %14s %14s %14s %10s\n", "threads", "mode", "median Mops/s",
         "min Mops/s", "max Mops/s", "vs shared");
  for (int threads : ParseThreads(FLAGS_threads)) {
    std::vector<double> shared;
    std::vector<double> llc;
    std::vector<double> core;
    std::vector<double> automatic;
    // Modes take turns within each repeat so they share the machine's noise.
    for (int r = 0; r < FLAGS_repeats; ++r) {
      {
        auto counters = std::make_unique<SharedCounters>();
        shared.push_back(Run(counters.get(), threads, cpus));
      }
      {
        Striped counters(StripeMode::kLlc);
        llc.push_back(Run(&counters, threads, cpus));
      }
      {
        Striped counters(StripeMode::kCore);
        core.push_back(Run(&counters, threads, cpus));
      }
      {
        Striped counters(StripeMode::kAuto);
        automatic.push_back(Run(&counters, threads, cpus));
      }
    }
    const Summary base = Summarize(shared);
    const bool oversubscribed = threads > static_cast<int>(cpus.size());
    auto print = [&](const char* mode, const std::vector<double>& samples,
                     bool judged) {
      const Summary s = Summarize(samples);
      std::string note;
      if (judged) {
        note = "  " + kDefaultModeTarget.Verdict(s.median / base.median,
                                                 PairedRatios(samples, shared));
      }
      if (oversubscribed) note += "  (oversubscribed)";
      printf("%-8d %-7s %14.2f %14.2f %14.2f %9.2fx%s\n", threads, mode,
             s.median / 1e6, s.min / 1e6, s.max / 1e6, s.median / base.median,
             note.c_str());
    };
    print("shared", shared, false);
    print("llc", llc, false);
    print("core", core, false);
    print("auto", automatic, threads == kTargetThreads);
    fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace rocksdb_cuckoo

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "striped vs shared-atomic statistics updates; see the file comment");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  return rocksdb_cuckoo::Main();
}
