// Remote compaction as a deployment runs it: the primary (our table,
// memtable and Env, all by name) hands every compaction to
// SpoolCompactionService, which runs each job in a cuckoo_compaction_worker
// process. The DB must read exactly as a twin that compacts locally, through
// every kind of write, held snapshots, ingestion, bottommost compactions and
// subcompactions; with checksums on they must verify after installation; a
// worker that dies or keeps failing must lose nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugin/example/spool_compaction_service.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_checksum.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

using testing::Contents;
using testing::ContentsOf;

// Every live file is a CuckooHashTable file; `remote` counts those a worker
// wrote (another session than the primary's).
int RemotelyWrittenFiles(DB* db) {
  std::string primary_session;
  EXPECT_OK(db->GetDbSessionId(primary_session));
  TablePropertiesCollection props;
  EXPECT_OK(db->GetPropertiesOfAllTables(&props));
  int remote = 0;
  for (const auto& [file, properties] : props) {
    EXPECT_EQ(testing::FileMagic(file), testing::kCuckooHashTableMagic) << file;
    if (properties->db_session_id != primary_session) remote++;
  }
  return remote;
}

class RemoteCompactionWorkerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }

  void SetUp() override {
    root_ = ::testing::TempDir() + "/remote_worker_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            "_" + std::to_string(getpid());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    ConfigOptions config;
    config.ignore_unknown_options = false;
    ASSERT_OK(Env::CreateFromString(config, "id=AsyncExecutorEnv", &env_,
                                    &env_guard_));
  }

  void TearDown() override {
    primary_.reset();
    local_.reset();
    std::filesystem::remove_all(root_);
  }

  // Our parts by the names users type; the merge operator is one the worker
  // can create from the OPTIONS file.
  Options BaseOptions() const {
    ConfigOptions config;
    config.ignore_unknown_options = false;
    Options options;
    options.env = env_;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    options.target_file_size_base = 16 << 10;  // several outputs per job
    EXPECT_OK(TableFactory::CreateFromString(config, "id=CuckooHashTable",
                                             &options.table_factory));
    EXPECT_OK(MemTableRepFactory::CreateFromString(config, "striped_hash",
                                                   &options.memtable_factory));
    EXPECT_OK(MergeOperator::CreateFromString(config, "stringappend",
                                              &options.merge_operator));
    return options;
  }

  std::shared_ptr<SpoolCompactionService> MakeService(
      const std::string& worker, std::vector<std::string> flags = {}) {
    SpoolCompactionServiceOptions service_options;
    service_options.worker_path = worker;
    service_options.worker_flags = std::move(flags);
    service_options.spool_dir = root_ + "/spool";
    return std::make_shared<SpoolCompactionService>(service_options);
  }

  // A shell script in front of the real worker.
  std::string WorkerScript(const std::string& name, const std::string& body) {
    const std::string path = root_ + "/" + name;
    EXPECT_TRUE(testing::WriteWholeFile(
        path, "#!/bin/sh\n" + body + "\nexec " +
                  std::string(CUCKOO_COMPACTION_WORKER) + " \"$@\"\n"));
    chmod(path.c_str(), 0755);
    return path;
  }

  void Open(const Options& primary_options) {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(primary_options, root_ + "/primary", &raw));
    primary_.reset(raw);
    Options local_options = primary_options;
    local_options.compaction_service = nullptr;
    ASSERT_OK(OpenDB(local_options, root_ + "/local", &raw));
    local_.reset(raw);
  }

  // Puts, merges, deletes, single deletes and a range deletion, the same in
  // both DBs, one flushed file per round.
  void WriteRound(int round) {
    for (DB* db : {primary_.get(), local_.get()}) {
      for (int i = 0; i < 300; i++) {
        const std::string key = testing::NumberedKey(i, 4);
        switch ((i + round) % 4) {
          case 0:
            ASSERT_OK(db->Put(
                WriteOptions(), key,
                "r" + std::to_string(round) + std::string(40 + i % 70, 'v')));
            break;
          case 1:
            ASSERT_OK(
                db->Merge(WriteOptions(), key, "m" + std::to_string(round)));
            break;
          case 2:
            ASSERT_OK(db->Delete(WriteOptions(), key));
            break;
          default:
            break;
        }
      }
      for (int i = 0; i < 40; i++) {
        const std::string key = "sd" + testing::NumberedKey(i, 3);
        if (round % 2 == 0) {
          ASSERT_OK(db->Put(WriteOptions(), key, "s" + std::to_string(round)));
        } else {
          ASSERT_OK(db->SingleDelete(WriteOptions(), key));
        }
      }
      if (round == 2) {
        ASSERT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(),
                                  testing::NumberedKey(100, 4),
                                  testing::NumberedKey(140, 4)));
      }
      ASSERT_OK(db->Flush(FlushOptions()));
    }
  }

  void CompactBoth(const CompactRangeOptions& compact_options) {
    ASSERT_OK(primary_->CompactRange(compact_options, nullptr, nullptr));
    ASSERT_OK(local_->CompactRange(compact_options, nullptr, nullptr));
  }

  void ExpectSameContents() {
    EXPECT_EQ(ContentsOf(primary_.get()), ContentsOf(local_.get()));
  }

  // Three rounds of writes compacted to the bottom through `service`; the
  // primary must then read as its local twin.
  SpoolCompactionService::Counts CompactThreeRounds(
      const std::shared_ptr<SpoolCompactionService>& service, Options options) {
    options.compaction_service = service;
    Open(options);
    for (int round = 0; round < 3; round++) WriteRound(round);
    CompactBoth(Bottommost());
    ExpectSameContents();
    return service->counts();
  }

  static CompactRangeOptions Bottommost() {
    CompactRangeOptions options;
    options.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    return options;
  }

  std::string root_;
  Env* env_ = nullptr;
  std::shared_ptr<Env> env_guard_;
  std::unique_ptr<DB> primary_;
  std::unique_ptr<DB> local_;
};

TEST_F(RemoteCompactionWorkerTest, WorkerOutputsReadAsLocalCompaction) {
  auto service = MakeService(CUCKOO_COMPACTION_WORKER);
  Options options = BaseOptions();
  options.compaction_service = service;
  Open(options);
  // Snapshots held across remote compactions keep their versions.
  std::vector<const Snapshot*> primary_snapshots, local_snapshots;
  for (int round = 0; round < 4; round++) {
    WriteRound(round);
    primary_snapshots.push_back(primary_->GetSnapshot());
    local_snapshots.push_back(local_->GetSnapshot());
  }
  CompactRangeOptions to_level_one;
  to_level_one.change_level = true;
  CompactBoth(to_level_one);
  ExpectSameContents();
  for (size_t i = 0; i < primary_snapshots.size(); i++) {
    EXPECT_EQ(ContentsOf(primary_.get(), primary_snapshots[i]),
              ContentsOf(local_.get(), local_snapshots[i]))
        << "snapshot " << i;
  }
  for (size_t i = 0; i < primary_snapshots.size(); i++) {
    primary_->ReleaseSnapshot(primary_snapshots[i]);
    local_->ReleaseSnapshot(local_snapshots[i]);
  }
  // Bottommost, no snapshot left: the worker zeroes sequence numbers.
  WriteRound(4);
  CompactBoth(Bottommost());
  ExpectSameContents();
  std::vector<LiveFileMetaData> files;
  primary_->GetLiveFilesMetaData(&files);
  ASSERT_FALSE(files.empty());
  for (const LiveFileMetaData& file : files) {
    EXPECT_EQ(file.largest_seqno, 0u) << file.name;
  }
  EXPECT_GT(RemotelyWrittenFiles(primary_.get()), 0);
  const auto counts = service->counts();
  EXPECT_GE(counts.completed_remotely, 2);
  EXPECT_EQ(counts.worker_failures, 0);
  EXPECT_EQ(counts.fell_back_to_local, 0);
  // Installed outputs survive a reopen.
  primary_.reset();
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, root_ + "/primary", &raw));
  primary_.reset(raw);
  ExpectSameContents();
}

TEST_F(RemoteCompactionWorkerTest, SubcompactionsRunInWorkersOfTheirOwn) {
  auto service = MakeService(CUCKOO_COMPACTION_WORKER);
  Options options = BaseOptions();
  options.compaction_service = service;
  options.max_subcompactions = 4;
  Open(options);
  for (int round = 0; round < 5; round++) WriteRound(round);
  CompactBoth(Bottommost());
  ExpectSameContents();
  // Every output of the job came from a worker.
  std::vector<LiveFileMetaData> files;
  primary_->GetLiveFilesMetaData(&files);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(RemotelyWrittenFiles(primary_.get()),
            static_cast<int>(files.size()));
#if ROCKSDB_MAJOR >= 9
  // One job per subcompaction (RocksDB 7.8 does not split this one).
  EXPECT_GE(service->counts().completed_remotely, 2);
#else
  EXPECT_GE(service->counts().completed_remotely, 1);
#endif
  EXPECT_EQ(service->counts().fell_back_to_local, 0);
}

TEST_F(RemoteCompactionWorkerTest, IngestedFilesCompactRemotely) {
  auto service = MakeService(CUCKOO_COMPACTION_WORKER);
  Options options = BaseOptions();
  options.compaction_service = service;
  Open(options);
  WriteRound(0);
  // The same external file, written with our table, into both DBs.
  const std::string file = root_ + "/ingest.sst";
  SstFileWriter writer(EnvOptions(), options);
  ASSERT_OK(writer.Open(file));
  for (int i = 0; i < 500; i++) {
    ASSERT_OK(writer.Put(testing::NumberedKey(1000 + i, 5), "ingested"));
  }
  ASSERT_OK(writer.Finish());
  IngestExternalFileOptions ingest;
  ingest.move_files = false;
  ASSERT_OK(primary_->IngestExternalFile({file}, ingest));
  ASSERT_OK(local_->IngestExternalFile({file}, ingest));
  WriteRound(1);
  CompactBoth(Bottommost());
  ExpectSameContents();
  EXPECT_GT(RemotelyWrittenFiles(primary_.get()), 0);
}

TEST_F(RemoteCompactionWorkerTest, ChecksumsOfWorkerOutputsVerify) {
  auto service = MakeService(CUCKOO_COMPACTION_WORKER);
  Options options = BaseOptions();
  options.file_checksum_gen_factory = GetFileChecksumGenCrc32cFactory();
  CompactThreeRounds(service, options);
  ASSERT_GT(RemotelyWrittenFiles(primary_.get()), 0);
  EXPECT_OK(primary_->VerifyFileChecksums(ReadOptions()));
  std::vector<LiveFileMetaData> files;
  primary_->GetLiveFilesMetaData(&files);
  for (const LiveFileMetaData& file : files) {
#if ROCKSDB_MAJOR >= 9
    // The worker computes the checksum (its factory is the OPTIONS file's)
    // and the result carries it to the primary.
    EXPECT_EQ(file.file_checksum_func_name, "FileChecksumCrc32c") << file.name;
    EXPECT_FALSE(file.file_checksum.empty()) << file.name;
#else
    // RocksDB 7.8's result carries no checksum: the primary installs the
    // file with none, and VerifyFileChecksums passes it by.
    EXPECT_TRUE(file.file_checksum.empty()) << file.name;
#endif
  }
}

TEST_F(RemoteCompactionWorkerTest, KilledWorkerIsRunAgain) {
  // The first worker kills itself before doing anything; the second runs.
  const std::string mark = root_ + "/killed_once";
  auto service = MakeService(WorkerScript(
      "dies_once.sh",
      "if [ ! -e " + mark + " ]; then : > " + mark + "; kill -KILL $$; fi"));
  const auto counts = CompactThreeRounds(service, BaseOptions());
  EXPECT_EQ(counts.worker_failures, 1);
  EXPECT_EQ(counts.fell_back_to_local, 0);
  EXPECT_GT(RemotelyWrittenFiles(primary_.get()), 0);
}

TEST_F(RemoteCompactionWorkerTest, FailingWorkersFallBackToLocalAndSaySo) {
  // Every worker refuses the job: a table factory nobody registered.
  auto service = MakeService(CUCKOO_COMPACTION_WORKER,
                             {"--table_factory=id=NoSuchTableFactory"});
  const auto counts = CompactThreeRounds(service, BaseOptions());
  EXPECT_GE(counts.fell_back_to_local, 1);
  EXPECT_EQ(counts.worker_failures, 2 * counts.fell_back_to_local);
  EXPECT_EQ(counts.completed_remotely, 0);
  EXPECT_EQ(RemotelyWrittenFiles(primary_.get()), 0);
  // Writes go on: no background error.
  EXPECT_OK(primary_->Put(WriteOptions(), "after", "fallback"));
  const std::string log = testing::ReadWholeFile(root_ + "/primary/LOG");
  EXPECT_NE(log.find("fallback to local"), std::string::npos);
}

#if CUCKOO_HAS_CANCEL_AWAITING_JOBS
TEST_F(RemoteCompactionWorkerTest, CanceledJobsLoseNothing) {
  // Workers that would take a minute: canceled while the primary waits.
  auto service = MakeService(WorkerScript("slow.sh", "sleep 60"));
  Options options = BaseOptions();
  options.compaction_service = service;
  Open(options);
  for (int round = 0; round < 3; round++) WriteRound(round);
  const Contents before = ContentsOf(primary_.get());
  Status compacted;
  std::thread compaction([&] {
    compacted = primary_->CompactRange(Bottommost(), nullptr, nullptr);
  });
  while (service->counts().scheduled == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CancelAllBackgroundWork(primary_.get(), /*wait=*/true);
  compaction.join();
  EXPECT_FALSE(compacted.ok());
  EXPECT_GE(service->counts().aborted, 1);
  EXPECT_EQ(service->counts().completed_remotely, 0);
  // Reopened with a working service, the DB has everything and compacts.
  primary_.reset();
  options.compaction_service = MakeService(CUCKOO_COMPACTION_WORKER);
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, root_ + "/primary", &raw));
  primary_.reset(raw);
  EXPECT_EQ(ContentsOf(primary_.get()), before);
  ASSERT_OK(primary_->CompactRange(Bottommost(), nullptr, nullptr));
  EXPECT_EQ(ContentsOf(primary_.get()), before);
}
#endif

TEST(CompactionWorkerTool, RefusesBadArguments) {
  const std::string worker = CUCKOO_COMPACTION_WORKER;
  EXPECT_EQ(WEXITSTATUS(std::system((worker + " --db=x 2>/dev/null").c_str())),
            2);
  EXPECT_EQ(
      WEXITSTATUS(std::system((worker + " --bogus=1 2>/dev/null").c_str())), 2);
  const std::string input = ::testing::TempDir() + "/not_an_input";
  ASSERT_TRUE(testing::WriteWholeFile(input, "garbage"));
  const std::string out = ::testing::TempDir() + "/worker_stderr";
  const int status = std::system(
      (worker + " --db=/nonexistent --input=" + input +
       " --output_dir=/tmp/unused --result=/tmp/unused_result 2>" + out)
          .c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(testing::ReadWholeFile(out).find("not a compaction service input"),
            std::string::npos);
}

}  // namespace
}  // namespace rocksdb_cuckoo
