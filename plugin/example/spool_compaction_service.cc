#include "plugin/example/spool_compaction_service.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <utility>

#include "rocksdb/env.h"

extern char** environ;

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::CompactionServiceJobStatus;

namespace {

#if ROCKSDB_MAJOR >= 10
constexpr CompactionServiceJobStatus kCanceled =
    CompactionServiceJobStatus::kAborted;
#elif CUCKOO_HAS_CANCEL_AWAITING_JOBS
// RocksDB 9.11 has no kAborted: a canceled job fails, as its own tests
// answer.
constexpr CompactionServiceJobStatus kCanceled =
    CompactionServiceJobStatus::kFailure;
#endif

}  // namespace

SpoolCompactionService::SpoolCompactionService(
    SpoolCompactionServiceOptions options)
    : options_(std::move(options)) {
  std::filesystem::create_directories(options_.spool_dir);
}

SpoolCompactionService::~SpoolCompactionService() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, job] : jobs_) {
    if (job.worker > 0) {
      kill(job.worker, SIGKILL);
      waitpid(job.worker, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(job.dir, ignored);
  }
}

SpoolCompactionService::Counts SpoolCompactionService::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

std::string SpoolCompactionService::Begin(const JobInfo& info,
                                          const std::string& input) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id =
      "job-" + std::to_string(getpid()) + "-" + std::to_string(++next_job_);
  Job& job = jobs_[id];
  job.dir = options_.spool_dir + "/" + id;
  job.db_name = info.db_name;
  job.scheduled = std::chrono::steady_clock::now();
  counts_.scheduled++;
  std::filesystem::create_directories(job.dir);
  // An input that cannot be spooled leaves no worker; Wait() then falls back.
  if (ROCKSDB_NAMESPACE::WriteStringToFile(ROCKSDB_NAMESPACE::Env::Default(),
                                           input, job.dir + "/input")
          .ok()) {
    StartWorker(&job);
  }
  return id;
}

void SpoolCompactionService::StartWorker(Job* job) {
  const std::string output_dir = job->dir + "/output";
  std::error_code ignored;
  std::filesystem::remove_all(output_dir, ignored);
  std::filesystem::remove(job->dir + "/result", ignored);
  std::vector<std::string> args = {options_.worker_path, "--db=" + job->db_name,
                                   "--input=" + job->dir + "/input",
                                   "--output_dir=" + output_dir,
                                   "--result=" + job->dir + "/result"};
  args.insert(args.end(), options_.worker_flags.begin(),
              options_.worker_flags.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // The worker's stdout and stderr go to the job's log, each attempt
  // appended to the last.
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  const std::string log = job->dir + "/worker.log";
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, options_.worker_path.c_str(), &files,
                                nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  job->attempts++;
  job->worker = error == 0 ? pid : -1;
}

bool SpoolCompactionService::AwaitWorker(const Job& job, pid_t worker,
                                         std::string* result) {
  if (worker <= 0) return false;
  int status = 0;
  while (waitpid(worker, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
         ROCKSDB_NAMESPACE::ReadFileToString(ROCKSDB_NAMESPACE::Env::Default(),
                                             job.dir + "/result", result)
             .ok();
}

CompactionServiceJobStatus SpoolCompactionService::Finish(
    const std::string& job_id, std::string* result) {
  for (;;) {
    Job job;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = jobs_.find(job_id);
      if (it == jobs_.end()) return CompactionServiceJobStatus::kFailure;
      job = it->second;
    }
    const bool done = AwaitWorker(job, job.worker, result);
    std::lock_guard<std::mutex> lock(mu_);
    Job& current = jobs_.at(job_id);
    current.worker = -1;
#if CUCKOO_HAS_CANCEL_AWAITING_JOBS
    if (current.canceled) {
      counts_.aborted++;
      return kCanceled;
    }
#endif
    if (done) {
      counts_.completed_remotely++;
      counts_.remote_job_micros +=
          std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - current.scheduled)
              .count();
      return CompactionServiceJobStatus::kSuccess;
    }
    counts_.worker_failures++;
    if (current.attempts >= options_.attempts) {
      counts_.fell_back_to_local++;
      result->clear();
      return CompactionServiceJobStatus::kUseLocal;
    }
    StartWorker(&current);
  }
}

void SpoolCompactionService::RemoveJob(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  std::error_code ignored;
  std::filesystem::remove_all(it->second.dir, ignored);
  jobs_.erase(it);
}

#if ROCKSDB_MAJOR >= 9
ROCKSDB_NAMESPACE::CompactionServiceScheduleResponse
SpoolCompactionService::Schedule(const JobInfo& info,
                                 const std::string& input) {
  return ROCKSDB_NAMESPACE::CompactionServiceScheduleResponse(
      Begin(info, input), CompactionServiceJobStatus::kSuccess);
}

CompactionServiceJobStatus SpoolCompactionService::Wait(
    const std::string& job_id, std::string* result) {
  const CompactionServiceJobStatus status = Finish(job_id, result);
  if (status != CompactionServiceJobStatus::kSuccess) RemoveJob(job_id);
  return status;
}
#else
// RocksDB 7.8 names a job by its info in both calls; a subcompaction's
// job_id is unique within the session.
CompactionServiceJobStatus SpoolCompactionService::StartV2(
    const JobInfo& info, const std::string& input) {
  const std::string key =
      info.db_session_id + "-" + std::to_string(info.job_id);
  const std::string id = Begin(info, input);
  std::lock_guard<std::mutex> lock(mu_);
  v2_jobs_[key] = id;
  return CompactionServiceJobStatus::kSuccess;
}

CompactionServiceJobStatus SpoolCompactionService::WaitForCompleteV2(
    const JobInfo& info, std::string* result) {
  const std::string key =
      info.db_session_id + "-" + std::to_string(info.job_id);
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = v2_jobs_.find(key);
    if (it == v2_jobs_.end()) return CompactionServiceJobStatus::kFailure;
    id = it->second;
    v2_jobs_.erase(it);
  }
  const CompactionServiceJobStatus status = Finish(id, result);
  if (status != CompactionServiceJobStatus::kSuccess) RemoveJob(id);
  return status;
}
#endif

#if CUCKOO_HAS_CANCEL_AWAITING_JOBS
void SpoolCompactionService::CancelAwaitingJobs() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, job] : jobs_) {
    job.canceled = true;
    if (job.worker > 0) kill(job.worker, SIGKILL);
  }
}
#endif

#if ROCKSDB_MAJOR >= 9
void SpoolCompactionService::OnInstallation(const std::string& job_id,
                                            JobStatus /*status*/) {
  RemoveJob(job_id);
}
#endif

}  // namespace rocksdb_cuckoo
