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
#include "table/get_context.h"
#include "table/multiget_context.h"
#include "table/standalone_table_compat.h"
#include "table/table_builder.h"
#include "table/table_reader.h"

namespace rocksdb_cuckoo::testing {

using namespace ROCKSDB_NAMESPACE;

inline std::string InternalKeyOf(const Slice& user_key, SequenceNumber seq,
                                 ValueType type) {
  std::string key;
  AppendInternalKey(&key, ParsedInternalKey(user_key, seq, type));
  return key;
}

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
    s = builder->Finish();
    num_entries_ = builder->NumEntries();
    if (!s.ok()) return s;
    s = CloseWrittenFile(&writer);
    if (!s.ok()) return s;
    return Open();
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

  struct GetResult {
    GetContext::GetState state;
    std::string value;
    std::vector<std::string> operands;  // merge operands, newest first
    bool pinned = false;
    Status status;
  };

  GetResult Get(const Slice& user_key,
                SequenceNumber snapshot = kMaxSequenceNumber,
                const ReadOptions& read_options = ReadOptions()) {
    GetResult r;
    PinnableSlice value;
    MergeContext merge_context;
    SequenceNumber max_covering_tombstone_seq = 0;
    GetContext ctx(BytewiseComparator(), options_.merge_operator.get(), nullptr,
                   nullptr, GetContext::kNotFound, user_key, &value, nullptr,
                   nullptr, &merge_context, /*do_merge=*/true,
                   &max_covering_tombstone_seq, SystemClock::Default().get());
    const std::string lookup = InternalKeyOf(user_key, snapshot, kTypeValue);
    r.status = reader_->Get(read_options, lookup, &ctx, nullptr);
    r.state = ctx.State();
    r.value = value.ToString();
    r.pinned = value.IsPinned();
    for (const Slice& op : merge_context.GetOperands()) {
      r.operands.push_back(op.ToString());
    }
    return r;
  }

  // One TableReader::MultiGet of up to MultiGetContext::MAX_BATCH_SIZE
  // keys, as a DB hands a batch to one file; a result per key, in order.
  std::vector<GetResult> MultiGet(
      const std::vector<std::string>& user_keys,
      SequenceNumber snapshot = kMaxSequenceNumber,
      const ReadOptions& read_options = ReadOptions()) {
    const size_t n = user_keys.size();
    std::vector<PinnableSlice> values(n);
    std::vector<Status> statuses(n);
    std::vector<MergeContext> merge_contexts(n);
    std::vector<SequenceNumber> tombstone_seqs(n, 0);
    // KeyContext keeps a pointer to its key's Slice.
    const std::vector<Slice> keys(user_keys.begin(), user_keys.end());
    std::vector<KeyContext> contexts;
    contexts.reserve(n);
    for (size_t i = 0; i < n; i++) {
      AddKeyContext(&contexts, keys[i], &values[i], &statuses[i]);
    }
    autovector<KeyContext*, MultiGetContext::MAX_BATCH_SIZE> sorted;
    for (auto& c : contexts) sorted.push_back(&c);
    MultiGetContext mget(&sorted, 0, n, snapshot, read_options, nullptr,
                         nullptr);
    std::vector<std::unique_ptr<GetContext>> get_contexts;
    for (size_t i = 0; i < n; i++) {
      get_contexts.emplace_back(new GetContext(
          BytewiseComparator(), options_.merge_operator.get(), nullptr, nullptr,
          GetContext::kNotFound, *contexts[i].key, &values[i], nullptr, nullptr,
          &merge_contexts[i], /*do_merge=*/true, &tombstone_seqs[i],
          SystemClock::Default().get()));
      contexts[i].get_context = get_contexts[i].get();
    }
    MultiGetContext::Range range = mget.GetMultiGetRange();
    reader_->MultiGet(read_options, &range, nullptr);
    std::vector<GetResult> results(n);
    for (size_t i = 0; i < n; i++) {
      results[i].status = statuses[i];
      results[i].state = get_contexts[i]->State();
      results[i].value = values[i].ToString();
      results[i].pinned = values[i].IsPinned();
      for (const Slice& op : merge_contexts[i].GetOperands()) {
        results[i].operands.push_back(op.ToString());
      }
    }
    return results;
  }

  TableReader* reader() { return reader_.get(); }
  const std::string& path() const { return path_; }
  uint64_t num_built_entries() const { return num_entries_; }
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
};

}  // namespace rocksdb_cuckoo::testing
