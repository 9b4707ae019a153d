// SpoolCompactionService: the primary's side of remote compaction, as an
// example to adapt. Each job RocksDB hands it gets a directory under a spool
// directory holding the serialized input; a cuckoo_compaction_worker process
// reads it there, writes its outputs and result beside it, and Wait() returns
// that result. Here the workers are processes on this machine and the spool
// is a local directory; a deployment replaces StartWorker/AwaitWorker with
// its own transport (a queue, an RPC to a worker host) over shared storage.
//
// A worker that fails or dies is run again (`attempts` in all); after the
// last failure the job is handed back to the primary to compact locally
// (kUseLocal, which RocksDB notes in the DB's LOG), so a broken worker pool
// slows compaction down but never stops writes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "rocksdb/options.h"
#include "rocksdb/version.h"

// RocksDB 9.11 added CancelAwaitingJobs.
#define CUCKOO_HAS_CANCEL_AWAITING_JOBS \
  (ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 11))

namespace rocksdb_cuckoo {

struct SpoolCompactionServiceOptions {
  // The worker executable and flags it gets besides the job's own.
  std::string worker_path;
  std::vector<std::string> worker_flags;
  // One directory per job is made here and removed once the job is over.
  std::string spool_dir;
  // Worker runs per job before the job falls back to local compaction.
  int attempts = 2;
};

class SpoolCompactionService : public ROCKSDB_NAMESPACE::CompactionService {
 public:
  using JobInfo = ROCKSDB_NAMESPACE::CompactionServiceJobInfo;
  using JobStatus = ROCKSDB_NAMESPACE::CompactionServiceJobStatus;

  explicit SpoolCompactionService(SpoolCompactionServiceOptions options);
  ~SpoolCompactionService() override;

  static const char* kClassName() { return "SpoolCompactionService"; }
  const char* Name() const override { return kClassName(); }

#if ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::CompactionServiceScheduleResponse Schedule(
      const JobInfo& info, const std::string& input) override;
  JobStatus Wait(const std::string& job_id, std::string* result) override;
#else
  JobStatus StartV2(const JobInfo& info, const std::string& input) override;
  JobStatus WaitForCompleteV2(const JobInfo& info,
                              std::string* result) override;
#endif
#if CUCKOO_HAS_CANCEL_AWAITING_JOBS
  // Kills the workers of every job not yet returned; their Wait() answers
  // kAborted (kFailure on 9.11, which has no kAborted).
  void CancelAwaitingJobs() override;
#endif
#if ROCKSDB_MAJOR >= 9
  // The primary has taken the outputs: the job's directory goes. (RocksDB
  // 7.8 says nothing after Wait, so there the directories of jobs that
  // succeeded stay until the service is destroyed.)
  void OnInstallation(const std::string& job_id, JobStatus status) override;
#endif

  // What happened to the jobs so far, for monitoring and tests.
  struct Counts {
    int scheduled = 0;
    int completed_remotely = 0;
    int worker_failures = 0;
    int fell_back_to_local = 0;
    int aborted = 0;
    // Scheduling to result, summed over the jobs completed remotely.
    uint64_t remote_job_micros = 0;
  };
  Counts counts() const;

 private:
  struct Job {
    std::string dir;
    std::string db_name;
    pid_t worker = -1;
    int attempts = 0;
    bool canceled = false;
    std::chrono::steady_clock::time_point scheduled;
  };

  std::string Begin(const JobInfo& info, const std::string& input);
  JobStatus Finish(const std::string& job_id, std::string* result);
  // Starts a worker on the job's directory (job->worker stays -1 if it
  // could not start).
  void StartWorker(Job* job);
  // Waits for the job's worker; true if it exited 0 and left a result.
  bool AwaitWorker(const Job& job, pid_t worker, std::string* result);
  void RemoveJob(const std::string& job_id);

  const SpoolCompactionServiceOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, Job> jobs_;
  uint64_t next_job_ = 0;
  Counts counts_;
#if ROCKSDB_MAJOR < 9
  std::map<std::string, std::string> v2_jobs_;  // job info's key -> job id
#endif
};

}  // namespace rocksdb_cuckoo
