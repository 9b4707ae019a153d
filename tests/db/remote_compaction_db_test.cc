// Remote compaction: options.compaction_service hands each compaction to a
// service, whose worker runs it with DB::OpenAndCompact on the primary's files
// and writes the outputs to a directory of its own; the primary then installs
// them. The worker takes its table factory only from the options override, so
// a worker that is given ours must write CuckooHashTable files that read
// exactly as a local compaction's would. A failed remote job must lose
// nothing, kUseLocal must compact locally, and resuming an interrupted job
// (RocksDB 10.8+) must either work or fail with a clear status.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::Model;
using testing::TableFormat;

// The service interface: RocksDB 7.8 has StartV2/WaitForCompleteV2; 9.1
// added Schedule/Wait and 9.10 removed the old pair. Either pair comes down
// to Begin (take the job) and Finish (run it, hand back its result).
class CompactionServiceAdapter : public CompactionService {
 public:
#if ROCKSDB_MAJOR >= 9
  CompactionServiceScheduleResponse Schedule(
      const CompactionServiceJobInfo& info, const std::string& input) override {
    const std::string job = JobKey(info);
    return CompactionServiceScheduleResponse(job,
                                             Begin(job, info.db_name, input));
  }
  CompactionServiceJobStatus Wait(const std::string& job,
                                  std::string* result) override {
    return Finish(job, result);
  }
#else
  CompactionServiceJobStatus StartV2(const CompactionServiceJobInfo& info,
                                     const std::string& input) override {
    return Begin(JobKey(info), info.db_name, input);
  }
  CompactionServiceJobStatus WaitForCompleteV2(
      const CompactionServiceJobInfo& info, std::string* result) override {
    return Finish(JobKey(info), result);
  }
#endif

 protected:
  virtual CompactionServiceJobStatus Begin(const std::string& job,
                                           const std::string& db_name,
                                           const std::string& input) = 0;
  virtual CompactionServiceJobStatus Finish(const std::string& job,
                                            std::string* result) = 0;

 private:
  static std::string JobKey(const CompactionServiceJobInfo& info) {
    return info.db_session_id + "-" + std::to_string(info.job_id);
  }
};

// OpenAndCompactOptions::allow_resumption arrived in RocksDB 10.8; false
// where it cannot be set.
bool SetAllowResumption(OpenAndCompactOptions* options, bool allow) {
#if ROCKSDB_MAJOR > 10 || (ROCKSDB_MAJOR == 10 && ROCKSDB_MINOR >= 8)
  options->allow_resumption = allow;
  return true;
#else
  (void)options;
  (void)allow;
  return false;
#endif
}

// Runs each job in this process, as a remote worker would: OpenAndCompact on
// the primary's directory, outputs to a fresh directory per job.
class InProcessCompactionService : public CompactionServiceAdapter {
 public:
  enum class Answer { kRun, kFailFirstJob, kUseLocal };

  InProcessCompactionService(std::string output_root,
                             std::shared_ptr<TableFactory> table_factory,
                             std::shared_ptr<MergeOperator> merge_operator,
                             Answer answer)
      : output_root_(std::move(output_root)),
        table_factory_(std::move(table_factory)),
        merge_operator_(std::move(merge_operator)),
        answer_(answer) {}

  static const char* kClassName() { return "InProcessCompactionService"; }
  const char* Name() const override { return kClassName(); }

  void set_answer(Answer answer) { answer_ = answer; }
  int jobs_asked() const { return jobs_asked_; }
  int jobs_run() const { return jobs_run_; }
  int jobs_failed() const { return jobs_failed_; }

 protected:
  // What a worker is told: only pointer options travel here, so the table
  // factory and merge operator must be set (they are what the worker uses).
  CompactionServiceOptionsOverride Override() const {
    CompactionServiceOptionsOverride override_options;
    override_options.table_factory = table_factory_;
    override_options.merge_operator = merge_operator_;
    return override_options;
  }

  virtual Status RunJob(const std::string& db_name,
                        const std::string& output_dir, const std::string& input,
                        std::string* result) {
    return DB::OpenAndCompact(OpenAndCompactOptions(), db_name, output_dir,
                              input, result, Override());
  }

  CompactionServiceJobStatus Begin(const std::string& job,
                                   const std::string& db_name,
                                   const std::string& input) override {
    const int number = ++jobs_asked_;
    if (answer_ == Answer::kUseLocal)
      return CompactionServiceJobStatus::kUseLocal;
    std::lock_guard<std::mutex> lock(mu_);
    jobs_[job] = Job{db_name, input,
                     output_root_ + "/job" + std::to_string(number), number};
    return CompactionServiceJobStatus::kSuccess;
  }

  CompactionServiceJobStatus Finish(const std::string& job_key,
                                    std::string* result) override {
    Job job;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = jobs_.find(job_key);
      if (it == jobs_.end()) return CompactionServiceJobStatus::kFailure;
      job = it->second;
      jobs_.erase(it);
    }
    // A worker that died: no result at all.
    if (answer_ == Answer::kFailFirstJob && job.number == 1) {
      ++jobs_failed_;
      return CompactionServiceJobStatus::kFailure;
    }
    std::filesystem::create_directories(job.output_dir);
    const Status s = RunJob(job.db_name, job.output_dir, job.input, result);
    if (!s.ok()) {
      ++jobs_failed_;
      return CompactionServiceJobStatus::kFailure;
    }
    ++jobs_run_;
    return CompactionServiceJobStatus::kSuccess;
  }

 private:
  struct Job {
    std::string db_name;
    std::string input;
    std::string output_dir;
    int number = 0;
  };

  const std::string output_root_;
  const std::shared_ptr<TableFactory> table_factory_;
  const std::shared_ptr<MergeOperator> merge_operator_;
  std::atomic<Answer> answer_;
  std::atomic<int> jobs_asked_{0};
  std::atomic<int> jobs_run_{0};
  std::atomic<int> jobs_failed_{0};
  std::mutex mu_;
  std::map<std::string, Job> jobs_;
};

// Interrupts a worker once it has finished its first output file, so that
// there is saved progress to resume from.
class CancelAfterFirstOutput : public EventListener {
 public:
  explicit CancelAfterFirstOutput(std::atomic<bool>* canceled)
      : canceled_(canceled) {}
  const char* Name() const override { return "CancelAfterFirstOutput"; }
  void OnTableFileCreated(const TableFileCreationInfo& info) override {
    if (info.status.ok() && info.file_size > 0) canceled_->store(true);
  }

 private:
  std::atomic<bool>* canceled_;
};

// The first job runs in phases: interrupted with allow_resumption, then
// resumed; only if the resume fails, started afresh in a clean directory.
class ResumingCompactionService : public InProcessCompactionService {
 public:
  using InProcessCompactionService::InProcessCompactionService;

  bool resume_tried = false;
  Status interrupted;
  int progress_files = 0;
  int output_files_kept = 0;
  Status resumed;

 protected:
  Status RunJob(const std::string& db_name, const std::string& output_dir,
                const std::string& input, std::string* result) override {
    if (resume_tried) {
      return InProcessCompactionService::RunJob(db_name, output_dir, input,
                                                result);
    }
    resume_tried = true;
    std::atomic<bool> canceled{false};
    CompactionServiceOptionsOverride first_override = Override();
    first_override.listeners.push_back(
        std::make_shared<CancelAfterFirstOutput>(&canceled));
    OpenAndCompactOptions first;
    SetAllowResumption(&first, true);
    first.canceled = &canceled;
    std::string ignored;
    interrupted = DB::OpenAndCompact(first, db_name, output_dir, input,
                                     &ignored, first_override);
    for (const auto& entry : std::filesystem::directory_iterator(output_dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("COMPACTION_PROGRESS-", 0) == 0 &&
          name.find(".dbtmp") == std::string::npos) {
        progress_files++;
      }
      if (entry.path().extension() == ".sst") output_files_kept++;
    }

    OpenAndCompactOptions resume;
    SetAllowResumption(&resume, true);
    resumed = DB::OpenAndCompact(resume, db_name, output_dir, input, result,
                                 Override());
    if (resumed.ok()) return resumed;
    std::filesystem::remove_all(output_dir);
    std::filesystem::create_directories(output_dir);
    result->clear();
    return DB::OpenAndCompact(OpenAndCompactOptions(), db_name, output_dir,
                              input, result, Override());
  }
};

void RegisterOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The worker parses the primary's options, which name our memtable,
    // table factory and the merge operator.
    ObjectLibrary& library = *ObjectLibrary::Default();
    register_rocksdb_cuckoo(library, "");
    library.AddFactory<MergeOperator>(
        testing::CommaAppendOperator::kClassName(),
        [](const std::string& /*uri*/, std::unique_ptr<MergeOperator>* guard,
           std::string* /*errmsg*/) {
          guard->reset(new testing::CommaAppendOperator());
          return guard->get();
        });
  });
}

// Keys written with Put, Merge, Delete and DeleteRange, and keys that only
// see Put and SingleDelete (SingleDelete allows one Put before it).
constexpr int kKeys = 400;
constexpr int kSingleDeleteKeys = 60;
std::string SingleDeleteKey(int i) { return "sd" + testing::NumberedKey(i, 4); }

std::vector<std::string> AllKeys() {
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; i++) keys.push_back(testing::NumberedKey(i, 4));
  for (int i = 0; i < kSingleDeleteKeys; i++) {
    keys.push_back(SingleDeleteKey(i));
  }
  return keys;
}

// One round of writes, to every DB and to the model.
void WriteRound(const std::vector<DB*>& dbs, Model* model, int round) {
  for (int i = 0; i < kKeys; i++) {
    const std::string key = testing::NumberedKey(i, 4);
    switch ((i + round) % 5) {
      case 0:
      case 1: {
        const std::string value =
            "r" + std::to_string(round) + "-" + std::string(60 + i % 90, 'v');
        for (DB* db : dbs) EXPECT_OK(db->Put(WriteOptions(), key, value));
        (*model)[key] = value;
        break;
      }
      case 2: {
        const std::string operand = "m" + std::to_string(round);
        for (DB* db : dbs) EXPECT_OK(db->Merge(WriteOptions(), key, operand));
        auto it = model->find(key);
        if (it == model->end()) {
          (*model)[key] = operand;
        } else {
          it->second += "," + operand;
        }
        break;
      }
      case 3:
        for (DB* db : dbs) EXPECT_OK(db->Delete(WriteOptions(), key));
        model->erase(key);
        break;
      default:
        break;
    }
  }
  for (int i = 0; i < kSingleDeleteKeys; i++) {
    const std::string key = SingleDeleteKey(i);
    if (round % 2 == 0) {
      const std::string value = "s" + std::to_string(round);
      for (DB* db : dbs) EXPECT_OK(db->Put(WriteOptions(), key, value));
      (*model)[key] = value;
    } else if (i % 3 != 0) {
      for (DB* db : dbs) EXPECT_OK(db->SingleDelete(WriteOptions(), key));
      model->erase(key);
    }
  }
  if (round == 3) {
    const std::string begin = testing::NumberedKey(100, 4);
    const std::string end = testing::NumberedKey(150, 4);
    for (DB* db : dbs) {
      EXPECT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(),
                                begin, end));
    }
    model->erase(model->lower_bound(begin), model->lower_bound(end));
  }
  for (DB* db : dbs) EXPECT_OK(db->Flush(FlushOptions()));
}

using testing::Contents;
using testing::ContentsOf;

void ExpectSnapshotReadsMatch(DB* db, const Snapshot* snapshot,
                              const Model& model) {
  ReadOptions read_options;
  read_options.snapshot = snapshot;
  for (const std::string& key : AllKeys()) {
    std::string value;
    const Status s = db->Get(read_options, key, &value);
    const auto it = model.find(key);
    if (it == model.end()) {
      EXPECT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
    } else {
      EXPECT_OK(s);
      EXPECT_EQ(value, it->second) << key;
    }
  }
  EXPECT_EQ(ContentsOf(db, snapshot), Contents(model.begin(), model.end()));
}

std::string SessionIdOf(DB* db) {
  std::string id;
  EXPECT_OK(db->GetDbSessionId(id));
  return id;
}

// Every live file is a CuckooHashTable file, written by the worker (whose
// session differs from the primary's) or by the primary itself.
enum class WrittenBy { kWorker, kPrimary };
void ExpectOurFiles(DB* db, WrittenBy written_by) {
  const std::string primary_session = SessionIdOf(db);
  TablePropertiesCollection props;
  ASSERT_OK(db->GetPropertiesOfAllTables(&props));
  ASSERT_FALSE(props.empty());
  for (const auto& [file, properties] : props) {
    EXPECT_EQ(testing::FileMagic(file), testing::kCuckooHashTableMagic) << file;
    EXPECT_EQ(properties->user_collected_properties.count(
                  "rocksdb.cuckoo.format_version"),
              1u)
        << file;
    if (written_by == WrittenBy::kWorker) {
      EXPECT_NE(properties->db_session_id, primary_session) << file;
    } else {
      EXPECT_EQ(properties->db_session_id, primary_session) << file;
    }
  }
}

CompactRangeOptions ForceBottommost() {
  CompactRangeOptions options;
  options.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  return options;
}

class RemoteCompactionTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  static void SetUpTestSuite() { RegisterOnce(); }

  void SetUp() override {
    // Parameterized names hold a '/'.
    std::string name =
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    root_ = ::testing::TempDir() + "/remote_compaction_" + name + "_" +
            std::to_string(getpid());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ + "/outputs");
  }

  void TearDown() override {
    primary_.reset();
    local_.reset();
    std::filesystem::remove_all(root_);
  }

  Options BaseOptions() const {
    Options options;
    options.create_if_missing = true;
    // Compactions happen only where the test asks for them.
    options.disable_auto_compactions = true;
    options.target_file_size_base = 16 << 10;  // several outputs per job
    options.merge_operator = std::make_shared<testing::CommaAppendOperator>();
    testing::UseTableFormat(GetParam(), &options);
    return options;
  }

  template <typename Service>
  std::shared_ptr<Service> MakeService(
      const Options& options, InProcessCompactionService::Answer answer) {
    return std::make_shared<Service>(root_ + "/outputs", options.table_factory,
                                     options.merge_operator, answer);
  }

  Status OpenPrimary(const Options& options) {
    primary_.reset();
    DB* raw = nullptr;
    const Status s = OpenDB(options, root_ + "/primary", &raw);
    primary_.reset(raw);
    return s;
  }
  Status OpenLocal(const Options& options) {
    local_.reset();
    DB* raw = nullptr;
    const Status s = OpenDB(options, root_ + "/local", &raw);
    local_.reset(raw);
    return s;
  }

  std::string root_;
  std::unique_ptr<DB> primary_;
  std::unique_ptr<DB> local_;
};

TEST_P(RemoteCompactionTest, RemoteOutputsReadAsModelAndLocalCompaction) {
  const Options options = BaseOptions();
  auto service = MakeService<InProcessCompactionService>(
      options, InProcessCompactionService::Answer::kRun);
  Options remote_options = options;
  remote_options.compaction_service = service;
  ASSERT_OK(OpenPrimary(remote_options));
  ASSERT_OK(OpenLocal(options));
  const std::vector<DB*> dbs = {primary_.get(), local_.get()};
  const std::vector<std::string> keys = AllKeys();

  Model model;
  WriteRound(dbs, &model, 0);
  WriteRound(dbs, &model, 1);
  // Held across two compactions, so that they keep older versions, merge
  // operands and tombstones it still sees.
  const Snapshot* primary_snapshot = primary_->GetSnapshot();
  const Snapshot* local_snapshot = local_->GetSnapshot();
  const Model at_snapshot = model;
  WriteRound(dbs, &model, 2);
  ASSERT_OK(primary_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(local_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_GT(service->jobs_run(), 0);
  ExpectSnapshotReadsMatch(primary_.get(), primary_snapshot, at_snapshot);
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);

  for (int round = 3; round < 6; round++) WriteRound(dbs, &model, round);
  ASSERT_OK(primary_->CompactRange(ForceBottommost(), nullptr, nullptr));
  ASSERT_OK(local_->CompactRange(ForceBottommost(), nullptr, nullptr));
  ExpectSnapshotReadsMatch(primary_.get(), primary_snapshot, at_snapshot);
  ExpectSnapshotReadsMatch(local_.get(), local_snapshot, at_snapshot);
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  EXPECT_EQ(ContentsOf(primary_.get()), ContentsOf(local_.get()));

  primary_->ReleaseSnapshot(primary_snapshot);
  local_->ReleaseSnapshot(local_snapshot);
  ASSERT_OK(primary_->CompactRange(ForceBottommost(), nullptr, nullptr));
  ASSERT_OK(local_->CompactRange(ForceBottommost(), nullptr, nullptr));
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  testing::ExpectReadsMatchModel(local_.get(), model, keys);
  EXPECT_EQ(ContentsOf(primary_.get()), ContentsOf(local_.get()));

  EXPECT_GE(service->jobs_run(), 3);
  EXPECT_EQ(service->jobs_failed(), 0);
  // Everything left was written by the worker, in our format.
  ExpectOurFiles(primary_.get(), WrittenBy::kWorker);
  ExpectOurFiles(local_.get(), WrittenBy::kPrimary);

  ASSERT_OK(OpenPrimary(remote_options));
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
}

TEST_P(RemoteCompactionTest, FailedJobLosesNothing) {
  const Options options = BaseOptions();
  auto service = MakeService<InProcessCompactionService>(
      options, InProcessCompactionService::Answer::kFailFirstJob);
  Options remote_options = options;
  remote_options.compaction_service = service;
  ASSERT_OK(OpenPrimary(remote_options));
  const std::vector<std::string> keys = AllKeys();

  Model model;
  for (int round = 0; round < 4; round++) {
    WriteRound({primary_.get()}, &model, round);
  }
  // RocksDB fails the compaction with the status it makes of a job that
  // failed without a result and keeps the inputs.
  const Status failed =
      primary_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  EXPECT_TRUE(failed.IsIncomplete()) << failed.ToString();
  EXPECT_NE(failed.ToString().find("CompactionService failed"),
            std::string::npos)
      << failed.ToString();
  EXPECT_EQ(service->jobs_failed(), 1);
  EXPECT_EQ(service->jobs_run(), 0);
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  // Every version tested (7.8.3 to 11.8.1) makes it a background error that
  // refuses writes until the DB is reopened; the refused write stays absent.
  const Status write_after =
      primary_->Put(WriteOptions(), "after-failure", "v");
  EXPECT_TRUE(write_after.IsIncomplete()) << write_after.ToString();

  // The service works from the second job on.
  ASSERT_OK(OpenPrimary(remote_options));
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  std::string refused;
  EXPECT_TRUE(
      primary_->Get(ReadOptions(), "after-failure", &refused).IsNotFound());
  WriteRound({primary_.get()}, &model, 4);
  ASSERT_OK(primary_->CompactRange(ForceBottommost(), nullptr, nullptr));
  EXPECT_GT(service->jobs_run(), 0);
  EXPECT_EQ(service->jobs_failed(), 1);
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  ExpectOurFiles(primary_.get(), WrittenBy::kWorker);
  ASSERT_OK(OpenPrimary(remote_options));
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
}

TEST_P(RemoteCompactionTest, UseLocalCompactsLocally) {
  const Options options = BaseOptions();
  auto service = MakeService<InProcessCompactionService>(
      options, InProcessCompactionService::Answer::kUseLocal);
  Options remote_options = options;
  remote_options.compaction_service = service;
  ASSERT_OK(OpenPrimary(remote_options));
  const std::vector<std::string> keys = AllKeys();

  Model model;
  for (int round = 0; round < 5; round++) {
    WriteRound({primary_.get()}, &model, round);
  }
  ASSERT_OK(primary_->CompactRange(ForceBottommost(), nullptr, nullptr));
  EXPECT_GT(service->jobs_asked(), 0);
  EXPECT_EQ(service->jobs_run(), 0);
  EXPECT_EQ(service->jobs_failed(), 0);
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  // Compacted, by the primary itself.
  std::vector<LiveFileMetaData> files;
  primary_->GetLiveFilesMetaData(&files);
  for (const LiveFileMetaData& file : files) EXPECT_GT(file.level, 0);
  ExpectOurFiles(primary_.get(), WrittenBy::kPrimary);
  ASSERT_OK(OpenPrimary(remote_options));
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
}

// Resuming reads the saved outputs' properties assuming RocksDB's own table
// formats (CompactionJob::ReadTablePropertiesDirectly knows only PlainTable's
// and CuckooTable's magic besides BlockBasedTable's), so for our files it
// fails with Corruption "Bad table magic number". That must stay a clear
// error the service can act on (here: start afresh), never wrong data; a
// RocksDB that resumes our files is welcome too.
TEST_P(RemoteCompactionTest, ResumptionWorksOrFailsClearly) {
  {
    OpenAndCompactOptions probe;
    if (!SetAllowResumption(&probe, true)) {
      GTEST_SKIP() << "OpenAndCompactOptions::allow_resumption needs RocksDB "
                      "10.8 or later";
    }
  }
  const Options options = BaseOptions();
  auto service = MakeService<ResumingCompactionService>(
      options, InProcessCompactionService::Answer::kRun);
  Options remote_options = options;
  remote_options.compaction_service = service;
  ASSERT_OK(OpenPrimary(remote_options));

  // Puts only, distinct keys interleaved across the files: the compaction
  // cannot be a trivial move, and every output boundary may save progress
  // (RocksDB saves none next to range deletions or merged keys).
  Model model;
  std::vector<std::string> keys;
  for (int file = 0; file < 3; file++) {
    for (int i = file; i < 1800; i += 3) {
      const std::string key = testing::NumberedKey(i, 5);
      const std::string value = std::string(120 + i % 50, 'a' + file);
      ASSERT_OK(primary_->Put(WriteOptions(), key, value));
      model[key] = value;
      keys.push_back(key);
    }
    ASSERT_OK(primary_->Flush(FlushOptions()));
  }
  ASSERT_OK(primary_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_TRUE(service->resume_tried);
  EXPECT_TRUE(service->interrupted.IsIncomplete())
      << service->interrupted.ToString();
  // There was something to resume from.
  EXPECT_GE(service->progress_files, 1);
  EXPECT_GE(service->output_files_kept, 1);
  // Which way it went, in the test's XML report (--gtest_output=xml).
  RecordProperty("resumed", service->resumed.ToString());
  if (!service->resumed.ok()) {
    EXPECT_TRUE(service->resumed.IsCorruption()) << service->resumed.ToString();
    EXPECT_NE(service->resumed.ToString().find("Bad table magic number"),
              std::string::npos)
        << service->resumed.ToString();
  }
  EXPECT_EQ(service->jobs_failed(), 0);
  EXPECT_GT(service->jobs_run(), 0);
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
  ExpectOurFiles(primary_.get(), WrittenBy::kWorker);
  ASSERT_OK(OpenPrimary(remote_options));
  testing::ExpectReadsMatchModel(primary_.get(), model, keys);
}

INSTANTIATE_TEST_SUITE_P(Formats, RemoteCompactionTest,
                         ::testing::Values(TableFormat::kCuckooMmap,
                                           TableFormat::kCuckooPread),
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
