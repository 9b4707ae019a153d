#include "table/cuckoo_hash_table_reader.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

#include "db/range_tombstone_fragmenter.h"
#include "file/random_access_file_reader.h"
#include "memory/arena.h"
#include "rocksdb/statistics.h"
#include "table/background_loader.h"
#include "table/bucket_match.h"
#include "table/chunk_verifier.h"
#include "table/cuckoo_hash_table_checks.h"
#include "table/cuckoo_hash_table_iterator.h"
#include "table/external_file_seqno.h"
#include "table/get_context.h"
#include "table/key_location.h"
#include "table/meta_block_check.h"
#include "table/meta_blocks.h"
#include "table/multiget_context.h"
#include "table/pinned_file_memory.h"
#include "table/serving_read.h"
#include "table/table_builder.h"
#include "table/unique_id_impl.h"
#include "util/checksum.h"
#include "util/prefetch_range.h"
#include "util/vector_iterator.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {
// The MANIFEST lists each file's unique ID, derived from the DB id, session
// id and file number the file was written with, which its properties keep.
// A file that does not carry the ID listed for its number was overwritten or
// put in the wrong place: reading it would answer with another file's data.
Status CheckUniqueId(const TableProperties& properties,
                     const TableReaderOptions& options) {
  // Not known: an older MANIFEST, a tool, or
  // verify_sst_unique_id_in_manifest=false.
  if (options.unique_id == kNullUniqueId64x2) return Status::OK();
  UniqueId64x2 actual{};
  Status s = GetSstInternalUniqueId(properties.db_id, properties.db_session_id,
                                    properties.orig_file_number, &actual,
                                    /*force=*/true);
  if (!s.ok() || actual == options.unique_id) return s;
  UniqueId64x2 expected = options.unique_id;
  return Status::Corruption(
      "CuckooHashTable: unique ID mismatch on table file " +
      std::to_string(options.cur_file_num) +
      " (overwritten or misplaced): the MANIFEST lists " +
      InternalUniqueIdToHumanString(&expected) + ", the file holds " +
      InternalUniqueIdToHumanString(&actual));
}
// `s`, naming the file if it reports damage. Only damage names the file: a
// merge operator's failure (a Corruption with its own subcode, and often no
// message) is about the data, and callers tell it by that subcode.
Status NamingFile(Status s, const std::string& file_name) {
  if (!s.IsCorruption() || s.subcode() != Status::kNone) return s;
  const char* state = s.getState();
  return Status::Corruption(std::string(state != nullptr ? state : "damaged") +
                            " in file " + file_name);
}
}  // namespace

// The file in memory, what Open checked, and the steps of every read. The
// reader's operations forward here (its header declares them).
class CuckooHashTableReader::Rep {
 public:
  // Opens the file; its errors do not name it yet.
  static Status Open(const ReadOptions& read_options,
                     const TableReaderOptions& options,
                     std::unique_ptr<RandomAccessFileReader>&& file,
                     uint64_t file_size, bool load_in_background,
                     std::unique_ptr<Rep>* rep);
  // Takes `memory`, which the destructor closes (not deletes).
  Rep(const TableReaderOptions& options, PinnedFileMemory* memory,
      const Layout& layout);
  ~Rep();

  // For a compaction's scan of a file whose entries nobody has loaded yet:
  // sets *copy to a Rep over a copy of the file read whole now (see
  // PinnedFileMemory::OpenCopy), so this file's own memory stays untouched
  // until a lookup needs it, and the copy's pages go back to be reused
  // when the scan ends. Leaves *copy empty where the file's own memory
  // serves as well (mapped, held whole, or partly loaded already) or the
  // copy cannot be made (its reads then fail where the scan reaches them).
  void CopyForScan(const ReadOptions& read_options,
                   std::unique_ptr<Rep>* copy) const;

  Status Get(const ReadOptions& read_options, const Slice& key,
             GetContext* get_context);
  void MultiGet(const ReadOptions& read_options,
                const MultiGetContext::Range* range);
  Status EntryAt(uint64_t index, bool verify, EntryView* entry) const;
  void PrefetchEntry(uint64_t index) const;
  // The data-region offset the order index holds for entry `index`.
  // REQUIRES: index < num_entries, its order-index chunk readable.
  uint64_t OrderSlot(uint64_t index) const;
  Status LowerBound(const Slice& target, bool verify, uint64_t* index) const;
  FragmentedRangeTombstoneIterator* TombstonesAt(SequenceNumber sequence) const;
  uint64_t OffsetOf(const Slice& key) const;
  Status ApproximateKeyAnchors(const ReadOptions& read_options,
                               std::vector<TableReader::Anchor>& anchors) const;
  size_t ApproximateMemoryUsage() const;
  Status VerifyFile(bool metadata_only) const;
  // Whether a read passes the chunks it touches through their verifiers:
  // as asked, or always where that is what loads them.
  bool MustVerify(const ReadOptions& read_options) const;
  uint64_t num_entries() const { return layout_.num_entries; }
  bool keys_as_stored() const {
    return !has_global_seqno() && !layout_.keys_without_trailers;
  }
  // Packed by hand, so a damaged type byte (reported elsewhere) cannot trip
  // RocksDB's asserting PackSequenceAndType.
  uint64_t PresentedTrailer(uint64_t stored) const {
    return has_global_seqno() ? global_seqno_ << 8 | (stored & 0xff) : stored;
  }
  Status InThisFile(Status s) const {
    return NamingFile(std::move(s), file_name_);
  }
  const std::shared_ptr<const TableProperties>& properties() const {
    return properties_;
  }

 private:
  bool has_global_seqno() const {
    return global_seqno_ != kDisableGlobalSequenceNumber;
  }
  // Hands the file to the background loader on the first lookup (see
  // CuckooHashTableOptions::load_in_background): a file only compacted is
  // read by its iterator, in order, and needs no help. Lock-free: the one
  // caller that swaps background_load_pending_ to false queues the job.
  void LoadInBackgroundOnFirstLookup();
  // The background loader's work: the bulk regions' chunks no lookup has
  // loaded yet, buckets first (every lookup reads them), then entries. Runs
  // on the loader's thread until the destructor's Remove returns.
  void LoadRemaining(const std::atomic<bool>& stop) const;
  // CopyForScan's: `source` over `copy`, which it takes as the above does.
  Rep(const Rep& source, PinnedFileMemory* copy);
  // Checks the chunk checksums of a chunked layout and sets up their
  // verifiers.
  Status SetUpChunkVerifiers();
  // Checks every region's checksum, except, unless `all_chunks`, those of
  // the chunks of a chunked layout; sets *seqno_field to the file offset of
  // the global seqno field, if the file has one.
  Status VerifyRegions(bool all_chunks, uint64_t* seqno_field) const;
  Status VerifyPropertiesRegion(uint64_t* seqno_field) const;
  // RocksDB's parser of the properties and metaindex blocks asserts on
  // malformed blocks: check their structure first.
  Status CheckMetaBlocks() const;
  Status LoadRangeTombstones();

  // Whether some of a file read into memory is still only on disk: then a
  // read that must not do I/O (kBlockCacheTier) cannot be answered.
  bool StillLoading() const;
  static Status NoIoWhileLoading();

  // A point lookup's state, handed down its steps (Get and MultiGet).
  struct Lookup;
  // What a lookup found.
  enum class Probe : int;
  using ProbeCounts = std::array<uint64_t, 4>;  // by Probe
  // Whether the entry at an offset is the lookup's key.
  enum class Match : int;
  static Probe ProbeOf(Match match);  // the end of a search at a match
  static Probe NotFound(const Lookup& lookup);

  // The lookup's steps, in call order.
  KeyLocation Locate(const Slice& user_key) const;
  const Fingerprints& FingerprintsAt(uint64_t bucket) const;
  // Starts loading the entries in the key's preferred slots (slot order).
  __attribute__((always_inline)) void PrefetchPreferredEntries(
      const KeyLocation& at) const;
  // Always inlined: GCC takes a function that only prefetches for one
  // without effects and drops the call.
  __attribute__((always_inline)) void PrefetchKeyOf(const char* entry) const;
  // Sets lookup->candidate: the offset of the entry whose fingerprint first
  // matches the key's in the bucket that would hold it, read before the
  // key is compared, so its load can start early.
  __attribute__((always_inline)) void FindCandidate(Lookup* lookup) const;
  // Where the entry of a bucket's slot starts: stored in the bucket, or, for
  // fixed slots, implied by the slot's index.
  uint64_t EntryOffset(uint64_t bucket, uint32_t slot) const;
  // Looks for the key at its candidate, then (FullProbe) in its buckets and
  // the stash. Inlined: most lookups end at their candidate.
  __attribute__((always_inline)) Probe FindUserKey(Lookup* lookup) const;
  Probe FullProbe(Lookup* lookup) const;
  Match MatchInBucket(uint64_t bucket, Lookup* lookup) const;
  // Parses the entry at `offset` into lookup->entry and compares its key.
  __attribute__((always_inline)) Match KeyAt(uint64_t offset,
                                             Lookup* lookup) const;
  // Parses the entry at `offset` of the data region, once its chunks are
  // verified (if `verify`); false, with *damage saying why, if it cannot.
  __attribute__((always_inline)) bool ReadEntry(uint64_t offset, bool verify,
                                                EntryView* entry,
                                                Status* damage) const;
  // ReadEntry of an entry whose header gives its size.
  bool ReadSizedEntry(uint64_t offset, bool verify, EntryView* entry,
                      Status* damage) const;
  // Feeds the found key's versions visible at `sequence` to get_context,
  // from its first entry on, pinning the values with `pins`.
  Status SaveVersions(const Lookup& lookup, SequenceNumber sequence,
                      GetContext* get_context,
                      PinnedFileMemory::Pins* pins) const;
  // Adds lookups to RocksDB's bloom filter tickers, if statistics are on.
  void RecordProbes(const ProbeCounts& counts) const;

  // Compares an entry's internal key, as the iterator presents it, with an
  // internal key.
  int CompareAsPresented(const EntryView& entry, const Slice& target) const;
  // Bytes of the entries before position `index` in key order; the file's
  // size for the end. Entries vary in size (one large value among small
  // ones), so an estimate by position alone can be off many times over;
  // and as with BlockBasedTable's data blocks, the file's metadata and hash
  // index count only at its end, where a small file has most of its bytes.
  // Safe from several threads: the first call fills size_marks_ under
  // size_marks_once_, and the others wait for it.
  uint64_t BytesBefore(uint64_t index) const;
  // The size an entry takes in the file, close enough for estimates.
  uint64_t EntryBytes(uint64_t index) const;

  const InternalKeyComparator icomp_;
  PinnedFileMemory* const memory_;  // closed (not deleted) by the destructor
  const std::string file_name_;
  const Layout layout_;
  const char* const data_;
  Statistics* const statistics_;
  // Every user key has one entry: a lookup never reads past it.
  const bool single_versions_;
  // Read into memory (not mapped) with a chunked layout: the bulk regions
  // are loaded chunk by chunk as their verifiers first pass them, so every
  // read of them goes through a verifier, whatever verify_checksums says.
  const bool loads_chunks_;
  const char* const bucket_array_;
  // Format 2: chunks of the bulk regions, verified as lookups reach them.
  ChunkVerifier data_chunks_;
  ChunkVerifier order_chunks_;
  ChunkVerifier bucket_chunks_;
  // With load_in_background on a loaded file: the job and whether it is
  // still to be queued. Both set by Open before the reader is shared; the
  // destructor removes the job from the loader before closing memory_.
  std::unique_ptr<BackgroundLoader::Job> background_load_;
  std::atomic<bool> background_load_pending_{false};
  std::shared_ptr<const TableProperties> properties_;
  SequenceNumber global_seqno_ = kDisableGlobalSequenceNumber;
  // File offset of the global seqno property's value; 0: none.
  uint64_t seqno_field_offset_ = 0;
  // Bytes of the entries before every kSizeMarkStride-th entry in key
  // order; counted on the first size estimate (one pass over the entries),
  // so that each later one reads at most a stride's entries. Written only
  // inside size_marks_once_ (BytesBefore), read-only after it.
  static constexpr uint64_t kSizeMarkStride = 64;
  mutable std::once_flag size_marks_once_;
  mutable std::vector<uint64_t> size_marks_;
  // Fragmented once at open, shared by every tombstone iterator.
  std::shared_ptr<FragmentedRangeTombstoneList> range_tombstones_;
  // Bytes of the file loaded once Open returned: while no more are, no
  // lookup or scan has loaded any of the bulk regions. Last: lookups read
  // the members above, whose places it must not shift.
  uint64_t loaded_at_open_ = 0;
};

// ---- Opening a file. ----

Status CuckooHashTableReader::Open(
    const ReadOptions& read_options, const TableReaderOptions& options,
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    bool load_in_background, std::unique_ptr<TableReader>* reader) {
  const std::string file_name = file->file_name();
  ServingRead serving(read_options);
  std::unique_ptr<Rep> rep;
  const Status s = Rep::Open(read_options, options, std::move(file), file_size,
                             load_in_background, &rep);
  if (!s.ok()) return NamingFile(s, file_name);
  reader->reset(new CuckooHashTableReader(std::move(rep)));
  return Status::OK();
}

Status CuckooHashTableReader::Rep::Open(
    const ReadOptions& read_options, const TableReaderOptions& options,
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    bool load_in_background, std::unique_ptr<Rep>* rep) {
  Status s = CheckComparator(options.ioptions.user_comparator);
  if (!s.ok()) return s;
  if (file_size < kLayoutSize + kRocksDBFooterSize) {
    return Status::Corruption("CuckooHashTable: file too short (" +
                              std::to_string(file_size) + " bytes)");
  }
  PinnedFileMemory* memory = nullptr;
  PinnedFileMemory::ReadObservers observers;
  observers.statistics = options.ioptions.statistics;
  observers.rate_limiter = options.ioptions.rate_limiter;
  observers.listeners = options.ioptions.listeners;
  observers.clock = options.ioptions.env->GetSystemClock();
  s = PinnedFileMemory::Open(std::move(file), file_size, read_options,
                             options.ioptions.allow_mmap_reads, observers,
                             &memory);
  if (!s.ok()) return s;
  // From here the reader (or this guard, on error) owns `memory`.
  std::unique_ptr<PinnedFileMemory, void (*)(PinnedFileMemory*)> guard(
      memory, [](PinnedFileMemory* m) { m->Close(); });

  constexpr uint64_t kTail = kLayoutSize + kRocksDBFooterSize;
  s = memory->Load(file_size - kTail, kTail);
  if (!s.ok()) return s;
  const char* base = memory->data();
  if (DecodeFixed64(base + file_size - 8) != kCuckooHashTableMagicNumber) {
    return Status::Corruption(
        "CuckooHashTable: bad magic number (not a CuckooHashTable file)");
  }
  Layout layout;
  s = layout.DecodeFromFile(Slice(base, file_size));
  if (!s.ok()) return s;
  // A chunked layout's bulk regions are loaded as lookups first reach
  // them: only the padding before the buckets and the small regions after
  // them are read now. Without chunk checksums, the whole file is. (The
  // layout and footer are loaded already.)
  if (layout.chunked()) {
    const uint64_t order_end = layout.order_offset + layout.order_size();
    memory->UseHugePages(layout.stash_offset, order_end, layout.buckets_offset);
    s = memory->Load(order_end, layout.buckets_offset - order_end);
    if (s.ok()) {
      s = memory->Load(layout.stash_offset,
                       file_size - kTail - layout.stash_offset);
    }
  } else {
    memory->UseHugePages(file_size - kTail, 0, 0);
    s = memory->Load(0, file_size - kTail);
  }
  if (!s.ok()) return s;

  std::unique_ptr<Rep> r(new Rep(options, guard.release(), layout));
  s = r->SetUpChunkVerifiers();
  if (!s.ok()) return s;
  s = r->VerifyRegions(/*all_chunks=*/false, &r->seqno_field_offset_);
  if (!s.ok()) return s;
  // RocksDB's readers of a file's properties (ours too, before 10.x) trust
  // the footer; make sure it is exactly the one this layout implies.
  std::string footer;
  AppendRocksDBFooter(layout, &footer);
  if (memcmp(footer.data(), base + file_size - kRocksDBFooterSize,
             kRocksDBFooterSize) != 0) {
    return Status::Corruption("CuckooHashTable: footer does not match layout");
  }
  s = r->CheckMetaBlocks();
  if (!s.ok()) return s;
  std::unique_ptr<TableProperties> properties;
  s = ReadProperties(memory->file(), file_size,
                     Slice(base + layout.meta_offset, layout.properties_size),
                     layout.meta_offset, kCuckooHashTableMagicNumber,
                     options.ioptions, read_options, &properties);
  if (!s.ok()) return s;
  s = CheckUniqueId(*properties, options);
  if (!s.ok()) return s;
  // The checksum forgave the field it found; it must be the one RocksDB
  // reads (and ingestion writes).
  const uint64_t seqno_field =
      properties->external_sst_file_global_seqno_offset;
  if (seqno_field != 0 && seqno_field != r->seqno_field_offset_) {
    return Status::Corruption(
        "CuckooHashTable: global seqno property not where the checksum "
        "expects it");
  }
  s = ExternalFileSequenceNumber(*properties, options.largest_seqno,
                                 &r->global_seqno_);
  if (!s.ok()) return s;
  r->properties_ = std::move(properties);
  s = r->LoadRangeTombstones();
  if (!s.ok()) return s;
  r->loaded_at_open_ = memory->loaded_bytes();
  if (load_in_background && r->loads_chunks_) {
    r->background_load_.reset(new BackgroundLoader::Job);
    const Rep* loading = r.get();
    r->background_load_->load = [loading](const std::atomic<bool>& stop) {
      loading->LoadRemaining(stop);
    };
    r->background_load_pending_.store(true, std::memory_order_relaxed);
  }
  *rep = std::move(r);
  return Status::OK();
}

CuckooHashTableReader::Rep::Rep(const TableReaderOptions& options,
                                PinnedFileMemory* memory, const Layout& layout)
    : icomp_(options.internal_comparator),
      memory_(memory),
      file_name_(memory->file()->file_name()),
      layout_(layout),
      data_(memory->data()),
      statistics_(options.ioptions.stats),
      single_versions_(layout.num_user_keys == layout.num_entries),
      loads_chunks_(memory->loaded() && layout.chunked()),
      bucket_array_(memory->data() + layout.buckets_offset) {}

CuckooHashTableReader::Rep::Rep(const Rep& source, PinnedFileMemory* copy)
    : icomp_(source.icomp_),
      memory_(copy),
      file_name_(source.file_name_),
      layout_(source.layout_),
      data_(copy->data()),
      statistics_(source.statistics_),
      single_versions_(source.single_versions_),
      // Held whole: its chunks are checked as reads reach them only when
      // the reads ask for checks, as a mapped file's are.
      loads_chunks_(false),
      bucket_array_(copy->data() + source.layout_.buckets_offset),
      properties_(source.properties_),
      global_seqno_(source.global_seqno_),
      seqno_field_offset_(source.seqno_field_offset_),
      range_tombstones_(source.range_tombstones_) {}

void CuckooHashTableReader::Rep::CopyForScan(const ReadOptions& read_options,
                                             std::unique_ptr<Rep>* copy) const {
  if (!loads_chunks_ || memory_->whole_file_loaded() ||
      memory_->loaded_bytes() != loaded_at_open_) {
    return;
  }
  PinnedFileMemory* memory = nullptr;
  if (!PinnedFileMemory::OpenCopy(*memory_, read_options, &memory).ok()) {
    return;
  }
  std::unique_ptr<Rep> r(new Rep(*this, memory));
  // The chunk checksums are read again with the copy: check them again.
  if (!r->SetUpChunkVerifiers().ok()) return;
  *copy = std::move(r);
}

CuckooHashTableReader::Rep::~Rep() {
  // The loader reads the verifiers and the memory: stop it first.
  if (background_load_ != nullptr) {
    BackgroundLoader::Instance().Remove(background_load_.get());
  }
  memory_->Close();
}

namespace {

// A region of the file checksummed on its own (the properties region aside).
struct Region {
  uint64_t offset;
  uint64_t size;
  const char* name;
};

// In the order of Layout::region_checksum; the first three are the bulk
// regions, chunked in format 2.
std::array<Region, 5> RegionsOf(const Layout& layout) {
  return {
      {{0, layout.data_size, "data"},
       {layout.order_offset, layout.order_size(), "order index"},
       {layout.buckets_offset, layout.buckets_size(), "bucket array"},
       {layout.stash_offset, layout.stash_size(), "stash"},
       {layout.range_del_offset, layout.range_del_size, "range tombstone"}}};
}
constexpr size_t kBulkRegions = 3;
}  // namespace

Status CuckooHashTableReader::Rep::SetUpChunkVerifiers() {
  if (!layout_.chunked()) return Status::OK();
  const std::array<Region, 5> regions = RegionsOf(layout_);
  ChunkVerifier* verifiers[kBulkRegions] = {&data_chunks_, &order_chunks_,
                                            &bucket_chunks_};
  const char* sums = data_ + layout_.chunk_sums_offset();
  for (size_t i = 0; i < kBulkRegions; i++) {
    const uint64_t sums_size = 8 * Layout::NumChunks(regions[i].size);
    if (ComputeChecksum(layout_.checksum, sums, sums_size) !=
        layout_.region_checksum[i]) {
      return Status::Corruption(
          std::string("CuckooHashTable: checksum mismatch in the chunk "
                      "checksums of the ") +
          regions[i].name + " region");
    }
    *verifiers[i] = ChunkVerifier(
        layout_.checksum, data_ + regions[i].offset, regions[i].size, sums,
        regions[i].name, loads_chunks_ ? memory_ : nullptr, regions[i].offset);
    sums += sums_size;
  }
  return Status::OK();
}

Status CuckooHashTableReader::Rep::VerifyRegions(bool all_chunks,
                                                 uint64_t* seqno_field) const {
  // The padding before the buckets is not checksummed but must be zeros.
  for (uint64_t at = layout_.order_offset + layout_.order_size();
       at < layout_.buckets_offset; at++) {
    if (data_[at] != 0) {
      return Status::Corruption("CuckooHashTable: damaged bucket padding");
    }
  }
  const std::array<Region, 5> regions = RegionsOf(layout_);
  const ChunkVerifier* verifiers[kBulkRegions] = {&data_chunks_, &order_chunks_,
                                                  &bucket_chunks_};
  // The properties region is last and checked on its own.
  static_assert(std::tuple_size<decltype(regions)>::value + 1 ==
                    sizeof(Layout::region_checksum) / sizeof(uint64_t),
                "one checksum per region");
  for (size_t i = 0; i < regions.size(); i++) {
    if (i < kBulkRegions && layout_.chunked()) {
      if (!all_chunks) continue;
      const Status s = verifiers[i]->VerifyAll();
      if (!s.ok()) return s;
      continue;
    }
    const uint64_t actual = ComputeChecksum(
        layout_.checksum, data_ + regions[i].offset, regions[i].size);
    if (actual != layout_.region_checksum[i]) {
      return Status::Corruption(std::string("CuckooHashTable: checksum "
                                            "mismatch in ") +
                                regions[i].name + " region");
    }
  }
  return VerifyPropertiesRegion(seqno_field);
}

Status CuckooHashTableReader::Rep::VerifyPropertiesRegion(
    uint64_t* seqno_field) const {
  // Ingestion with write_global_seqno=true rewrites one field in place; the
  // checksum covers every other byte and reads that field as zeros.
  Slice region(data_ + layout_.meta_offset, layout_.meta_size);
  std::string copy;
  uint64_t field;
  if (FindGlobalSeqnoField(Slice(region.data(), layout_.properties_size),
                           &field)) {
    *seqno_field = layout_.meta_offset + field;
    copy.assign(region.data(), region.size());
    memset(&copy[field], 0, 8);
    region = copy;
  }
  if (ComputeChecksum(layout_.checksum, region.data(), region.size()) !=
      layout_.region_checksum[5]) {
    return Status::Corruption(
        "CuckooHashTable: checksum mismatch in properties region");
  }
  return Status::OK();
}

Status CuckooHashTableReader::Rep::CheckMetaBlocks() const {
  const char* meta = data_ + layout_.meta_offset;
  const Slice properties(meta, layout_.properties_size);
  const Slice metaindex(meta + layout_.properties_size,
                        layout_.meta_size - layout_.properties_size);
  // The metaindex must name exactly the properties block the layout names.
  bool names_properties = false;
  const bool metaindex_ok =
      WalkMetaBlock(metaindex, [&](const BlockEntry& entry) {
        if (entry.key == kPropertiesBlockName) {
          Slice value(metaindex.data() + entry.value_offset, entry.value_size);
          BlockHandle handle;
          names_properties = handle.DecodeFrom(&value).ok() &&
                             handle.offset() == layout_.meta_offset &&
                             handle.size() == layout_.properties_size;
        }
        return true;
      });
  if (!metaindex_ok || !names_properties) {
    return Status::Corruption("CuckooHashTable: malformed metaindex block");
  }
  if (!WalkMetaBlock(properties, [](const BlockEntry&) { return true; })) {
    return Status::Corruption("CuckooHashTable: malformed properties block");
  }
  return Status::OK();
}

Status CuckooHashTableReader::Rep::LoadRangeTombstones() {
  if (layout_.num_range_dels == 0) return Status::OK();
  std::vector<std::string> keys;
  std::vector<std::string> values;
  const char* region = data_ + layout_.range_del_offset;
  EntryView entry;
  for (uint64_t offset = 0; offset < layout_.range_del_size;
       offset = entry.next_offset) {
    if (!ParseEntry(region, layout_.range_del_size, offset, &entry) ||
        entry.type() != kTypeRangeDeletion) {
      return Status::Corruption("CuckooHashTable: malformed range tombstone");
    }
    keys.push_back(entry.user_key.ToString());
    PutFixed64(&keys.back(), PresentedTrailer(entry.trailer));
    values.push_back(entry.value.ToString());
  }
  if (keys.size() != layout_.num_range_dels) {
    return Status::Corruption("CuckooHashTable: range tombstone count");
  }
  range_tombstones_ = std::make_shared<FragmentedRangeTombstoneList>(
      std::make_unique<VectorIterator>(std::move(keys), std::move(values),
                                       &icomp_),
      icomp_);
  return Status::OK();
}

// ---- Serving state. ----

void CuckooHashTableReader::Rep::LoadInBackgroundOnFirstLookup() {
  if (background_load_pending_.load(std::memory_order_relaxed) &&
      background_load_pending_.exchange(false)) {
    BackgroundLoader::Instance().Add(background_load_.get());
  }
}

void CuckooHashTableReader::Rep::LoadRemaining(
    const std::atomic<bool>& stop) const {
  for (const ChunkVerifier* chunks :
       {&bucket_chunks_, &data_chunks_, &order_chunks_}) {
    if (!chunks->VerifyRemaining(stop)) return;
  }
}

bool CuckooHashTableReader::Rep::StillLoading() const {
  return loads_chunks_ && memory_->loaded_bytes() < memory_->size();
}

Status CuckooHashTableReader::Rep::NoIoWhileLoading() {
  return Status::Incomplete(
      "CuckooHashTable: file still loading, and the read may not do I/O");
}

bool CuckooHashTableReader::Rep::MustVerify(
    const ReadOptions& read_options) const {
  return read_options.verify_checksums || loads_chunks_;
}

namespace {

// Key equality without a call to memcmp for the usual key sizes: keys of
// 8 to 16 bytes compare as two overlapping 8-byte words (read in either
// byte order, equal words stay equal).
inline bool SameKey(const Slice& a, const Slice& b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n >= 8 && n <= 16) {
    const char* x = a.data();
    const char* y = b.data();
    return ((DecodeFixed64(x) ^ DecodeFixed64(y)) |
            (DecodeFixed64(x + n - 8) ^ DecodeFixed64(y + n - 8))) == 0;
  }
  return memcmp(a.data(), b.data(), n) == 0;
}

}  // namespace

// ---- Point lookups, in call order: Get, then what it calls. ----

constexpr uint64_t kNoCandidate = UINT64_MAX;
constexpr uint64_t kDamagedCandidate = UINT64_MAX - 1;
constexpr uint64_t kAbsentCandidate = UINT64_MAX - 2;
// Whether a candidate is an entry's offset, not one of the markers above.
inline bool IsEntryOffset(uint64_t candidate) {
  return candidate < kAbsentCandidate;
}

struct CuckooHashTableReader::Rep::Lookup {
  Lookup() = default;
  Lookup(const Slice& key, const KeyLocation& location, bool verify_chunks) {
    Start(key, location, verify_chunks);
  }
  // Starts a lookup in place, as the constructor does: MultiGet reuses an
  // array of them, and a temporary moved into it would copy every field.
  void Start(const Slice& key, const KeyLocation& location,
             bool verify_chunks) {
    user_key = key;
    at = location;
    verify = verify_chunks;
    candidate = kNoCandidate;
    fingerprint_seen = false;
    if (!damage.ok()) damage = ROCKSDB_NAMESPACE::Status::OK();
  }

  Slice user_key;
  KeyLocation at;
  // Whether reads pass the chunk verifiers (MustVerify()).
  bool verify = false;
  // Set by FindCandidate(): the entry the fingerprints point at first;
  // kAbsentCandidate when they rule the key out of the file; kNoCandidate
  // when only the stash may hold it; or kDamagedCandidate (with `damage`
  // saying why).
  uint64_t candidate = kNoCandidate;
  bool fingerprint_seen = false;
  // On kFound: the first of user_key's versions.
  EntryView entry;
  // On kDamaged: what is damaged. The lookup answers that error: reading
  // again might succeed, but a read error must reach the caller, as it
  // does from RocksDB's own tables.
  ROCKSDB_NAMESPACE::Status damage;
};

// What a lookup found: the key, or that it is absent, told by the
// fingerprints alone or only after comparing keys; or damage in the file.
enum class CuckooHashTableReader::Rep::Probe : int {
  kNoFingerprint = 0,
  kFingerprintOnly = 1,
  kFound = 2,
  kDamaged = 3
};

// Whether the entry at an offset is the lookup's key.
enum class CuckooHashTableReader::Rep::Match : int { kOther, kSame, kDamaged };

// The end of a search at a match that is not kOther.
inline CuckooHashTableReader::Rep::Probe CuckooHashTableReader::Rep::ProbeOf(
    Match match) {
  return match == Match::kSame ? Probe::kFound : Probe::kDamaged;
}

inline CuckooHashTableReader::Rep::Probe CuckooHashTableReader::Rep::NotFound(
    const Lookup& lookup) {
  return lookup.fingerprint_seen ? Probe::kFingerprintOnly
                                 : Probe::kNoFingerprint;
}

Status CuckooHashTableReader::Rep::Get(const ReadOptions& read_options,
                                       const Slice& key,
                                       GetContext* get_context) {
  if (layout_.num_user_keys == 0) return Status::OK();
  ServingRead serving(read_options);
  LoadInBackgroundOnFirstLookup();
  if (read_options.read_tier == kBlockCacheTier && StillLoading()) {
    get_context->MarkKeyMayExist();
    return NoIoWhileLoading();
  }
  const Slice user_key = ExtractUserKey(key);
  Lookup lookup(user_key, Locate(user_key), MustVerify(read_options));
  // About one key in five lives in its second bucket: loading both lines at
  // once costs bandwidth, not latency, and saves those keys a serial miss.
  __builtin_prefetch(&FingerprintsAt(lookup.at.bucket2));
  PrefetchPreferredEntries(lookup.at);
  FindCandidate(&lookup);
  const Probe probe = FindUserKey(&lookup);
  if (statistics_ != nullptr) {
    ProbeCounts counts{};
    counts[static_cast<int>(probe)]++;
    RecordProbes(counts);
  }
  if (probe == Probe::kDamaged) return InThisFile(lookup.damage);
  if (probe != Probe::kFound) return Status::OK();
  PinnedFileMemory::Pins pins(memory_, 0);
  return InThisFile(
      SaveVersions(lookup, GetInternalKeySeqno(key), get_context, &pins));
}

inline KeyLocation CuckooHashTableReader::Rep::Locate(
    const Slice& user_key) const {
  return LocateUserKey(user_key, layout_.identity_as_first_hash,
                       layout_.num_buckets, layout_.hash_seed);
}

inline const Fingerprints& CuckooHashTableReader::Rep::FingerprintsAt(
    uint64_t bucket) const {
  return *reinterpret_cast<const Fingerprints*>(
      bucket_array_ + bucket * layout_.bucket_stride());
}

// Slot order: a key's entry is most likely in a preferred slot of its first
// bucket (75% of keys at load 0.9), whose address is known before the
// bucket arrives, so start loading the entries stored there. The second
// bucket's slots are not loaded: they would serve 15% of hits but cost every
// miss more memory reads.
inline void CuckooHashTableReader::Rep::PrefetchPreferredEntries(
    const KeyLocation& at) const {
  const uint64_t size = layout_.slot_entry_size;
  if (size == 0) return;
  const char* entries = data_ + at.bucket1 * kSlotsPerBucket * size;
  PrefetchKeyOf(entries + at.slot[0] * size);
  PrefetchKeyOf(entries + at.slot[1] * size);
}

// The lines holding the key: where the entry starts and, when the layout
// gives the key's size (slot entries of format 3), where the key ends. An
// entry rarely starts on a line boundary, so a key can end on the next
// line, which would otherwise be a second, serial miss. Non-temporal: an
// entry is read once per lookup (most of them for a key not there at all),
// and should not push the fingerprints, which every lookup reads, out of the
// last-level cache.
inline void CuckooHashTableReader::Rep::PrefetchKeyOf(const char* entry) const {
  __builtin_prefetch(entry, 0, 0);
  if (layout_.slot_key_size > 0) {
    __builtin_prefetch(entry + layout_.slot_key_size - 1, 0, 0);
  }
}

inline void CuckooHashTableReader::Rep::FindCandidate(Lookup* lookup) const {
  // A fixed slot's entry is where its index says: a damaged fingerprint can
  // only lead to another intact entry, whose key then differs. A stored
  // offset is trusted only from a verified bucket: damaged, it could lead
  // to an older version of this very key. A bucket not loaded yet has no
  // fingerprints to read at all.
  const bool check =
      lookup->verify && (!layout_.fixed_slots() || loads_chunks_);
  const uint64_t stride = layout_.bucket_stride();
  const KeyLocation& at = lookup->at;
  uint64_t bucket = at.bucket1;
  if (check &&
      !bucket_chunks_.Check(bucket * stride, stride, &lookup->damage)) {
    lookup->candidate = kDamagedCandidate;
    return;
  }
  const Fingerprints& first = FingerprintsAt(bucket);
  SlotMask matches = MatchFingerprint(first, at.fingerprint);
  if (matches.empty() && IsFull(first)) {
    bucket = at.bucket2;
    if (check &&
        !bucket_chunks_.Check(bucket * stride, stride, &lookup->damage)) {
      lookup->candidate = kDamagedCandidate;
      return;
    }
    matches = MatchFingerprint(FingerprintsAt(bucket), at.fingerprint);
  }
  if (!matches.empty()) {
    lookup->candidate = EntryOffset(bucket, matches.Lowest());
  } else if (check == lookup->verify && !IsFull(FingerprintsAt(bucket))) {
    // The format's invariant: the key would be in this bucket, not in the
    // next one or the stash. Most misses end here, without a second look,
    // unless the buckets read are yet to be verified: a damaged fingerprint
    // must not hide a key.
    lookup->candidate = kAbsentCandidate;
  }
}

inline uint64_t CuckooHashTableReader::Rep::EntryOffset(uint64_t bucket,
                                                        uint32_t slot) const {
  if (layout_.fixed_slots()) {
    return (bucket * kSlotsPerBucket + slot) * layout_.slot_entry_size;
  }
  return reinterpret_cast<const Bucket*>(bucket_array_ + bucket * kBucketSize)
      ->OffsetAt(slot);
}

inline CuckooHashTableReader::Rep::Probe
CuckooHashTableReader::Rep::FindUserKey(Lookup* lookup) const {
  // The candidate counts only if its entry, verified, holds this very key.
  // The full probe covers the rest: absent keys, fingerprint collisions and
  // the stash. Damage, or a failed read, is answered where it is met.
  if (lookup->candidate == kDamagedCandidate) return Probe::kDamaged;
  if (lookup->candidate == kAbsentCandidate) return Probe::kNoFingerprint;
  if (IsEntryOffset(lookup->candidate)) {
    const Match match = KeyAt(lookup->candidate, lookup);
    if (match != Match::kOther) return ProbeOf(match);
  }
  return FullProbe(lookup);
}

CuckooHashTableReader::Rep::Probe CuckooHashTableReader::Rep::FullProbe(
    Lookup* lookup) const {
  const uint64_t stride = layout_.bucket_stride();
  for (const uint64_t b : {lookup->at.bucket1, lookup->at.bucket2}) {
    if (lookup->verify &&
        !bucket_chunks_.Check(b * stride, stride, &lookup->damage)) {
      return Probe::kDamaged;
    }
    const Match match = MatchInBucket(b, lookup);
    if (match != Match::kOther) return ProbeOf(match);
    // See the invariant in the format header.
    if (!IsFull(FingerprintsAt(b))) return NotFound(*lookup);
  }
  const char* stash = data_ + layout_.stash_offset;
  for (uint64_t i = 0; i < layout_.num_stash; i++) {
    const uint64_t slot = DecodeFixed64(stash + 8 * i);
    if (static_cast<uint16_t>(slot) != lookup->at.fingerprint) continue;
    lookup->fingerprint_seen = true;
    const Match match = KeyAt(slot >> 16, lookup);
    if (match != Match::kOther) return ProbeOf(match);
  }
  return NotFound(*lookup);
}

CuckooHashTableReader::Rep::Match CuckooHashTableReader::Rep::MatchInBucket(
    uint64_t bucket, Lookup* lookup) const {
  for (const uint32_t slot :
       MatchFingerprint(FingerprintsAt(bucket), lookup->at.fingerprint)) {
    lookup->fingerprint_seen = true;
    const Match match = KeyAt(EntryOffset(bucket, slot), lookup);
    if (match != Match::kOther) return match;
  }
  return Match::kOther;
}

inline CuckooHashTableReader::Rep::Match CuckooHashTableReader::Rep::KeyAt(
    uint64_t offset, Lookup* lookup) const {
  if (!ReadEntry(offset, lookup->verify, &lookup->entry, &lookup->damage)) {
    return Match::kDamaged;
  }
  return SameKey(lookup->entry.user_key, lookup->user_key) ? Match::kSame
                                                           : Match::kOther;
}

inline bool CuckooHashTableReader::Rep::ReadEntry(uint64_t offset, bool verify,
                                                  EntryView* entry,
                                                  Status* damage) const {
  if (layout_.fixed_slots()) {
    // The entry's bytes are known before it is parsed.
    if (verify &&
        !data_chunks_.Check(offset, layout_.slot_entry_size, damage)) {
      return false;
    }
    if (ParseSlotEntry(data_, layout_, offset, entry)) return true;
    *damage = Status::Corruption("CuckooHashTable: malformed entry");
    return false;
  }
  return ReadSizedEntry(offset, verify, entry, damage);
}

bool CuckooHashTableReader::Rep::ReadSizedEntry(uint64_t offset, bool verify,
                                                EntryView* entry,
                                                Status* damage) const {
  // The header says how long the entry is; the rest is verified (and
  // loaded) only then.
  if (verify && offset < layout_.data_size &&
      !data_chunks_.Check(
          offset, std::min(kMaxEntryHeaderSize, layout_.data_size - offset),
          damage)) {
    return false;
  }
  if (!ParseEntryHeader(data_, layout_.data_size, offset, entry)) {
    *damage = Status::Corruption("CuckooHashTable: malformed entry");
    return false;
  }
  if (verify &&
      !data_chunks_.Check(offset, entry->next_offset - offset, damage)) {
    return false;
  }
  ParseEntryTrailer(entry);
  return true;
}

Status CuckooHashTableReader::Rep::SaveVersions(
    const Lookup& lookup, SequenceNumber sequence, GetContext* get_context,
    PinnedFileMemory::Pins* pins) const {
  // Carries one pin on the file's memory into the caller's PinnableSlice
  // (GetContext moves it there), so the value needs no copy.
  Cleanable pinner;
  EntryView entry = lookup.entry;
  for (;;) {
    const ValueType type = entry.type();
    if (!IsStoredType(type)) {
      return Status::Corruption("CuckooHashTable: unknown value type");
    }
    const SequenceNumber entry_sequence = PresentedTrailer(entry.trailer) >> 8;
    if (entry_sequence <= sequence) {
      if (!pinner.HasCleanups()) pins->PinTo(&pinner);
      Status read_status;
      const bool more = SaveToGetContext(
          get_context, ParsedInternalKey(entry.user_key, entry_sequence, type),
          entry.value, &pinner, &read_status);
      if (!read_status.ok()) return read_status;
      if (!more) break;
    }
    // With one entry per user key the group ends here; in slot order the
    // next bytes may be an empty slot, not an entry.
    if (single_versions_ || entry.next_offset >= layout_.data_size) break;
    Status damage;
    if (!ReadEntry(entry.next_offset, lookup.verify, &entry, &damage)) {
      return damage;
    }
    if (!SameKey(entry.user_key, lookup.user_key)) break;
  }
  return Status::OK();
}

void CuckooHashTableReader::Rep::RecordProbes(const ProbeCounts& counts) const {
  if (statistics_ == nullptr) return;
  // The fingerprints act as a full filter: count their work where users'
  // dashboards look for BlockBasedTable's bloom filter.
  if (counts[0] > 0) statistics_->recordTick(BLOOM_FILTER_USEFUL, counts[0]);
  const uint64_t positive = counts[1] + counts[2];
  if (positive > 0)
    statistics_->recordTick(BLOOM_FILTER_FULL_POSITIVE, positive);
  if (counts[2] > 0) {
    statistics_->recordTick(BLOOM_FILTER_FULL_TRUE_POSITIVE, counts[2]);
  }
}

void CuckooHashTableReader::Rep::MultiGet(const ReadOptions& read_options,
                                          const MultiGetContext::Range* range) {
  if (layout_.num_user_keys == 0) return;
  ServingRead serving(read_options);
  LoadInBackgroundOnFirstLookup();
  if (read_options.read_tier == kBlockCacheTier && StillLoading()) {
    for (auto it = range->begin(); it != range->end(); ++it) {
      it->get_context->MarkKeyMayExist();
      *it->s = NoIoWhileLoading();
    }
    return;
  }
  const bool verify = MustVerify(read_options);
  // Four passes over groups of keys: a whole batch of 32 would have more
  // loads in flight than a core can track, and the excess waits anyway.
  constexpr size_t kGroup = 16;
  KeyContext* keys[kGroup];
  Lookup lookups[kGroup];
  ProbeCounts counts{};
  auto it = range->begin();
  while (it != range->end()) {
    size_t n = 0;
    // Pass 1: locate each key and start loading its buckets. Not its likely
    // entries as Get does: with a group's buckets in flight those loads
    // made batches slower.
    for (; n < kGroup && it != range->end(); ++it, ++n) {
      keys[n] = &*it;
      const Slice user_key = ExtractUserKey(keys[n]->ikey);
      lookups[n].Start(user_key, Locate(user_key), verify);
      __builtin_prefetch(&FingerprintsAt(lookups[n].at.bucket1));
      __builtin_prefetch(&FingerprintsAt(lookups[n].at.bucket2));
    }
    // Pass 2: fingerprints only (buckets are arriving); start loading the
    // likely entry of each key without waiting for it.
    for (size_t k = 0; k < n; k++) {
      FindCandidate(&lookups[k]);
      if (IsEntryOffset(lookups[k].candidate)) {
        PrefetchKeyOf(data_ + lookups[k].candidate);
      }
    }
    // Pass 3: confirm each key.
    Probe probes[kGroup];
    for (size_t k = 0; k < n; k++) {
      probes[k] = FindUserKey(&lookups[k]);
      counts[static_cast<int>(probes[k])]++;
    }
    // Pass 4: feed each GetContext, the found keys' values pinned with one
    // atomic add for the group.
    PinnedFileMemory::Pins pins(memory_,
                                std::count(probes, probes + n, Probe::kFound));
    for (size_t k = 0; k < n; k++) {
      KeyContext& key = *keys[k];
      if (probes[k] == Probe::kDamaged) {
        *key.s = InThisFile(lookups[k].damage);
      } else if (probes[k] == Probe::kFound) {
        Status s = SaveVersions(lookups[k], GetInternalKeySeqno(key.ikey),
                                key.get_context, &pins);
        // Each key's status starts OK: assign only news.
        if (!s.ok()) *key.s = InThisFile(std::move(s));
      }
    }
  }
  RecordProbes(counts);
}

// ---- Iteration: entries in key order. ----

uint64_t CuckooHashTableReader::Rep::OrderSlot(uint64_t index) const {
  const char* slot = data_ + layout_.order_offset + index * layout_.order_width;
  return layout_.order_width == 4 ? DecodeFixed32(slot) : DecodeFixed64(slot);
}

void CuckooHashTableReader::Rep::PrefetchEntry(uint64_t index) const {
  if (index >= layout_.num_entries) return;
  const uint64_t at = index * layout_.order_width;
  if (!order_chunks_.IsReady(at, layout_.order_width)) return;
  const uint64_t offset = OrderSlot(index);
  // A damaged offset is caught when the entry is read; it must not point
  // the prefetch outside the file's memory meanwhile.
  if (offset >= layout_.order_offset) return;
  // All of a slot entry; a key-ordered entry's size is in its header, not
  // known here: its first 128 bytes.
  const uint64_t size =
      layout_.fixed_slots()
          ? std::min(layout_.slot_entry_size, layout_.order_offset - offset)
          : 128;
  PrefetchRange(data_ + offset, size);
}

Status CuckooHashTableReader::Rep::EntryAt(uint64_t index, bool verify,
                                           EntryView* entry) const {
  if (index >= layout_.num_entries) {
    return Status::Corruption("CuckooHashTable: entry index out of range");
  }
  Status damage;
  if (verify && !order_chunks_.Check(index * layout_.order_width,
                                     layout_.order_width, &damage)) {
    return damage;
  }
  ReadEntry(OrderSlot(index), verify, entry, &damage);
  return damage;
}

Status CuckooHashTableReader::Rep::LowerBound(const Slice& target, bool verify,
                                              uint64_t* index) const {
  uint64_t low = 0;
  uint64_t high = layout_.num_entries;
  EntryView entry;
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    const Status s = EntryAt(mid, verify, &entry);
    if (!s.ok()) {
      *index = low;
      return s;
    }
    if (CompareAsPresented(entry, target) < 0) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  *index = low;
  return Status::OK();
}

int CuckooHashTableReader::Rep::CompareAsPresented(const EntryView& entry,
                                                   const Slice& target) const {
  const int by_user_key =
      icomp_.user_comparator()->Compare(entry.user_key, ExtractUserKey(target));
  if (by_user_key != 0) return by_user_key;
  // Newer (larger sequence and type) sorts first, as in InternalKey order.
  const uint64_t presented = PresentedTrailer(entry.trailer);
  const uint64_t wanted = ExtractInternalKeyFooter(target);
  return presented > wanted ? -1 : (presented < wanted ? 1 : 0);
}

FragmentedRangeTombstoneIterator* CuckooHashTableReader::Rep::TombstonesAt(
    SequenceNumber sequence) const {
  if (range_tombstones_ == nullptr) return nullptr;
  return new FragmentedRangeTombstoneIterator(range_tombstones_, icomp_,
                                              sequence);
}

// ---- Estimates and verification. ----

uint64_t CuckooHashTableReader::Rep::OffsetOf(const Slice& key) const {
  // By the bytes of the entries before the key in key order (entry offsets
  // are not monotonic when the data is in slot order); past the last key,
  // the whole file.
  if (layout_.num_entries == 0) return 0;
  // An estimate: damage found on the way only stops the search early.
  uint64_t index;
  LowerBound(key, /*verify=*/true, &index).PermitUncheckedError();
  return BytesBefore(index);
}

uint64_t CuckooHashTableReader::Rep::BytesBefore(uint64_t index) const {
  const uint64_t n = layout_.num_entries;
  if (index >= n) return memory_->size();
  std::call_once(size_marks_once_, [this, n] {
    size_marks_.reserve(n / kSizeMarkStride + 1);
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
      if (i % kSizeMarkStride == 0) size_marks_.push_back(bytes);
      bytes += EntryBytes(i);
    }
  });
  uint64_t bytes = size_marks_[index / kSizeMarkStride];
  for (uint64_t i = index - index % kSizeMarkStride; i < index; i++) {
    bytes += EntryBytes(i);
  }
  return bytes;
}

uint64_t CuckooHashTableReader::Rep::EntryBytes(uint64_t index) const {
  if (layout_.fixed_slots()) return layout_.slot_entry_size;
  // An estimate: a damaged entry (reported by the reads that need it)
  // counts for nothing.
  EntryView entry;
  if (!EntryAt(index, /*verify=*/true, &entry).ok()) return 0;
  constexpr uint64_t kHeaderAndTrailer = 2 + 8;
  return entry.user_key.size() + entry.value.size() + kHeaderAndTrailer;
}

Status CuckooHashTableReader::Rep::ApproximateKeyAnchors(
    const ReadOptions& read_options,
    std::vector<TableReader::Anchor>& anchors) const {
  ServingRead serving(read_options);
  // About 128 evenly spaced user keys, each with the data bytes before it.
  constexpr uint64_t kAnchors = 128;
  const uint64_t n = layout_.num_entries;
  const uint64_t count = std::min(kAnchors, n);
  uint64_t previous = 0;
  EntryView entry;
  for (uint64_t k = 1; k <= count; k++) {
    const uint64_t index = k * n / count;
    const Status s = EntryAt(index - 1, MustVerify(read_options), &entry);
    if (!s.ok()) return s;
    const uint64_t bytes = BytesBefore(index);
    anchors.emplace_back(entry.user_key, static_cast<size_t>(bytes - previous));
    previous = bytes;
  }
  return Status::OK();
}

size_t CuckooHashTableReader::Rep::ApproximateMemoryUsage() const {
  return sizeof(*this) + memory_->loaded_bytes();
}

Status CuckooHashTableReader::Rep::VerifyFile(bool metadata_only) const {
  uint64_t seqno_field;
  return InThisFile(VerifyRegions(/*all_chunks=*/!metadata_only, &seqno_field));
}

// ---- The reader: its operations, done by Rep. ----

CuckooHashTableReader::CuckooHashTableReader(std::unique_ptr<Rep> rep)
    : rep_(std::move(rep)) {}

CuckooHashTableReader::~CuckooHashTableReader() = default;

Status CuckooHashTableReader::Get(const ReadOptions& read_options,
                                  const Slice& key, GetContext* get_context,
                                  const SliceTransform* /*prefix_extractor*/,
                                  bool /*skip_filters*/) {
  return rep_->Get(read_options, key, get_context);
}

void CuckooHashTableReader::MultiGet(const ReadOptions& read_options,
                                     const MultiGetContext::Range* range,
                                     const SliceTransform* /*prefix_extractor*/,
                                     bool /*skip_filters*/) {
  rep_->MultiGet(read_options, range);
}

InternalIterator* CuckooHashTableReader::NewIterator(
    const ReadOptions& read_options, const SliceTransform* /*prefix_extractor*/,
    Arena* arena, bool /*skip_filters*/, TableReaderCaller caller,
    size_t /*compaction_readahead_size*/, bool /*allow_unprepared_value*/) {
  std::unique_ptr<const CuckooHashTableReader> copy;
  if (caller == TableReaderCaller::kCompaction) {
    std::unique_ptr<Rep> rep;
    rep_->CopyForScan(read_options, &rep);
    if (rep != nullptr) copy.reset(new CuckooHashTableReader(std::move(rep)));
  }
  // A copy is checked as the file's own memory would be when loaded.
  const bool verify = copy != nullptr || rep_->MustVerify(read_options);
  if (arena == nullptr) {
    return new CuckooHashTableIterator(this, read_options, verify,
                                       std::move(copy));
  }
  void* mem = arena->AllocateAligned(sizeof(CuckooHashTableIterator));
  return new (mem)
      CuckooHashTableIterator(this, read_options, verify, std::move(copy));
}

uint64_t CuckooHashTableReader::num_entries() const {
  return rep_->num_entries();
}

Status CuckooHashTableReader::EntryAt(uint64_t index, bool verify,
                                      EntryView* entry) const {
  return rep_->EntryAt(index, verify, entry);
}

void CuckooHashTableReader::PrefetchEntry(uint64_t index) const {
  rep_->PrefetchEntry(index);
}

Status CuckooHashTableReader::LowerBound(const Slice& target, bool verify,
                                         uint64_t* index) const {
  return rep_->LowerBound(target, verify, index);
}

bool CuckooHashTableReader::keys_as_stored() const {
  return rep_->keys_as_stored();
}

uint64_t CuckooHashTableReader::PresentedTrailer(uint64_t stored) const {
  return rep_->PresentedTrailer(stored);
}

Status CuckooHashTableReader::InThisFile(Status s) const {
  return rep_->InThisFile(std::move(s));
}

FragmentedRangeTombstoneIterator* CuckooHashTableReader::TombstonesAt(
    SequenceNumber sequence) {
  return rep_->TombstonesAt(sequence);
}

uint64_t CuckooHashTableReader::OffsetOf(const Slice& key) {
  return rep_->OffsetOf(key);
}

Status CuckooHashTableReader::ApproximateKeyAnchors(
    const ReadOptions& read_options, std::vector<Anchor>& anchors) {
  return rep_->ApproximateKeyAnchors(read_options, anchors);
}

std::shared_ptr<const TableProperties>
CuckooHashTableReader::GetTableProperties() const {
  return rep_->properties();
}

size_t CuckooHashTableReader::ApproximateMemoryUsage() const {
  return sizeof(*this) + rep_->ApproximateMemoryUsage();
}

Status CuckooHashTableReader::VerifyFile(bool metadata_only) {
  return rep_->VerifyFile(metadata_only);
}

}  // namespace rocksdb_cuckoo
