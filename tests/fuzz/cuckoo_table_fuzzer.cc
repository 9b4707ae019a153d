// libFuzzer target: opens arbitrary bytes as a CuckooHashTable file through
// the real factory and, when the file opens, drives every read path of the
// reader. A clear Status is the only acceptable outcome for bad input; a
// crash, sanitizer report, leak or hang is a reader bug, and so is a key
// that Get and MultiGet answer differently.
//
// Every input is tried twice: as it is, and with its checksums repaired
// (layout, regions, footer). Checksums stop nearly every mutation at open;
// the repaired copy lets mutations of the structure reach the lookup code,
// as a file written with checksum=kNoChecksum (or a crafted one) would.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/range_tombstone_fragmenter.h"
#include "file/random_access_file_reader.h"
#include "memory/arena.h"
#include "options/cf_options.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"
#include "table/built_in_formats.h"
#include "table/cuckoo_hash_table.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/get_context.h"
#include "table/internal_iterator.h"
#include "table/multiget_context.h"
#include "table/standalone_table_compat.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/table_lookups.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace {

using namespace ROCKSDB_NAMESPACE;
using rocksdb_cuckoo::kLayoutSize;
using rocksdb_cuckoo::kRocksDBFooterSize;
using rocksdb_cuckoo::testing::GetFromTable;
using rocksdb_cuckoo::testing::InternalKeyOf;
using rocksdb_cuckoo::testing::LookupDifference;
using rocksdb_cuckoo::testing::LookupResult;
using rocksdb_cuckoo::testing::MultiGetFromTable;

// Bounds the work per input: a damaged file may claim millions of entries.
constexpr int kMaxScanSteps = 512;
constexpr size_t kMaxProbeKeys = 24;
constexpr size_t kMaxOlderSnapshots = 3;

// The file as the reader sees it. With zero_copy (used with
// allow_mmap_reads, like a mapped file) Read returns pointers into an
// exactly sized heap block, so ASan flags a read one byte past the end;
// otherwise it copies into the caller's buffer, like pread.
class BytesFile : public FSRandomAccessFile {
 public:
  BytesFile(const char* data, size_t size, bool zero_copy)
      : data_(static_cast<char*>(malloc(size == 0 ? 1 : size))),
        size_(size),
        zero_copy_(zero_copy) {
    if (size > 0) memcpy(data_, data, size);
  }
  ~BytesFile() override { free(data_); }

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& /*options*/,
                Slice* result, char* scratch,
                IODebugContext* /*dbg*/) const override {
    if (offset >= size_) {
      *result = Slice();
      return IOStatus::OK();
    }
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
    if (zero_copy_ || scratch == nullptr) {
      *result = Slice(data_ + offset, n);
    } else {
      memcpy(scratch, data_ + offset, n);
      *result = Slice(scratch, n);
    }
    return IOStatus::OK();
  }

 private:
  char* const data_;
  const size_t size_;
  const bool zero_copy_;
};

struct FuzzEnv {
  FuzzEnv() {
    options.table_factory = rocksdb_cuckoo::NewCuckooHashTableFactory();
    options.merge_operator =
        std::make_shared<rocksdb_cuckoo::testing::CommaAppendOperator>();
    for (bool mmap : {false, true}) {
      options.allow_mmap_reads = mmap;
      ioptions[mmap].reset(new ImmutableOptions(options));
    }
  }
  Options options;
  MutableCFOptions moptions{options};
  std::unique_ptr<ImmutableOptions> ioptions[2];
  InternalKeyComparator icomp{BytewiseComparator()};
  // CUCKOO_FUZZ_VERBOSE=1: print how each open ended (when replaying).
  const bool verbose = getenv("CUCKOO_FUZZ_VERBOSE") != nullptr;
};

FuzzEnv& TheEnv() {
  static FuzzEnv* env =
      new FuzzEnv();  // never destroyed: no exit-time ordering
  return *env;
}

// Reads every byte, so ASan checks the whole range.
volatile unsigned char g_sink;
void Touch(const Slice& s) {
  unsigned char acc = 0;
  for (size_t i = 0; i < s.size(); i++) acc ^= static_cast<unsigned char>(s[i]);
  g_sink = g_sink ^ acc;
}

// The value a lookup found, every byte read, so ASan checks them.
void TouchResult(const LookupResult& r) {
  Touch(r.value);
  for (const std::string& op : r.operands) Touch(op);
}

// Looks every key up by Get and then in MultiGet batches, at `snapshot`,
// and stops the fuzzer if the two answers to any key differ: both read the
// same file, so they must report the same value or the same damage. `keep`
// takes one value found by Get, pinned to the file.
void GetAndMultiGet(TableReader* reader, const std::vector<std::string>& keys,
                    SequenceNumber snapshot, const ReadOptions& read_options,
                    PinnableSlice* keep) {
  const MergeOperator* merge = TheEnv().options.merge_operator.get();
  std::vector<LookupResult> by_get;
  for (const std::string& key : keys) {
    by_get.push_back(
        GetFromTable(reader, merge, key, snapshot, read_options, keep));
    TouchResult(by_get.back());
  }
  const size_t batch = MultiGetContext::MAX_BATCH_SIZE;
  for (size_t first = 0; first < keys.size(); first += batch) {
    const std::vector<std::string> part(
        keys.begin() + first,
        keys.begin() + std::min(keys.size(), first + batch));
    const std::vector<LookupResult> by_multiget =
        MultiGetFromTable(reader, merge, part, snapshot, read_options);
    for (size_t i = 0; i < part.size(); i++) {
      TouchResult(by_multiget[i]);
      const std::string difference =
          LookupDifference(by_get[first + i], by_multiget[i]);
      if (!difference.empty()) {
        fprintf(stderr,
                "Get and MultiGet differ (key %zu, snapshot %llu, "
                "verify_checksums %d): %s\n",
                first + i, static_cast<unsigned long long>(snapshot),
                read_options.verify_checksums, difference.c_str());
        abort();
      }
    }
  }
}

// RocksDB's ParseInternalKey, which DBIter and compaction call on every key
// an iterator yields, asserts on type bytes that are no ValueType: the
// reader must stop such an entry with a Corruption status.
bool TypeByteParseable(const Slice& ikey) {
  if (ikey.size() < 8) abort();  // the reader promises at least 8 bytes
  const auto type = static_cast<unsigned char>(ikey[ikey.size() - 8]);
  if (type > kMaxValue) {
    fprintf(stderr, "iterator yielded an internal key of type 0x%02x\n", type);
    abort();
  }
  return true;
}

// Walks the iterator; collects the user keys it sees (and their sequence
// numbers) as lookup probes, so Get and MultiGet hit entries too.
void ExerciseIterator(InternalIterator* it, std::vector<std::string>* keys,
                      std::vector<SequenceNumber>* seqs) {
  int steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < kMaxScanSteps;
       it->Next(), steps++) {
    Touch(it->key());
    Touch(it->value());
    if (!TypeByteParseable(it->key())) continue;
    ParsedInternalKey parsed;
    if (keys->size() < kMaxProbeKeys &&
        ParseInternalKey(it->key(), &parsed, false).ok()) {
      keys->push_back(parsed.user_key.ToString());
      seqs->push_back(parsed.sequence);
    }
  }
  it->status().PermitUncheckedError();
  steps = 0;
  for (it->SeekToLast(); it->Valid() && steps < kMaxScanSteps;
       it->Prev(), steps++) {
    Touch(it->key());
    Touch(it->value());
  }
  it->status().PermitUncheckedError();
}

void ExerciseSeeks(InternalIterator* it, const std::vector<std::string>& keys,
                   const std::vector<SequenceNumber>& seqs) {
  for (size_t i = 0; i < keys.size(); i++) {
    for (SequenceNumber seq :
         {kMaxSequenceNumber, seqs[i], SequenceNumber{0}}) {
      const std::string target = InternalKeyOf(keys[i], seq);
      it->Seek(target);
      if (it->Valid()) {
        Touch(it->key());
        it->Prev();
        if (it->Valid()) Touch(it->value());
      }
      it->SeekForPrev(target);
      if (it->Valid()) {
        Touch(it->key());
        it->Next();
        if (it->Valid()) Touch(it->value());
      }
      it->status().PermitUncheckedError();
    }
  }
}

void ExerciseRangeTombstones(TableReader* reader,
                             const std::vector<std::string>& keys) {
  std::unique_ptr<FragmentedRangeTombstoneIterator> it(
      reader->NewRangeTombstoneIterator(ReadOptions()));
  if (it == nullptr) return;
  int steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < kMaxScanSteps;
       it->Next(), steps++) {
    Touch(it->start_key());
    Touch(it->end_key());
    Touch(it->key());
    Touch(it->value());
  }
  steps = 0;
  for (it->SeekToLast(); it->Valid() && steps < kMaxScanSteps;
       it->Prev(), steps++) {
    Touch(it->start_key());
  }
  for (const std::string& k : keys) {
    it->Seek(k);
    if (it->Valid()) Touch(it->end_key());
    it->SeekForPrev(k);
    if (it->Valid()) Touch(it->start_key());
    (void)it->MaxCoveringTombstoneSeqnum(k);
  }
  it->status().PermitUncheckedError();
}

// Everything a DB may ask of an open table. `keep` receives one value that
// the caller reads after the reader is destroyed (the pin must keep the
// file's memory alive).
void Exercise(TableReader* reader, const Slice& input, PinnableSlice* keep) {
  std::vector<std::string> keys;
  std::vector<SequenceNumber> seqs;
  {
    std::unique_ptr<InternalIterator> it(
        reader->NewIterator(ReadOptions(), nullptr, nullptr, false,
                            TableReaderCaller::kUncategorized));
    ExerciseIterator(it.get(), &keys, &seqs);
    ExerciseSeeks(it.get(), keys, seqs);
  }
  {
    // Compactions place iterators in an arena.
    Arena arena;
    InternalIterator* it = reader->NewIterator(
        ReadOptions(), nullptr, &arena, false, TableReaderCaller::kCompaction);
    it->SeekToFirst();
    if (it->Valid()) Touch(it->value());
    it->status().PermitUncheckedError();
    it->~InternalIterator();
  }

  // Absent keys next to the present ones, and keys cut from the input.
  const size_t present = keys.size();
  for (size_t i = 0; i < present && keys.size() < 2 * kMaxProbeKeys; i++) {
    keys.push_back(keys[i] + '\0');
    keys.push_back(keys[i].substr(0, keys[i].size() / 2));
    seqs.push_back(kMaxSequenceNumber);
    seqs.push_back(kMaxSequenceNumber);
  }
  keys.push_back("");
  keys.push_back(std::string("\0\0\0\0\0\0\0\1", 8));
  keys.push_back(input.ToString().substr(0, 8));
  keys.push_back(input.ToString().substr(input.size() / 2, 12));
  seqs.resize(keys.size(), kMaxSequenceNumber);

  // Every key at the newest snapshot, with and without checksum
  // verification; then just before each found version, which walks the
  // versions of a key.
  for (const bool verify : {true, false}) {
    ReadOptions read_options;
    read_options.verify_checksums = verify;
    GetAndMultiGet(reader, keys, kMaxSequenceNumber, read_options,
                   verify ? keep : nullptr);
  }
  std::set<SequenceNumber> older;
  for (const SequenceNumber seq : seqs) {
    if (seq == 0 || seq == kMaxSequenceNumber) continue;
    older.insert(seq - 1);
    if (older.size() == kMaxOlderSnapshots) break;
  }
  for (const SequenceNumber snapshot : older) {
    GetAndMultiGet(reader, keys, snapshot, ReadOptions(), nullptr);
  }

  ExerciseRangeTombstones(reader, keys);

  for (size_t i = 0; i < keys.size(); i++) {
    const std::string a = InternalKeyOf(keys[i], kMaxSequenceNumber);
    const std::string b = InternalKeyOf(keys[keys.size() - 1 - i], 0);
    (void)rocksdb_cuckoo::ApproximateOffsetOf(
        reader, a, TableReaderCaller::kUncategorized);
    (void)rocksdb_cuckoo::ApproximateSize(reader, a, b,
                                          TableReaderCaller::kUncategorized);
  }
  std::vector<TableReader::Anchor> anchors;
  reader->ApproximateKeyAnchors(ReadOptions(), anchors).PermitUncheckedError();
  for (const auto& anchor : anchors) Touch(anchor.user_key);
  reader->VerifyChecksum(ReadOptions(), TableReaderCaller::kUncategorized)
      .PermitUncheckedError();
  auto props = reader->GetTableProperties();
  if (props != nullptr) Touch(props->ToString());
  (void)reader->ApproximateMemoryUsage();
}

void OpenAndExercise(const std::string& file, bool mmap) {
  // The factory hands files of RocksDB's own formats to RocksDB's readers;
  // this fuzzer is about ours.
  if (file.size() >= 8) {
    const uint64_t magic = DecodeFixed64(file.data() + file.size() - 8);
    if (magic != rocksdb_cuckoo::kCuckooHashTableMagicNumber &&
        rocksdb_cuckoo::BuiltInFactoryFor(magic) != nullptr) {
      return;
    }
  }
  FuzzEnv& env = TheEnv();
  std::unique_ptr<FSRandomAccessFile> fs_file(
      new BytesFile(file.data(), file.size(), mmap));
  std::unique_ptr<RandomAccessFileReader> file_reader(
      new RandomAccessFileReader(std::move(fs_file), "fuzz.sst"));
  // Largest seqno unknown (kMaxSequenceNumber): an ingested file's global
  // seqno property is then taken as it is.
  const EnvOptions env_options;
  TableReaderOptions tro = rocksdb_cuckoo::MakeTableReaderOptions(
      *env.ioptions[mmap], env.moptions.prefix_extractor, env_options,
      env.icomp);
  tro.largest_seqno = kMaxSequenceNumber;
  std::unique_ptr<TableReader> reader;
  Status s = env.options.table_factory->NewTableReader(
      tro, std::move(file_reader), file.size(), &reader);
  if (env.verbose) {
    fprintf(stderr, "open (%s, %zu bytes): %s\n", mmap ? "mmap" : "loaded",
            file.size(), s.ToString().c_str());
  }
  if (!s.ok()) {
    if (reader != nullptr) abort();  // a failed open must not hand a reader
    return;
  }
  PinnableSlice kept;
  Exercise(reader.get(), file, &kept);
  reader.reset();
  Touch(kept);  // still pinned: the file's memory must outlive the reader
}

// Recomputes every checksum (and the footer) so the reader's own bounds
// checks, not the checksums, are what stands between damage and memory.
void RepairChecksums(std::string* file) {
  using rocksdb_cuckoo::ComputeChecksum;
  if (file->size() < kLayoutSize + kRocksDBFooterSize) return;
  char* layout = &(*file)[file->size() - kRocksDBFooterSize - kLayoutSize];
  auto seal = [layout] {
    EncodeFixed64(layout + kLayoutSize - 8,
                  ComputeChecksum(kXXH3, layout, kLayoutSize - 8));
  };
  seal();
  rocksdb_cuckoo::Layout l;
  if (!l.DecodeFrom(Slice(layout, kLayoutSize), file->size()).ok()) return;
  const uint64_t regions[6][2] = {
      {0, l.data_size},
      {l.order_offset, l.order_size()},
      {l.buckets_offset, l.buckets_size()},
      {l.stash_offset, l.stash_size()},
      {l.range_del_offset, l.range_del_size},
      {l.meta_offset, l.meta_size},
  };
  // The region checksums end where the layout's own checksum starts.
  char* checksums = layout + kLayoutSize - 8 - 6 * 8;
  char* chunk_sums = &(*file)[l.chunk_sums_offset()];
  for (int i = 0; i < 6; i++) {
    const char* region = file->data() + regions[i][0];
    if (i >= 3 || !l.chunked()) {
      EncodeFixed64(checksums + 8 * i,
                    ComputeChecksum(l.checksum, region, regions[i][1]));
      continue;
    }
    // Format 2's bulk regions: each chunk, then the list of chunk sums.
    const uint64_t chunks = rocksdb_cuckoo::Layout::NumChunks(regions[i][1]);
    for (uint64_t c = 0; c < chunks; c++) {
      const uint64_t begin = c * rocksdb_cuckoo::kChecksumChunkSize;
      EncodeFixed64(chunk_sums + 8 * c,
                    ComputeChecksum(l.checksum, region + begin,
                                    std::min(rocksdb_cuckoo::kChecksumChunkSize,
                                             regions[i][1] - begin)));
    }
    EncodeFixed64(checksums + 8 * i,
                  ComputeChecksum(l.checksum, chunk_sums, 8 * chunks));
    chunk_sums += 8 * chunks;
  }
  seal();
  std::string footer;
  rocksdb_cuckoo::AppendRocksDBFooter(l, &footer);
  memcpy(&(*file)[file->size() - kRocksDBFooterSize], footer.data(),
         kRocksDBFooterSize);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file(reinterpret_cast<const char*>(data), size);
  for (bool mmap : {false, true}) OpenAndExercise(file, mmap);
  std::string repaired = file;
  RepairChecksums(&repaired);
  if (repaired != file) {
    for (bool mmap : {false, true}) OpenAndExercise(repaired, mmap);
  }
  return 0;
}
