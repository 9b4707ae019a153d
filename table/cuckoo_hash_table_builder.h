// Writes a CuckooHashTable file (format: cuckoo_hash_table_format.h) from the
// sorted entries of a flush or compaction. Entries stream to the file as they
// arrive; the builder keeps only 16-24 bytes per user key and 8 per entry for
// the hash index and order index, written by Finish().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/table_properties_collector.h"
#include "table/cuckoo_hash_table.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/cuckoo_placement.h"
#include "table/format.h"
#include "table/slot_order_buffer.h"
#include "table/table_builder.h"
#include "table/table_builder_compat.h"
#include "util/checksum.h"

namespace rocksdb_cuckoo {

class CuckooHashTableBuilder : public VersionNeutralTableBuilder {
 public:
  CuckooHashTableBuilder(
      const ROCKSDB_NAMESPACE::TableBuilderOptions& builder_options,
      const CuckooHashTableOptions& options,
      ROCKSDB_NAMESPACE::WritableFileWriter* file);

  // Call order: Add() for each entry, in internal-key order, then exactly
  // one of Finish() or Abandon(). An Add() after either is ignored, as is
  // one after an entry was refused (status() says why); a Finish() after
  // either returns InvalidArgument.
  void Add(const ROCKSDB_NAMESPACE::Slice& key,
           const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status status() const override { return status_; }
  ROCKSDB_NAMESPACE::IOStatus io_status() const override { return io_status_; }
  ROCKSDB_NAMESPACE::Status Finish() override;
  void Abandon() override { closed_ = true; }
  uint64_t NumEntries() const override { return properties_.num_entries; }
  // A builder that refused an entry is not empty: RocksDB abandons an empty
  // flush output and drops the memtable, so the refusal must reach Finish.
  bool IsEmpty() const override {
    return status_.ok() && TableBuilder::IsEmpty();
  }
  uint64_t FileSize() const override {
    return offset_ + pending_.bytes() + staged_.size();
  }
  uint64_t EstimatedFileSize() const override;
  ROCKSDB_NAMESPACE::TableProperties GetTableProperties() const override {
    return properties_;
  }
  std::string GetFileChecksum() const override;
  const char* GetFileChecksumFuncName() const override;
  // Whether a property collector asks for this file to be compacted again
  // (RocksDB's CompactOnDeletionCollector, for one, once it sees many
  // deletions).
  bool NeedCompact() const override;

 protected:
  void SetTimeProperties(std::string encoded_seqno_to_time_mapping,
                         uint64_t oldest_ancestor_time) override;

 private:
  // Appends to the file and to the checksum of the current region.
  void Append(const ROCKSDB_NAMESPACE::Slice& bytes);
  void CountInProperties(ROCKSDB_NAMESPACE::ValueType type,
                         const ROCKSDB_NAMESPACE::Slice& key,
                         const ROCKSDB_NAMESPACE::Slice& value);
  // The region from here to the next EndRegion is a bulk one (data, order
  // index, buckets): in a chunked layout, checksummed per chunk. Any other
  // region is checksummed as a whole.
  void StartBulkRegion();
  // Finishes the current region and returns its checksum: of its bytes, or,
  // for a bulk region, of its chunk checksums, which are kept for the chunk
  // checksum region. The next region is not a bulk one unless started so.
  uint64_t EndRegion();
  // Range tombstones, in the order they come, for a region of their own.
  void AddRangeTombstone(const ROCKSDB_NAMESPACE::Slice& key,
                         const ROCKSDB_NAMESPACE::Slice& value);
  // Every other entry, to the data region (or held for slot order).
  void AddEntry(const ROCKSDB_NAMESPACE::Slice& user_key,
                const ROCKSDB_NAMESPACE::Slice& key,
                const ROCKSDB_NAMESPACE::Slice& value);
  // Records a user key's first entry and hash; false when the file is full.
  bool StartUserKey(const ROCKSDB_NAMESPACE::Slice& user_key);
  // Writes the buffered entries in key order and streams the rest.
  void StopSlotOrdering();
  // Writes what key-ordered entries wait in staged_.
  void WriteStaged();
  // Finish's steps, in call order: PlaceUserKeys; while slot order holds,
  // WriteSlotOrderedData (StopSlotOrdering if there is no entry);
  // WriteOrderIndex, which ends the data region; WriteHashIndex, which
  // reads PlaceUserKeys' placement; WriteMetaBlocks.
  void PlaceUserKeys();
  void WriteSlotOrderedData();
  void WriteOrderIndex();
  void WriteHashIndex();
  void WriteMetaBlocks();

  const ROCKSDB_NAMESPACE::ImmutableOptions& ioptions_;
  const CuckooHashTableOptions options_;
  ROCKSDB_NAMESPACE::WritableFileWriter* const file_;
  PropertyCollectors collectors_;
  ROCKSDB_NAMESPACE::IOOptions io_options_;
  ROCKSDB_NAMESPACE::TableProperties properties_;
  ROCKSDB_NAMESPACE::Status status_;
  ROCKSDB_NAMESPACE::IOStatus io_status_;
  bool closed_ = false;

  uint64_t offset_ = 0;      // bytes written to the file
  uint64_t data_bytes_ = 0;  // size of the data region so far
  // While every entry has the same size and its own user key, the data
  // region is held in pending_ so Finish() can write it in slot order.
  bool slot_ordered_;
  // EstimatedFileSize's slots per user key: 1 / hash_table_ratio.
  const double slots_per_key_;
  uint64_t slot_entry_size_ = 0;  // with its varints
  uint64_t slot_key_size_ = 0;    // internal key
  uint64_t slot_value_size_ = 0;
  // Every entry so far is a kTypeValue at sequence 0 (a bottommost file).
  bool plain_trailers_ = true;
  SlotOrderBuffer pending_;
  // Key-ordered entries not yet written: one write per chunk.
  std::string staged_;
  Placement placement_;
  std::unique_ptr<ChecksumStream> region_checksum_;
  ChunkChecksums chunk_checksums_;  // of the current region, if bulk
  bool bulk_region_ = false;
  std::string chunk_sums_;  // of the bulk regions so far
  std::string scratch_;
  std::string last_user_key_;
  std::string range_dels_;               // encoded range tombstone entries
  std::vector<uint64_t> entry_offsets_;  // every entry, in order
  std::vector<uint64_t> group_offsets_;  // first entry of each user key
  std::vector<uint64_t> key_hashes_;     // HashKey of each user key
  std::vector<uint64_t> identity_keys_;  // only with identity_as_first_hash
  Layout layout_;
};

}  // namespace rocksdb_cuckoo
