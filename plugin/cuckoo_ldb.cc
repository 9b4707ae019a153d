// cuckoo_ldb: RocksDB's ldb with every rocksdb-cuckoo factory registered, so
// DBs written with the plugin open without LD_PRELOAD. Same commands and
// flags as the stock ldb, e.g.
//   cuckoo_ldb --db=/path/to/db scan
//   cuckoo_ldb --db=/path/to/db get <key>
//   cuckoo_ldb --db=/path/to/db dump
//   cuckoo_ldb --db=/path/to/db repair
// The DB's OPTIONS file names the table factory (ldb loads it by default when
// --db is given).
// `backup` is cuckoo_ldb's own: ldb's names shared table files by the DB
// session id that SstFileDumper reads from each table, and since RocksDB 9 it
// refuses ours; this one names them by checksum and size, reading no table.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/ldb_tool.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/utilities/ldb_cmd.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"

namespace {

using namespace ROCKSDB_NAMESPACE;

// The default column family's options from the OPTIONS file of the DB that
// --db names, or RocksDB's defaults. ldb loads that file itself, but gives
// the commands that work on the base options rather than a column family's
// (repair, reduce_levels, file_checksum_dump) only its DB-wide part: they
// would open our tables as BlockBasedTable files, and repair moves every
// table it cannot read to lost/, leaving the DB empty.
ColumnFamilyOptions DefaultColumnFamilyOptionsOf(int argc, char** argv) {
  static constexpr char kDbFlag[] = "--db=";
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], kDbFlag, strlen(kDbFlag)) != 0) continue;
    ConfigOptions config;
    DBOptions db_options;
    std::vector<ColumnFamilyDescriptor> column_families;
    if (!LoadLatestOptions(config, argv[i] + strlen(kDbFlag), &db_options,
                           &column_families)
             .ok()) {
      break;
    }
    for (const ColumnFamilyDescriptor& family : column_families) {
      if (family.name == kDefaultColumnFamilyName) return family.options;
    }
  }
  return ColumnFamilyOptions();
}

// RocksDB's StderrLogger is not an installed header.
class StderrLogger : public Logger {
 public:
  using Logger::Logger;
  using Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
  }
};

// ldb's `backup` (same flags and output) with kLegacyCrc32cAndFileSize naming.
class CuckooBackupCommand : public LDBCommand {
 public:
  CuckooBackupCommand(const std::map<std::string, std::string>& options,
                      const std::vector<std::string>& flags)
      : LDBCommand(options, flags, /*is_read_only=*/false,
                   BuildCmdLineOptions({"backup_env_uri", "backup_fs_uri",
                                        "backup_dir", "num_threads",
                                        "stderr_log_level"})) {
    ParseIntOption(options, "num_threads", num_threads_, exec_state_);
    ParseStringOption(options, "backup_env_uri", &backup_env_uri_);
    ParseStringOption(options, "backup_fs_uri", &backup_fs_uri_);
    if (!ParseStringOption(options, "backup_dir", &backup_dir_)) {
      exec_state_ = LDBCommandExecuteResult::Failed(
          "--backup_dir: missing backup directory");
    }
    int level = 0;
    if (ParseIntOption(options, "stderr_log_level", level, exec_state_)) {
      if (level < 0 || level >= InfoLogLevel::NUM_INFO_LOG_LEVELS) {
        exec_state_ = LDBCommandExecuteResult::Failed(
            "stderr_log_level must be >= 0 and < " +
            std::to_string(InfoLogLevel::NUM_INFO_LOG_LEVELS) + ".");
      } else {
        logger_ = std::make_unique<StderrLogger>(InfoLogLevel(level));
      }
    }
  }

  void DoCommand() override {
    if (db_ == nullptr) return;  // OpenDB() has set the failure
    fprintf(stdout, "open db OK\n");
    Env* backup_env = nullptr;
    std::shared_ptr<Env> backup_env_guard;
    Status s =
        Env::CreateFromUri(config_options_, backup_env_uri_, backup_fs_uri_,
                           &backup_env, &backup_env_guard);
    BackupEngineOptions backup_options(backup_dir_, backup_env);
    backup_options.share_files_with_checksum_naming =
        BackupEngineOptions::kLegacyCrc32cAndFileSize;
    backup_options.info_log = logger_.get();
    backup_options.max_background_operations = num_threads_;
    BackupEngine* engine = nullptr;
    if (s.ok()) s = BackupEngine::Open(options_.env, backup_options, &engine);
    std::unique_ptr<BackupEngine> guard(engine);
    if (s.ok()) {
      fprintf(stdout, "open backup engine OK\n");
      // db_ is a DB* before RocksDB 11, a std::unique_ptr<DB> since.
      s = engine->CreateNewBackup(&*db_);
    }
    if (s.ok()) {
      fprintf(stdout, "create new backup OK\n");
    } else {
      exec_state_ = LDBCommandExecuteResult::Failed(s.ToString());
    }
  }

 private:
  std::string backup_env_uri_;
  std::string backup_fs_uri_;
  std::string backup_dir_;
  int num_threads_ = 1;
  std::unique_ptr<Logger> logger_;
};

// Whether ldb's command, its first argument that is not an --option, is
// `backup`.
bool IsBackup(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--", 2) != 0) return strcmp(argv[i], "backup") == 0;
  }
  return false;
}

// LDBCommandRunner::RunCommand with our CuckooBackupCommand.
int RunBackup(int argc, char** argv, const Options& options) {
  std::unique_ptr<LDBCommand> command(LDBCommand::InitFromCmdLineArgs(
      std::vector<std::string>(argv + 1, argv + argc), options, LDBOptions(),
      /*column_families=*/nullptr, [](const LDBCommand::ParsedParams& params) {
        return new CuckooBackupCommand(params.option_map, params.flags);
      }));
  if (!command->ValidateCmdLineOptions()) return 1;
  command->Run();
  LDBCommandExecuteResult result = command->GetExecuteState();
  if (!result.ToString().empty()) {
    fprintf(stderr, "%s\n", result.ToString().c_str());
  }
  return result.IsFailed() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The static library registers nothing by itself; ldb resolves names through
  // ObjectLibrary::Default() when it loads the OPTIONS file.
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  const Options options(DBOptions(), DefaultColumnFamilyOptionsOf(argc, argv));
  if (IsBackup(argc, argv)) return RunBackup(argc, argv, options);
  LDBTool tool;
  tool.Run(argc, argv, options);
  return 0;  // Run() exits with the command's status; not reached.
}
