// remote_compaction_bench: what handing compactions to worker processes buys
// the primary. Writers fill a DB with random keys as fast as they can for a
// fixed time, with small memtables and files so that compaction is heavy;
// the same run compacts locally, then remotely (SpoolCompactionService
// starting cuckoo_compaction_worker processes), the order alternating. The
// primary and its workers are pinned to different CPUs, as on two hosts.
//
//   remote_compaction_bench --worker=build/cuckoo_compaction_worker
//       --runs=3 --seconds=20 --primary_cpus=0 --worker_cpus=1
//
// Reported per mode (median [min-max]) and as remote/local ratios: write
// rate, the primary's CPU time per write (its own process: writers, flushes
// and, when local, compactions), the workers' CPU time, write p99 (RocksDB's
// db.write histogram) and stall time, compaction bytes read and written
// (a deployment moves these between the storage and the workers), remote
// jobs and their mean latency from scheduling to result.
#include <gflags/gflags.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "plugin/example/spool_compaction_service.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "tests/support/db_open.h"

DEFINE_string(worker, "", "The cuckoo_compaction_worker executable.");
DEFINE_int32(runs, 3, "Runs of each mode (median reported).");
DEFINE_int32(seconds, 20, "Write phase of one run.");
DEFINE_int32(writers, 1, "Threads writing as fast as they can.");
DEFINE_int32(value_size, 400, "Value bytes.");
DEFINE_int64(key_space, 2000000, "Random keys are drawn from this many.");
DEFINE_int64(write_buffer_size, 2 << 20, "Memtable size.");
DEFINE_int32(max_background_jobs, 2, "Flushes and compactions at once.");
DEFINE_string(primary_cpus, "0", "CPUs of this process (list, e.g. 0,1).");
DEFINE_string(worker_cpus, "1", "CPUs of the workers ('' leaves them free).");
DEFINE_string(db_dir, "/tmp/remote_compaction_bench", "Scratch folder.");

namespace {

using namespace ROCKSDB_NAMESPACE;

std::vector<int> CpuList(const std::string& list) {
  std::vector<int> cpus;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) cpus.push_back(std::stoi(item));
  }
  return cpus;
}

void PinThisProcess(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    fprintf(stderr, "cannot pin to %s\n", FLAGS_primary_cpus.c_str());
    exit(1);
  }
}

double CpuSeconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The worker behind taskset, so it runs on the worker CPUs only.
std::string PinnedWorker(const std::string& dir) {
  if (FLAGS_worker_cpus.empty()) return FLAGS_worker;
  const std::string path = dir + "/pinned_worker.sh";
  FILE* f = fopen(path.c_str(), "w");
  fprintf(f, "#!/bin/sh\nexec taskset -c %s %s \"$@\"\n",
          FLAGS_worker_cpus.c_str(), FLAGS_worker.c_str());
  fclose(f);
  chmod(path.c_str(), 0755);
  return path;
}

using Sample = std::map<std::string, double>;

Sample RunOnce(bool remote, int run) {
  const std::string root = FLAGS_db_dir + "/run";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  ConfigOptions config;
  config.ignore_unknown_options = false;
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = FLAGS_write_buffer_size;
  options.target_file_size_base = FLAGS_write_buffer_size;
  options.max_bytes_for_level_base = 4 * FLAGS_write_buffer_size;
  options.max_background_jobs = FLAGS_max_background_jobs;
  options.statistics = CreateDBStatistics();
  if (!TableFactory::CreateFromString(config, "id=CuckooHashTable",
                                      &options.table_factory)
           .ok() ||
      !MemTableRepFactory::CreateFromString(config, "striped_hash",
                                            &options.memtable_factory)
           .ok()) {
    fprintf(stderr, "the plugin is not registered\n");
    exit(1);
  }
  std::shared_ptr<rocksdb_cuckoo::SpoolCompactionService> service;
  if (remote) {
    rocksdb_cuckoo::SpoolCompactionServiceOptions service_options;
    service_options.worker_path = PinnedWorker(FLAGS_db_dir);
    service_options.spool_dir = root + "/spool";
    service = std::make_shared<rocksdb_cuckoo::SpoolCompactionService>(
        service_options);
    options.compaction_service = service;
  }
  DB* raw = nullptr;
  Status s = rocksdb_cuckoo::OpenDB(options, root + "/db", &raw);
  if (!s.ok()) {
    fprintf(stderr, "open: %s\n", s.ToString().c_str());
    exit(1);
  }
  std::unique_ptr<DB> db(raw);

  const double self_before = CpuSeconds(RUSAGE_SELF);
  const double children_before = CpuSeconds(RUSAGE_CHILDREN);
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::seconds(FLAGS_seconds);
  std::atomic<uint64_t> writes{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < FLAGS_writers; t++) {
    writers.emplace_back([&, t] {
      std::mt19937_64 rng(1000 * run + t);
      const std::string value(FLAGS_value_size, 'v');
      char key[32];
      uint64_t mine = 0;
      while (std::chrono::steady_clock::now() < end) {
        for (int i = 0; i < 64; i++) {
          snprintf(key, sizeof(key), "key%016llu",
                   static_cast<unsigned long long>(rng() % FLAGS_key_space));
          Status w = db->Put(WriteOptions(), key, value);
          if (!w.ok()) {
            fprintf(stderr, "put: %s\n", w.ToString().c_str());
            exit(1);
          }
        }
        mine += 64;
      }
      writes += mine;
    });
  }
  for (std::thread& t : writers) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const double self_cpu = CpuSeconds(RUSAGE_SELF) - self_before;
  const double children_cpu = CpuSeconds(RUSAGE_CHILDREN) - children_before;

  Statistics& stats = *options.statistics;
  HistogramData write_latency;
  stats.histogramData(DB_WRITE, &write_latency);
  Sample sample;
  sample["writes/s (k)"] = writes / seconds / 1e3;
  sample["primary CPU per write (us)"] = self_cpu * 1e6 / writes;
  sample["worker CPU per write (us)"] = children_cpu * 1e6 / writes;
  sample["write p99 (us)"] = write_latency.percentile99;
  sample["stall (ms)"] = stats.getTickerCount(STALL_MICROS) / 1e3;
  sample["compaction read (MB)"] =
      (stats.getTickerCount(COMPACT_READ_BYTES) +
       stats.getTickerCount(REMOTE_COMPACT_READ_BYTES)) /
      1e6;
  sample["compaction written (MB)"] =
      (stats.getTickerCount(COMPACT_WRITE_BYTES) +
       stats.getTickerCount(REMOTE_COMPACT_WRITE_BYTES)) /
      1e6;
  if (service) {
    const auto counts = service->counts();
    sample["remote jobs"] = counts.completed_remotely;
    sample["fallbacks to local"] = counts.fell_back_to_local;
    sample["job latency, mean (ms)"] =
        counts.completed_remotely == 0
            ? 0
            : counts.remote_job_micros / 1e3 / counts.completed_remotely;
  }
  db.reset();
  std::filesystem::remove_all(root);
  return sample;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_worker.empty()) {
    fprintf(stderr, "--worker=<cuckoo_compaction_worker> is required\n");
    return 2;
  }
  std::filesystem::create_directories(FLAGS_db_dir);
  PinThisProcess(CpuList(FLAGS_primary_cpus));
  std::map<std::string, std::vector<double>> local, remote;
  std::vector<std::string> order;
  for (int run = 0; run < FLAGS_runs; run++) {
    for (int i = 0; i < 2; i++) {
      const bool is_remote = (run + i) % 2 == 1;
      const Sample sample = RunOnce(is_remote, run);
      fprintf(stderr, "run %d %-6s", run + 1, is_remote ? "remote" : "local");
      for (const auto& [name, value] : sample) {
        (is_remote ? remote : local)[name].push_back(value);
        if (std::find(order.begin(), order.end(), name) == order.end()) {
          order.push_back(name);
        }
        fprintf(stderr, " %s=%.2f", name.c_str(), value);
      }
      fprintf(stderr, "\n");
    }
  }
  printf(
      "remote_compaction_bench: %d runs x %d s, %d writer(s), %d-byte "
      "values, primary on CPUs %s, workers on %s\n",
      FLAGS_runs, FLAGS_seconds, FLAGS_writers, FLAGS_value_size,
      FLAGS_primary_cpus.c_str(),
      FLAGS_worker_cpus.empty() ? "any" : FLAGS_worker_cpus.c_str());
  printf("%-28s %26s %26s %14s\n", "metric", "local", "remote", "remote/local");
  auto cell = [](const std::vector<double>& v) {
    if (v.empty()) return std::string("-");
    char text[64];
    snprintf(text, sizeof(text), "%.2f [%.2f-%.2f]", Median(v),
             *std::min_element(v.begin(), v.end()),
             *std::max_element(v.begin(), v.end()));
    return std::string(text);
  };
  for (const std::string& name : order) {
    const double l = Median(local[name]), r = Median(remote[name]);
    char ratio[32] = "-";
    if (!local[name].empty() && l != 0) {
      snprintf(ratio, sizeof(ratio), "%.2fx", r / l);
    }
    printf("%-28s %26s %26s %14s\n", name.c_str(), cell(local[name]).c_str(),
           cell(remote[name]).c_str(), ratio);
  }
  return 0;
}
