// cuckoo_compaction_worker: a remote-compaction worker with the plugin
// registered. The primary's CompactionService hands it one job: the
// serialized input RocksDB gave the service, the primary's DB directory (as
// this process sees the shared storage) and a directory for the outputs. It
// runs DB::OpenAndCompact and writes the serialized result, which the
// service returns to the primary from Wait().
//
//   cuckoo_compaction_worker --db=<primary DB dir> --input=<file>
//       --output_dir=<dir> --result=<file> [--table_factory=<options string>]
//       [--merge_operator=<options string>]
//       [--file_checksum_gen_factory=<options string>]
//
// OpenAndCompact takes the table factory, merge operator, comparator, prefix
// extractor, compaction filter, partitioner, property collectors and
// checksum factory only from its options override, never from the DB's
// OPTIONS file. Left alone, the worker fills the override from the OPTIONS
// file the job names (the column family's options); a flag replaces one of
// them, e.g. with a merge operator the OPTIONS file names but this process
// cannot create.
//
// Exit status: 0 when the result says the compaction succeeded, 1 when it
// failed (the result, if RocksDB produced one, is written all the same: it
// carries the worker's status to the primary), 2 for a usage error.

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/compaction/compaction_job.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_checksum.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb/version.h"

namespace {

using namespace ROCKSDB_NAMESPACE;

struct Flags {
  std::string db;
  std::string input;
  std::string output_dir;
  std::string result;
  std::string table_factory;
  std::string merge_operator;
  std::string file_checksum_gen_factory;
};

void Usage() {
  fprintf(stderr,
          "Usage: cuckoo_compaction_worker --db=<primary DB dir> "
          "--input=<file> --output_dir=<dir> --result=<file> [options]\n"
          "  --db=<dir>              the primary's DB directory\n"
          "  --input=<file>          the serialized compaction input the "
          "primary's\n"
          "                          CompactionService was given\n"
          "  --output_dir=<dir>      where the output files are written\n"
          "  --result=<file>         where the serialized result is written\n"
          "  --table_factory=<opts>  instead of the column family's in the "
          "OPTIONS file,\n"
          "                          e.g. id=CuckooHashTable\n"
          "  --merge_operator=<opts> likewise, e.g. id=stringappend\n"
          "  --file_checksum_gen_factory=<opts>  likewise, e.g.\n"
          "                          id=FileChecksumGenCrc32cFactory\n");
}

bool ParseFlags(int argc, char** argv, Flags* flags) {
  const std::map<std::string, std::string*> by_name = {
      {"db", &flags->db},
      {"input", &flags->input},
      {"output_dir", &flags->output_dir},
      {"result", &flags->result},
      {"table_factory", &flags->table_factory},
      {"merge_operator", &flags->merge_operator},
      {"file_checksum_gen_factory", &flags->file_checksum_gen_factory}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    auto it = arg.rfind("--", 0) == 0 && eq != std::string::npos
                  ? by_name.find(arg.substr(2, eq - 2))
                  : by_name.end();
    if (it == by_name.end()) {
      fprintf(stderr, "cuckoo_compaction_worker: unknown argument '%s'\n",
              arg.c_str());
      return false;
    }
    *it->second = arg.substr(eq + 1);
  }
  for (const char* required : {"db", "input", "output_dir", "result"}) {
    if (by_name.at(required)->empty()) {
      fprintf(stderr, "cuckoo_compaction_worker: --%s is required\n", required);
      return false;
    }
  }
  return true;
}

// Written beside the final name and renamed over it, so a reader never
// sees half a result.
Status WriteFileAtomically(const std::string& path, const std::string& data) {
  Env* env = Env::Default();
  const std::string temporary = path + ".tmp";
  Status s = WriteStringToFile(env, data, temporary, /*should_sync=*/true);
  return s.ok() ? env->RenameFile(temporary, path) : s;
}

// The job's column family and the OPTIONS file it was scheduled under
// (0: the input does not say; the latest is used).
struct JobFacts {
  std::string column_family;
  uint64_t options_file_number = 0;
};

Status ReadJobFacts(const std::string& input, JobFacts* facts) {
  CompactionServiceInput parsed;
  Status s = CompactionServiceInput::Read(input, &parsed);
  if (!s.ok()) {
    return Status::Corruption("--input is not a compaction service input",
                              s.ToString());
  }
#if ROCKSDB_MAJOR >= 9
  facts->column_family = parsed.cf_name;
  facts->options_file_number = parsed.options_file_number;
#else
  facts->column_family = parsed.column_family.name;
#endif
  return Status::OK();
}

// The DB and column family options in the OPTIONS file the job names.
// When an object there cannot be created in this process and the flags
// replace some object, the file is read again leaving out what cannot be
// created: what the flags do not replace then stays unset, and RocksDB
// refuses the job if it needs it (a merge without a merge operator).
Status LoadJobOptions(const std::string& db, const JobFacts& facts,
                      bool flags_replace_objects, DBOptions* db_options,
                      ColumnFamilyOptions* cf_options,
                      std::vector<ColumnFamilyDescriptor>* families) {
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  auto load = [&] {
    if (facts.options_file_number == 0) {
      return LoadLatestOptions(config, db, db_options, families);
    }
    char name[64];
    snprintf(name, sizeof(name), "/OPTIONS-%06llu",
             static_cast<unsigned long long>(facts.options_file_number));
    return LoadOptionsFromFile(config, db + name, db_options, families);
  };
  Status s = load();
  if (!s.ok() && flags_replace_objects) {
    fprintf(stderr,
            "cuckoo_compaction_worker: %s; reading the OPTIONS file without "
            "what cannot be created here\n",
            s.ToString().c_str());
    config.ignore_unsupported_options = true;
    families->clear();
    s = load();
  }
  if (!s.ok()) {
    return Status::InvalidArgument(
        "cannot load the DB's OPTIONS file (an object this worker cannot "
        "create can be given by flag)",
        s.ToString());
  }
  for (const ColumnFamilyDescriptor& family : *families) {
    if (family.name == facts.column_family) {
      *cf_options = family.options;
      return Status::OK();
    }
  }
  return Status::InvalidArgument("the OPTIONS file has no column family '" +
                                 facts.column_family + "'");
}

// A flag's options string, when given, replaces the OPTIONS file's object.
template <typename T>
Status Replace(const std::string& flag, const std::string& spec,
               std::shared_ptr<T>* object) {
  if (spec.empty()) return Status::OK();
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  std::shared_ptr<T> created;
  Status s = T::CreateFromString(config, spec, &created);
  if (s.ok() && created == nullptr) s = Status::NotFound("no object");
  if (!s.ok()) return Status::InvalidArgument("--" + flag, s.ToString());
  *object = std::move(created);
  return Status::OK();
}

Status RunJob(const Flags& flags) {
  std::string input;
  Status s = ReadFileToString(Env::Default(), flags.input, &input);
  JobFacts facts;
  if (s.ok()) s = ReadJobFacts(input, &facts);
  DBOptions db_options;
  ColumnFamilyOptions cf_options;
  std::vector<ColumnFamilyDescriptor> families;
  const bool flags_replace_objects = !flags.table_factory.empty() ||
                                     !flags.merge_operator.empty() ||
                                     !flags.file_checksum_gen_factory.empty();
  if (s.ok()) {
    s = LoadJobOptions(flags.db, facts, flags_replace_objects, &db_options,
                       &cf_options, &families);
  }
  CompactionServiceOptionsOverride override_options;
  override_options.table_factory = cf_options.table_factory;
  override_options.merge_operator = cf_options.merge_operator;
  override_options.comparator = cf_options.comparator;
  override_options.prefix_extractor = cf_options.prefix_extractor;
  override_options.compaction_filter = cf_options.compaction_filter;
  override_options.compaction_filter_factory =
      cf_options.compaction_filter_factory;
  override_options.sst_partitioner_factory = cf_options.sst_partitioner_factory;
  override_options.table_properties_collector_factories =
      cf_options.table_properties_collector_factories;
  override_options.file_checksum_gen_factory =
      db_options.file_checksum_gen_factory;
  if (s.ok()) {
    s = Replace("table_factory", flags.table_factory,
                &override_options.table_factory);
  }
  if (s.ok()) {
    s = Replace("merge_operator", flags.merge_operator,
                &override_options.merge_operator);
  }
  if (s.ok()) {
    s = Replace("file_checksum_gen_factory", flags.file_checksum_gen_factory,
                &override_options.file_checksum_gen_factory);
  }
  if (!s.ok()) return s;

  std::string result;
  s = DB::OpenAndCompact(OpenAndCompactOptions(), flags.db, flags.output_dir,
                         input, &result, override_options);
  // A failed job's result, when there is one, tells the primary why.
  if (!result.empty()) {
    Status written = WriteFileAtomically(flags.result, result);
    if (s.ok()) s = written;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) {
    Usage();
    return 2;
  }
  register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  const Status s = RunJob(flags);
  if (!s.ok()) {
    fprintf(stderr, "cuckoo_compaction_worker: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
