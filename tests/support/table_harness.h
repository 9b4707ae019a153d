// Builds a table file with any TableFactory straight from internal keys and
// opens a TableReader on it, so tests and micro-benchmarks can exercise a
// format without a DB around it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/table_properties_collector.h"
#include "file/random_access_file_reader.h"
#include "file/writable_file_writer.h"
#include "options/cf_options.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"
#include "table/standalone_table_compat.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "tests/support/table_lookups.h"

namespace rocksdb_cuckoo::testing {

using namespace ROCKSDB_NAMESPACE;

class TableHarness {
 public:
  TableHarness(std::shared_ptr<TableFactory> factory, const std::string& path,
               bool mmap, std::shared_ptr<MergeOperator> merge = nullptr)
      : path_(path) {
    options_.table_factory = std::move(factory);
    options_.allow_mmap_reads = mmap;
    options_.merge_operator = std::move(merge);
    ioptions_.reset(new ImmutableOptions(options_));
    moptions_.reset(new MutableCFOptions(options_));
  }
  ~TableHarness() {
    reader_.reset();
    options_.env->DeleteFile(path_).PermitUncheckedError();
  }

  // entries: (internal key, value), in any order; sorted here.
  Status Build(std::vector<std::pair<std::string, std::string>> entries) {
    std::sort(entries.begin(), entries.end(), [this](auto& a, auto& b) {
      return icomp_.Compare(a.first, b.first) < 0;
    });
    const Status s = Write(entries);
    return s.ok() ? Open() : s;
  }

  // Writes the file from entries already in internal-key order, as a flush
  // or compaction hands them to the builder; opens nothing.
  Status Write(
      const std::vector<std::pair<std::string, std::string>>& entries) {
    std::unique_ptr<FSWritableFile> file;
    FileSystem* fs = ioptions_->fs.get();
    Status s = fs->NewWritableFile(path_, FileOptions(), &file, nullptr);
    if (!s.ok()) return s;
    WritableFileWriter writer(std::move(file), path_, FileOptions());
    const TableBuilderOptions tbo =
        build_context_.BuilderOptions(*ioptions_, *moptions_, icomp_);
    std::unique_ptr<TableBuilder> builder(
        options_.table_factory->NewTableBuilder(tbo, &writer));
    for (auto& e : entries) builder->Add(e.first, e.second);
    estimated_file_size_ = builder->EstimatedFileSize();
    s = builder->Finish();
    num_entries_ = builder->NumEntries();
    if (!s.ok()) return s;
    return CloseWrittenFile(&writer);
  }

  // The written file's size; 0 if it cannot be told.
  uint64_t FileSize() const {
    uint64_t size = 0;
    if (!ioptions_->fs->GetFileSize(path_, IOOptions(), &size, nullptr).ok()) {
      return 0;
    }
    return size;
  }

  Status Open() {
    reader_.reset();
    uint64_t size = 0;
    Status s = ioptions_->fs->GetFileSize(path_, IOOptions(), &size, nullptr);
    if (!s.ok()) return s;
    FileOptions fo;
    fo.use_mmap_reads = options_.allow_mmap_reads;
    std::unique_ptr<FSRandomAccessFile> file;
    s = ioptions_->fs->NewRandomAccessFile(path_, fo, &file, nullptr);
    if (!s.ok()) return s;
    std::unique_ptr<RandomAccessFileReader> reader(
        new RandomAccessFileReader(std::move(file), path_));
    const TableReaderOptions tro = MakeTableReaderOptions(
        *ioptions_, moptions_->prefix_extractor, env_options_, icomp_);
    return options_.table_factory->NewTableReader(tro, std::move(reader), size,
                                                  &reader_);
  }

  using GetResult = LookupResult;

  GetResult Get(const Slice& user_key,
                SequenceNumber snapshot = kMaxSequenceNumber,
                const ReadOptions& read_options = ReadOptions()) {
    return GetFromTable(reader_.get(), options_.merge_operator.get(), user_key,
                        snapshot, read_options);
  }

  // One TableReader::MultiGet of up to MultiGetContext::MAX_BATCH_SIZE
  // keys, as a DB hands a batch to one file; a result per key, in order.
  std::vector<GetResult> MultiGet(
      const std::vector<std::string>& user_keys,
      SequenceNumber snapshot = kMaxSequenceNumber,
      const ReadOptions& read_options = ReadOptions()) {
    return MultiGetFromTable(reader_.get(), options_.merge_operator.get(),
                             user_keys, snapshot, read_options);
  }

  TableReader* reader() { return reader_.get(); }
  const std::string& path() const { return path_; }
  uint64_t num_built_entries() const { return num_entries_; }
  // What the builder estimated, after the last entry, the file would take.
  uint64_t estimated_file_size() const { return estimated_file_size_; }
  const InternalKeyComparator& icomp() const { return icomp_; }
  Options& options() { return options_; }

 private:
  std::string path_;
  Options options_;
  std::unique_ptr<ImmutableOptions> ioptions_;
  std::unique_ptr<MutableCFOptions> moptions_;
  InternalKeyComparator icomp_{BytewiseComparator()};
  // The builder and reader options refer to these: they must outlive them.
  const StandaloneBuildContext build_context_;
  const EnvOptions env_options_;
  std::unique_ptr<TableReader> reader_;
  uint64_t num_entries_ = 0;
  uint64_t estimated_file_size_ = 0;
};

}  // namespace rocksdb_cuckoo::testing
