// cuckoo_sst_dump: an sst_dump-style inspector for CuckooHashTable files.
//
// The stock 7.8.3 sst_dump picks a table factory from the footer's magic
// number and refuses every magic it does not know, so it cannot open our
// files. This tool opens a file through whichever TableFactory fits (the
// built-in formats by their magic numbers, CuckooHashTable otherwise, or the
// one named in --options_string) with RocksDB's internal TableReader API, so
// it can print internal keys with their sequence numbers and value types.
//
//   cuckoo_sst_dump --file=<sst file or directory> [--command=scan|check|
//                   verify|none] [--show_properties] [--from=<key>]
//                   [--to=<key>] [--read_num=<n>] [--output_hex]
//                   [--input_key_hex] [--options_string=<cf options>]
//
// Exit status: 0 when every file was processed without error, 1 otherwise,
// 2 for a usage error.

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/range_tombstone_fragmenter.h"
#include "file/random_access_file_reader.h"
#include "options/cf_options.h"
#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/table_reader_caller.h"
#include "rocksdb/utilities/object_registry.h"
#include "table/built_in_formats.h"
#include "table/cuckoo_hash_table.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/internal_iterator.h"
#include "table/standalone_table_compat.h"
#include "table/table_builder.h"
#include "table/table_reader.h"

namespace {

using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::Comparator;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::EnvOptions;
using ROCKSDB_NAMESPACE::FileOptions;
using ROCKSDB_NAMESPACE::FileSystem;
using ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator;
using ROCKSDB_NAMESPACE::FSRandomAccessFile;
using ROCKSDB_NAMESPACE::ImmutableOptions;
using ROCKSDB_NAMESPACE::InternalIterator;
using ROCKSDB_NAMESPACE::InternalKey;
using ROCKSDB_NAMESPACE::InternalKeyComparator;
using ROCKSDB_NAMESPACE::IOOptions;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ParsedInternalKey;
using ROCKSDB_NAMESPACE::RandomAccessFileReader;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::TableFactory;
using ROCKSDB_NAMESPACE::TableProperties;
using ROCKSDB_NAMESPACE::TableReader;
using ROCKSDB_NAMESPACE::TableReaderCaller;
using ROCKSDB_NAMESPACE::TableReaderOptions;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

void PrintUsage(FILE* out) {
  fprintf(out,
          "Usage: cuckoo_sst_dump --file=<sst file or directory> [options]\n"
          "\n"
          "  --file=<path>            an SST file, or a directory whose *.sst\n"
          "                           files are all processed\n"
          "  --command=scan|check|verify|none\n"
          "      scan   print every entry as '<user key>' seq:<n>, "
          "type:<t> => <value>\n"
          "             (the default)\n"
          "      check  read every entry; report unparsable keys, keys out "
          "of order\n"
          "             and entry counts that disagree with the properties\n"
          "      verify check the file's checksums (TableReader::"
          "VerifyChecksum)\n"
          "      none   only open the file (use with --show_properties)\n"
          "  --show_properties        print all table properties, the "
          "user-collected\n"
          "                           ones (rocksdb.cuckoo.*) included\n"
          "  --from=<key>             scan/check from this user key "
          "(inclusive)\n"
          "  --to=<key>               scan/check up to this user key "
          "(exclusive)\n"
          "  --read_num=<n>           read at most n entries\n"
          "  --output_hex             print keys and values in hex\n"
          "  --input_key_hex          --from/--to are given in hex\n"
          "  --verify_checksum=<0|1>  verify checksums while reading "
          "(default 1)\n"
          "  --options_string=<opts>  column family options, e.g.\n"
          "                           "
          "\"table_factory={id=CuckooHashTable};comparator=...\";\n"
          "                           a table_factory given here replaces "
          "detection\n"
          "                           by the footer's magic number\n"
          "  --help                   this text\n");
}

struct Flags {
  std::vector<std::string> paths;
  std::string command = "scan";
  bool show_properties = false;
  bool has_from = false;
  std::string from;
  bool has_to = false;
  std::string to;
  uint64_t read_num = 0;  // 0: no limit
  bool output_hex = false;
  bool input_key_hex = false;
  bool verify_checksum = true;
  std::string options_string;
};

// Returns true and sets *value when `arg` is `--name=value`.
bool MatchFlag(const char* arg, const char* name, std::string* value) {
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0 || arg[len] != '=') {
    return false;
  }
  value->assign(arg + len + 1);
  return true;
}

bool ParseBool(const std::string& s, bool* out) {
  if (s == "1" || s == "true") {
    *out = true;
    return true;
  }
  if (s == "0" || s == "false") {
    *out = false;
    return true;
  }
  return false;
}

// Parses argv; on a usage error prints why and returns false.
bool ParseFlags(int argc, char** argv, Flags* flags, bool* help) {
  *help = false;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    std::string v;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      *help = true;
    } else if (MatchFlag(arg, "--file", &v)) {
      flags->paths.push_back(v);
    } else if (MatchFlag(arg, "--command", &v)) {
      flags->command = v;
    } else if (strcmp(arg, "--show_properties") == 0) {
      flags->show_properties = true;
    } else if (MatchFlag(arg, "--from", &v)) {
      flags->has_from = true;
      flags->from = v;
    } else if (MatchFlag(arg, "--to", &v)) {
      flags->has_to = true;
      flags->to = v;
    } else if (MatchFlag(arg, "--read_num", &v)) {
      char* end = nullptr;
      errno = 0;
      unsigned long long n = strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || errno != 0 || v[0] == '-') {
        fprintf(stderr, "Invalid --read_num: '%s'\n", v.c_str());
        return false;
      }
      flags->read_num = n;
    } else if (strcmp(arg, "--output_hex") == 0) {
      flags->output_hex = true;
    } else if (strcmp(arg, "--input_key_hex") == 0) {
      flags->input_key_hex = true;
    } else if (strcmp(arg, "--verify_checksum") == 0) {
      flags->verify_checksum = true;
    } else if (MatchFlag(arg, "--verify_checksum", &v)) {
      if (!ParseBool(v, &flags->verify_checksum)) {
        fprintf(stderr, "Invalid --verify_checksum: '%s'\n", v.c_str());
        return false;
      }
    } else if (MatchFlag(arg, "--options_string", &v)) {
      flags->options_string = v;
    } else {
      fprintf(stderr, "Unknown argument: %s\n", arg);
      return false;
    }
  }
  if (*help) {
    return true;
  }
  if (flags->paths.empty()) {
    fprintf(stderr, "Missing --file=<sst file or directory>\n");
    return false;
  }
  const std::string& c = flags->command;
  if (c != "scan" && c != "check" && c != "verify" && c != "none") {
    fprintf(stderr, "Unknown --command=%s (want scan, check, verify, none)\n",
            c.c_str());
    return false;
  }
  if (flags->input_key_hex) {
    // Accept an optional 0x prefix, as the stock tools do.
    for (std::string* key : {&flags->from, &flags->to}) {
      std::string hex = *key;
      if (hex.size() >= 2 && hex[0] == '0' &&
          (hex[1] == 'x' || hex[1] == 'X')) {
        hex = hex.substr(2);
      }
      std::string decoded;
      if (!Slice(hex).DecodeHex(&decoded)) {
        fprintf(stderr, "Invalid hex key: '%s'\n", key->c_str());
        return false;
      }
      *key = decoded;
    }
  }
  return true;
}

// Everything a TableReader may keep a reference to, at a stable address, so
// that `reader` (declared last, destroyed first) never dangles.
struct OpenedTable {
  explicit OpenedTable(const Options& opts)
      : options(opts),
        ioptions(options),
        env_options(DBOptions(options)),
        icmp(options.comparator) {}

  Options options;
  ImmutableOptions ioptions;
  EnvOptions env_options;
  InternalKeyComparator icmp;
  uint64_t file_size = 0;
  uint64_t magic = 0;
  std::unique_ptr<TableReader> reader;
};

std::string Hex64(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

// Reads the table magic number: the last 8 bytes of every RocksDB SST file,
// whatever the format.
Status ReadMagic(FileSystem* fs, const std::string& path, uint64_t file_size,
                 uint64_t* magic) {
  std::unique_ptr<FSRandomAccessFile> file;
  Status s = fs->NewRandomAccessFile(path, FileOptions(), &file, nullptr);
  if (!s.ok()) {
    return s;
  }
  RandomAccessFileReader reader(std::move(file), path);
  s = rocksdb_cuckoo::ReadMagicNumber(&reader, ReadOptions(), file_size, magic);
  // Name the file, as the other errors here do.
  return s.IsCorruption() ? Status::Corruption(path, s.getState()) : s;
}

// Sets options->table_factory from the file's magic number; a magic number
// RocksDB does not know is taken to be ours.
Status ChooseFactoryByMagic(uint64_t magic, Options* options,
                            std::string* format) {
  namespace r = ROCKSDB_NAMESPACE;
  switch (rocksdb_cuckoo::BuiltInFormatOf(magic)) {
    case rocksdb_cuckoo::BuiltInFormat::kBlockBasedTable:
      options->table_factory.reset(r::NewBlockBasedTableFactory());
      *format = "block-based";
      return Status::OK();
    case rocksdb_cuckoo::BuiltInFormat::kPlainTable: {
      // Without a prefix extractor a plain table is only readable in
      // full-scan mode, and its reader needs mmap.
      r::PlainTableOptions plain;
      plain.full_scan_mode = true;
      options->allow_mmap_reads = true;
      options->table_factory.reset(r::NewPlainTableFactory(plain));
      *format = "plain table";
      return Status::OK();
    }
    case rocksdb_cuckoo::BuiltInFormat::kCuckooTable:
      options->allow_mmap_reads = true;  // RocksDB's CuckooTable requires it.
      options->table_factory.reset(r::NewCuckooTableFactory());
      *format = "RocksDB CuckooTable";
      return Status::OK();
    case rocksdb_cuckoo::BuiltInFormat::kNone:
      break;
  }
  // Ours, or a magic nobody here knows: CuckooHashTable is the default, and
  // its reader says clearly when the file is not one of its own.
  if (magic != rocksdb_cuckoo::kCuckooHashTableMagicNumber) {
    fprintf(stderr, "Unknown table magic number %s; trying %s\n",
            Hex64(magic).c_str(), rocksdb_cuckoo::kCuckooHashTableName);
  }
  ConfigOptions config;
  config.ignore_unsupported_options = false;
  config.ignore_unknown_options = false;
  std::shared_ptr<TableFactory> factory;
  Status s = TableFactory::CreateFromString(
      config, rocksdb_cuckoo::kCuckooHashTableName, &factory);
  if (s.ok() && factory == nullptr) {
    // An unregistered id can come back OK and null.
    s = Status::NotFound("TableFactory not registered",
                         rocksdb_cuckoo::kCuckooHashTableName);
  }
  if (!s.ok()) {
    return s;
  }
  options->table_factory = factory;
  *format = rocksdb_cuckoo::kCuckooHashTableName;
  return Status::OK();
}

// Opens `path` with the comparator in `base` (and, when `override_factory`,
// its table factory); fills *table.
Status OpenWith(const std::string& path, const Options& base,
                bool override_factory, std::unique_ptr<OpenedTable>* table,
                std::string* format) {
  const std::shared_ptr<FileSystem>& fs = base.env->GetFileSystem();
  uint64_t file_size = 0;
  Status s = fs->GetFileSize(path, IOOptions(), &file_size, nullptr);
  if (!s.ok()) {
    return s;
  }
  if (file_size == 0) {
    return Status::Corruption(path, "empty file");
  }
  uint64_t magic = 0;
  s = ReadMagic(fs.get(), path, file_size, &magic);
  if (!s.ok()) {
    return s;
  }
  Options options = base;
  if (override_factory) {
    *format = options.table_factory->Name();
  } else {
    s = ChooseFactoryByMagic(magic, &options, format);
    if (!s.ok()) {
      return s;
    }
  }

  auto t = std::make_unique<OpenedTable>(options);
  t->file_size = file_size;
  t->magic = magic;
  t->env_options.use_mmap_reads = t->options.allow_mmap_reads;
  std::unique_ptr<FSRandomAccessFile> file;
  s = fs->NewRandomAccessFile(path, FileOptions(t->env_options), &file,
                              nullptr);
  if (!s.ok()) {
    return s;
  }
  std::unique_ptr<RandomAccessFileReader> file_reader(
      new RandomAccessFileReader(std::move(file), path));
  TableReaderOptions reader_options = rocksdb_cuckoo::MakeTableReaderOptions(
      t->ioptions, t->options.prefix_extractor, t->env_options, t->icmp);
  // A lone file has no DB to tell its largest sequence number; this lets
  // files ingested with a global sequence number open too.
  reader_options.largest_seqno = ROCKSDB_NAMESPACE::kMaxSequenceNumber;
  s = t->options.table_factory->NewTableReader(
      reader_options, std::move(file_reader), t->file_size, &t->reader);
  if (s.ok() && t->reader == nullptr) {
    s = Status::Corruption(path, "table factory returned no reader");
  }
  if (!s.ok()) {
    return s;
  }
  *table = std::move(t);
  return Status::OK();
}

// Opens the file, then reopens it with the comparator its properties name
// when that differs from the one it was opened with (keys of a file sorted by
// another comparator would look out of order).
Status OpenTableFile(const std::string& path, const Options& base,
                     bool override_factory, std::unique_ptr<OpenedTable>* table,
                     std::string* format) {
  Status s = OpenWith(path, base, override_factory, table, format);
  if (!s.ok()) {
    return s;
  }
  auto props = (*table)->reader->GetTableProperties();
  if (props == nullptr || props->comparator_name.empty() ||
      props->comparator_name == base.comparator->Name()) {
    return s;
  }
  ConfigOptions config;
  config.ignore_unsupported_options = false;
  const Comparator* cmp = nullptr;
  Status cs =
      Comparator::CreateFromString(config, props->comparator_name, &cmp);
  if (!cs.ok() || cmp == nullptr) {
    fprintf(stderr,
            "Warning: file was written with comparator %s, which is not "
            "available here; using %s\n",
            props->comparator_name.c_str(), base.comparator->Name());
    return s;
  }
  Options with_cmp = base;
  with_cmp.comparator = cmp;
  table->reset();
  return OpenWith(path, with_cmp, override_factory, table, format);
}

// Values of user-collected properties may be binary; print those in hex.
std::string Printable(const std::string& value) {
  bool printable = std::all_of(value.begin(), value.end(),
                               [](char c) { return c >= 0x20 && c < 0x7f; });
  return printable ? value : "0x" + Slice(value).ToString(/*hex=*/true);
}

void ShowProperties(const TableProperties& props) {
  fprintf(stdout, "Table Properties:\n");
  fprintf(stdout, "------------------------------\n  %s",
          props.ToString("\n  ", ": ").c_str());
  fprintf(stdout, "\n");
  if (!props.user_collected_properties.empty()) {
    fprintf(stdout, "User collected properties:\n");
    for (const auto& kv : props.user_collected_properties) {
      fprintf(stdout, "  %s: %s\n", kv.first.c_str(),
              Printable(kv.second).c_str());
    }
  }
  if (!props.readable_properties.empty()) {
    fprintf(stdout, "Readable properties:\n");
    for (const auto& kv : props.readable_properties) {
      fprintf(stdout, "  %s: %s\n", kv.first.c_str(), kv.second.c_str());
    }
  }
}

// Walks the point entries in [from, to), printing them when `print`;
// checks parse-ability and order. Returns the first error; counts entries
// read (and errors found) in the out-parameters.
Status ReadEntries(const OpenedTable& table, const Flags& flags, bool print,
                   uint64_t* entries, uint64_t* errors) {
  ReadOptions read_options;
  read_options.verify_checksums = flags.verify_checksum;
  std::unique_ptr<InternalIterator> iter(table.reader->NewIterator(
      read_options, table.options.prefix_extractor.get(), /*arena=*/nullptr,
      /*skip_filters=*/false, TableReaderCaller::kSSTDumpTool));
  if (iter == nullptr) {
    return Status::Corruption("table reader returned no iterator");
  }
  const Comparator* ucmp = table.icmp.user_comparator();
  if (flags.has_from) {
    InternalKey target;
    target.SetMinPossibleForUserKey(flags.from);
    iter->Seek(target.Encode());
  } else {
    iter->SeekToFirst();
  }
  Status first_error;
  std::string prev_key;
  bool have_prev = false;
  *entries = 0;
  *errors = 0;
  for (; iter->Valid(); iter->Next()) {
    if (flags.read_num > 0 && *entries >= flags.read_num) {
      break;
    }
    Slice key = iter->key();
    ParsedInternalKey ikey;
    Status ps = ROCKSDB_NAMESPACE::ParseInternalKey(key, &ikey,
                                                    /*log_err_key=*/true);
    if (!ps.ok()) {
      ++*errors;
      fprintf(stderr, "Entry %" PRIu64 ": %s\n", *entries,
              ps.ToString().c_str());
      if (first_error.ok()) {
        first_error = ps;
      }
      ++*entries;
      continue;
    }
    if (flags.has_to && ucmp->Compare(ikey.user_key, flags.to) >= 0) {
      break;
    }
    if (have_prev && table.icmp.Compare(Slice(prev_key), key) >= 0) {
      ++*errors;
      std::string msg =
          "key out of order: " + ikey.DebugString(true, flags.output_hex) +
          " after " + Slice(prev_key).ToString(/*hex=*/true);
      fprintf(stderr, "Entry %" PRIu64 ": %s\n", *entries, msg.c_str());
      if (first_error.ok()) {
        first_error = Status::Corruption(msg);
      }
    }
    prev_key.assign(key.data(), key.size());
    have_prev = true;
    ++*entries;
    if (print) {
      Slice value = iter->value();
      fprintf(stdout, "%s => %s\n",
              ikey.DebugString(true, flags.output_hex).c_str(),
              value.ToString(flags.output_hex).c_str());
    }
  }
  Status s = iter->status();
  if (!s.ok()) {
    ++*errors;
    fprintf(stderr, "Iterator error: %s\n", s.ToString().c_str());
    if (first_error.ok()) {
      first_error = s;
    }
  }
  return first_error;
}

// Range tombstones live beside the point entries; print them after.
Status ReadRangeTombstones(const OpenedTable& table, const Flags& flags,
                           bool print, uint64_t* count) {
  *count = 0;
  ReadOptions read_options;
  read_options.verify_checksums = flags.verify_checksum;
  std::unique_ptr<FragmentedRangeTombstoneIterator> iter(
      table.reader->NewRangeTombstoneIterator(read_options));
  if (iter == nullptr) {
    return Status::OK();
  }
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    ++*count;
    if (print) {
      ParsedInternalKey start(iter->start_key(), iter->seq(),
                              ROCKSDB_NAMESPACE::kTypeRangeDeletion);
      fprintf(stdout, "%s => %s\n",
              start.DebugString(true, flags.output_hex).c_str(),
              iter->end_key().ToString(flags.output_hex).c_str());
    }
  }
  return Status::OK();
}

// Processes one file; returns true when it had no error.
bool DumpFile(const std::string& path, const Flags& flags, const Options& base,
              bool override_factory) {
  fprintf(
      stdout, "from [%s] to [%s]\n",
      flags.has_from ? Slice(flags.from).ToString(flags.output_hex).c_str()
                     : "",
      flags.has_to ? Slice(flags.to).ToString(flags.output_hex).c_str() : "");
  fprintf(stdout, "Process %s\n", path.c_str());
  std::unique_ptr<OpenedTable> table;
  std::string format;
  Status s = OpenTableFile(path, base, override_factory, &table, &format);
  if (!s.ok()) {
    fprintf(stderr, "%s: cannot open table: %s\n", path.c_str(),
            s.ToString().c_str());
    return false;
  }
  fprintf(stdout, "Sst file format: %s (magic number %s)\n", format.c_str(),
          Hex64(table->magic).c_str());

  bool ok = true;
  if (flags.command == "scan" || flags.command == "check") {
    bool print = flags.command == "scan";
    uint64_t entries = 0;
    uint64_t errors = 0;
    s = ReadEntries(*table, flags, print, &entries, &errors);
    uint64_t tombstones = 0;
    Status ts = ReadRangeTombstones(*table, flags, print, &tombstones);
    if (s.ok()) {
      s = ts;
    }
    if (flags.command == "check") {
      auto props = table->reader->GetTableProperties();
      bool whole_file = !flags.has_from && !flags.has_to && flags.read_num == 0;
      // Block-based tables count range deletions in num_entries; accept
      // either convention.
      if (s.ok() && whole_file && props != nullptr &&
          entries != props->num_entries &&
          entries != props->num_entries - props->num_range_deletions) {
        ++errors;
        s = Status::Corruption("read " + std::to_string(entries) +
                               " entries but the table properties say " +
                               std::to_string(props->num_entries));
        fprintf(stderr, "%s\n", s.ToString().c_str());
      }
      fprintf(stdout,
              "check: %" PRIu64 " entries, %" PRIu64
              " range tombstones, "
              "%" PRIu64 " errors\n",
              entries, tombstones, errors);
    }
    if (!s.ok()) {
      fprintf(stderr, "%s: %s failed: %s\n", path.c_str(),
              flags.command.c_str(), s.ToString().c_str());
      ok = false;
    }
  } else if (flags.command == "verify") {
    ReadOptions read_options;
    read_options.verify_checksums = true;
    s = table->reader->VerifyChecksum(read_options,
                                      TableReaderCaller::kSSTDumpTool);
    if (s.ok()) {
      fprintf(stdout, "The file is ok\n");
    } else {
      fprintf(stderr, "%s: verify failed: %s\n", path.c_str(),
              s.ToString().c_str());
      ok = false;
    }
  }

  if (flags.show_properties) {
    auto props = table->reader->GetTableProperties();
    if (props == nullptr) {
      fprintf(stderr, "%s: the table reader has no properties\n", path.c_str());
      ok = false;
    } else {
      ShowProperties(*props);
    }
  }
  return ok;
}

// Expands a directory into its *.sst files, sorted by name.
Status ExpandPath(const std::string& path, std::vector<std::string>* files) {
  const auto& fs = FileSystem::Default();
  bool is_dir = false;
  Status s = fs->IsDirectory(path, IOOptions(), &is_dir, nullptr);
  if (!s.ok()) {
    // Missing paths are reported (clearly) when the file is opened.
    files->push_back(path);
    return Status::OK();
  }
  if (!is_dir) {
    files->push_back(path);
    return Status::OK();
  }
  std::vector<std::string> children;
  s = fs->GetChildren(path, IOOptions(), &children, nullptr);
  if (!s.ok()) {
    return s;
  }
  std::sort(children.begin(), children.end());
  size_t before = files->size();
  for (const auto& child : children) {
    if (child.size() > 4 && child.compare(child.size() - 4, 4, ".sst") == 0) {
      files->push_back(path + "/" + child);
    }
  }
  if (files->size() == before) {
    return Status::NotFound(path, "no .sst files in this directory");
  }
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  bool help = false;
  if (!ParseFlags(argc, argv, &flags, &help)) {
    PrintUsage(stderr);
    return kExitUsage;
  }
  if (help) {
    PrintUsage(stdout);
    return kExitOk;
  }

  // The static library registers nothing by itself.
  register_rocksdb_cuckoo(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");

  Options base;
  bool override_factory = false;
  if (!flags.options_string.empty()) {
    ConfigOptions config;
    config.ignore_unsupported_options = false;
    config.ignore_unknown_options = false;
    ColumnFamilyOptions cf_base;
    ColumnFamilyOptions cf;
    Status s = ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
        config, cf_base, flags.options_string, &cf);
    if (!s.ok()) {
      fprintf(stderr, "Invalid --options_string: %s\n", s.ToString().c_str());
      return kExitUsage;
    }
    if (cf.table_factory == nullptr) {
      fprintf(stderr, "Invalid --options_string: no table factory\n");
      return kExitUsage;
    }
    // A table_factory named in the string is a new object.
    override_factory = cf.table_factory != cf_base.table_factory;
    base = Options(DBOptions(), cf);
  }

  std::vector<std::string> files;
  for (const auto& path : flags.paths) {
    Status s = ExpandPath(path, &files);
    if (!s.ok()) {
      fprintf(stderr, "%s\n", s.ToString().c_str());
      return kExitError;
    }
  }
  bool all_ok = true;
  for (const auto& file : files) {
    all_ok = DumpFile(file, flags, base, override_factory) && all_ok;
  }
  return all_ok ? kExitOk : kExitError;
}
