// Reads a CuckooHashTable file (format: cuckoo_hash_table_format.h).
//
// Open() brings the file into memory (mapped or loaded) and checks the layout
// and the small regions' checksums; the bulk regions' chunks are verified
// the first time a lookup reads them (format 1: all at open). Lookups then
// run without copying or allocating: Get hashes the user key, probes one or
// two bucket cache lines, compares the key in place and hands GetContext
// values pinned to the file.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include "db/dbformat.h"
#include "db/range_tombstone_fragmenter.h"
#include "table/background_loader.h"
#include "table/chunk_verifier.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/key_location.h"
#include "table/pinned_file_memory.h"
#include "table/table_reader_compat.h"

namespace rocksdb_cuckoo {

class CuckooHashTableReader : public VersionNeutralTableReader {
 public:
  static ROCKSDB_NAMESPACE::Status Open(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const ROCKSDB_NAMESPACE::TableReaderOptions& options,
      std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader>&& file,
      uint64_t file_size, bool load_in_background,
      std::unique_ptr<ROCKSDB_NAMESPACE::TableReader>* reader);
  ~CuckooHashTableReader() override;

  ROCKSDB_NAMESPACE::InternalIterator* NewIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const ROCKSDB_NAMESPACE::SliceTransform* prefix_extractor,
      ROCKSDB_NAMESPACE::Arena* arena, bool skip_filters,
      ROCKSDB_NAMESPACE::TableReaderCaller caller,
      size_t compaction_readahead_size, bool allow_unprepared_value) override;

  ROCKSDB_NAMESPACE::Status Get(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options, const Slice& key,
      ROCKSDB_NAMESPACE::GetContext* get_context,
      const ROCKSDB_NAMESPACE::SliceTransform* prefix_extractor,
      bool skip_filters) override;
  // Hashes a group of keys and prefetches their buckets before probing
  // them, so the cache misses of different keys overlap.
  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& read_options,
                const ROCKSDB_NAMESPACE::MultiGetContext::Range* range,
                const ROCKSDB_NAMESPACE::SliceTransform* prefix_extractor,
                bool skip_filters) override;

  ROCKSDB_NAMESPACE::Status ApproximateKeyAnchors(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      std::vector<Anchor>& anchors) override;
  void SetupForCompaction() override {}
  std::shared_ptr<const ROCKSDB_NAMESPACE::TableProperties> GetTableProperties()
      const override {
    return properties_;
  }
  size_t ApproximateMemoryUsage() const override;

  // For the iterator: entries by their position in internal-key order.
  uint64_t num_entries() const { return layout_.num_entries; }
  // `verify`: MustVerify(), whether chunks not verified yet are verified
  // (and loaded) before use, as BlockBasedTable verifies blocks.
  ROCKSDB_NAMESPACE::Status EntryAt(uint64_t index, bool verify,
                                    EntryView* entry) const;
  // Sets *index to the position of the first entry whose internal key, as
  // presented (with the global seqno, if any), is >= target; fails if an
  // entry on the way is damaged.
  ROCKSDB_NAMESPACE::Status LowerBound(const Slice& target, bool verify,
                                       uint64_t* index) const;
  // Whether every entry's internal key, as presented, is stored in the file:
  // the file was not ingested with a global seqno (see
  // external_file_seqno.h) and keeps its trailers.
  bool keys_as_stored() const {
    return !has_global_seqno() && !layout_.keys_without_trailers;
  }
  bool has_global_seqno() const {
    return global_seqno_ != ROCKSDB_NAMESPACE::kDisableGlobalSequenceNumber;
  }
  // A stored trailer (sequence << 8 | type) as the reader presents it: an
  // ingested file's entries carry its global seqno. Packed by hand, so a
  // damaged type byte (reported elsewhere) cannot trip RocksDB's asserting
  // PackSequenceAndType.
  uint64_t PresentedTrailer(uint64_t stored) const {
    return has_global_seqno() ? global_seqno_ << 8 | (stored & 0xff) : stored;
  }
  // `s`, naming this file if it reports damage: the operator must learn
  // which file to restore, wherever RocksDB surfaces the error.
  ROCKSDB_NAMESPACE::Status InThisFile(ROCKSDB_NAMESPACE::Status s) const {
    return InFile(std::move(s), file_name_);
  }

 protected:
  ROCKSDB_NAMESPACE::Status VerifyFile(bool metadata_only) override;
  uint64_t OffsetOf(const Slice& key) override;
  ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator* TombstonesAt(
      ROCKSDB_NAMESPACE::SequenceNumber sequence) override;

 private:
  CuckooHashTableReader(const ROCKSDB_NAMESPACE::TableReaderOptions& options,
                        PinnedFileMemory* memory, const Layout& layout);
  // Open() without the file's name on its errors.
  static ROCKSDB_NAMESPACE::Status OpenFile(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const ROCKSDB_NAMESPACE::TableReaderOptions& options,
      std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFileReader>&& file,
      uint64_t file_size, bool load_in_background,
      std::unique_ptr<ROCKSDB_NAMESPACE::TableReader>* reader);
  static ROCKSDB_NAMESPACE::Status InFile(ROCKSDB_NAMESPACE::Status s,
                                          const std::string& file_name);
  // Hands the file to the background loader on the first lookup (see
  // CuckooHashTableOptions::load_in_background): a file only compacted is
  // read by its iterator, in order, and needs no help. Lock-free: the one
  // caller that swaps background_load_pending_ to false queues the job.
  void LoadInBackgroundOnFirstLookup();
  // The background loader's work: the bulk regions' chunks no lookup has
  // loaded yet, buckets first (every lookup reads them), then entries. Runs
  // on the loader's thread until the destructor's Remove returns.
  void LoadRemaining(const std::atomic<bool>& stop) const;
  // Checks the chunk checksums of a chunked layout and sets up their
  // verifiers.
  ROCKSDB_NAMESPACE::Status SetUpChunkVerifiers();
  // Checks every region's checksum, except, unless `all_chunks`, those of
  // the chunks of a chunked layout; sets *seqno_field to the file offset of
  // the global seqno field, if the file has one.
  ROCKSDB_NAMESPACE::Status VerifyRegions(bool all_chunks,
                                          uint64_t* seqno_field) const;
  ROCKSDB_NAMESPACE::Status VerifyPropertiesRegion(uint64_t* seqno_field) const;
  // RocksDB's parser of the properties and metaindex blocks asserts on
  // malformed blocks: check their structure first.
  ROCKSDB_NAMESPACE::Status CheckMetaBlocks() const;
  ROCKSDB_NAMESPACE::Status LoadRangeTombstones();

  // Whether some of a file read into memory is still only on disk: then a
  // read that must not do I/O (kBlockCacheTier) cannot be answered.
  bool StillLoading() const;
  static ROCKSDB_NAMESPACE::Status NoIoWhileLoading();
  // Whether a read passes the chunks it touches through their verifiers:
  // as asked, or always where that is what loads them.
  bool MustVerify(const ROCKSDB_NAMESPACE::ReadOptions& read_options) const;

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
  void FindCandidate(Lookup* lookup) const;
  // Where the entry of a bucket's slot starts: stored in the bucket, or, for
  // fixed slots, implied by the slot's index.
  uint64_t EntryOffset(uint64_t bucket, uint32_t slot) const;
  // Looks for the key at its candidate, then in its buckets and the stash.
  Probe FindUserKey(Lookup* lookup) const;
  Match MatchInBucket(uint64_t bucket, Lookup* lookup) const;
  // Parses the entry at `offset` into lookup->entry and compares its key.
  Match KeyAt(uint64_t offset, Lookup* lookup) const;
  // Parses the entry at `offset` of the data region, once its chunks are
  // verified (if `verify`); false, with *damage saying why, if it cannot.
  bool ReadEntry(uint64_t offset, bool verify, EntryView* entry,
                 ROCKSDB_NAMESPACE::Status* damage) const;
  // Feeds the found key's versions visible at `sequence` to get_context,
  // from its first entry on.
  ROCKSDB_NAMESPACE::Status SaveVersions(
      const Lookup& lookup, ROCKSDB_NAMESPACE::SequenceNumber sequence,
      ROCKSDB_NAMESPACE::GetContext* get_context) const;
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

  const ROCKSDB_NAMESPACE::InternalKeyComparator icomp_;
  PinnedFileMemory* const memory_;  // closed (not deleted) by the destructor
  const std::string file_name_;
  const Layout layout_;
  const char* const data_;
  ROCKSDB_NAMESPACE::Statistics* const statistics_;
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
  std::shared_ptr<const ROCKSDB_NAMESPACE::TableProperties> properties_;
  ROCKSDB_NAMESPACE::SequenceNumber global_seqno_ =
      ROCKSDB_NAMESPACE::kDisableGlobalSequenceNumber;
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
  std::shared_ptr<ROCKSDB_NAMESPACE::FragmentedRangeTombstoneList>
      range_tombstones_;
};

}  // namespace rocksdb_cuckoo
