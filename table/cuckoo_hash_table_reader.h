// Reads a CuckooHashTable file (format: cuckoo_hash_table_format.h).
//
// Open() brings the file into memory (mapped or loaded) and checks the layout
// and the small regions' checksums; the bulk regions' chunks are verified
// the first time a lookup reads them (format 1: all at open). Lookups then
// run without copying or allocating: Get hashes the user key, probes one or
// two bucket cache lines, compares the key in place and hands GetContext
// values pinned to the file.
#pragma once

#include <memory>
#include <vector>

#include "table/cuckoo_hash_table_format.h"
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
      const override;
  size_t ApproximateMemoryUsage() const override;

  // For the iterator: entries by their position in internal-key order.
  uint64_t num_entries() const;
  // `verify`: whether chunks not verified yet are verified (and loaded)
  // before use, as BlockBasedTable verifies blocks.
  ROCKSDB_NAMESPACE::Status EntryAt(uint64_t index, bool verify,
                                    EntryView* entry) const;
  // Starts fetching entry `index` into the CPU cache if its place in the
  // order index can be read now; does nothing otherwise (nor past the end).
  // A scan calls it a few entries ahead: key order visits a slot-ordered
  // file's entries at random places, a cache miss each.
  void PrefetchEntry(uint64_t index) const;
  // Sets *index to the position of the first entry whose internal key, as
  // presented (with the global seqno, if any), is >= target; fails if an
  // entry on the way is damaged.
  ROCKSDB_NAMESPACE::Status LowerBound(const Slice& target, bool verify,
                                       uint64_t* index) const;
  // Whether every entry's internal key, as presented, is stored in the file:
  // the file was not ingested with a global seqno (see
  // external_file_seqno.h) and keeps its trailers.
  bool keys_as_stored() const;
  // A stored trailer (sequence << 8 | type) as the reader presents it: an
  // ingested file's entries carry its global seqno.
  uint64_t PresentedTrailer(uint64_t stored) const;
  // `s`, naming this file if it reports damage: the operator must learn
  // which file to restore, wherever RocksDB surfaces the error.
  ROCKSDB_NAMESPACE::Status InThisFile(ROCKSDB_NAMESPACE::Status s) const;

 protected:
  ROCKSDB_NAMESPACE::Status VerifyFile(bool metadata_only) override;
  uint64_t OffsetOf(const Slice& key) override;
  ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator* TombstonesAt(
      ROCKSDB_NAMESPACE::SequenceNumber sequence) override;

 private:
  // The file in memory, what was checked at open, and the steps of every
  // read: defined with them in the .cc.
  class Rep;
  explicit CuckooHashTableReader(std::unique_ptr<Rep> rep);

  const std::unique_ptr<Rep> rep_;
};

}  // namespace rocksdb_cuckoo
