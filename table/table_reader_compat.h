// What differs between RocksDB 7.8 and 9.x in the interfaces a table reader
// implements and calls, kept here so the reader itself is version-neutral.
#pragma once

#include <memory>

#include "db/dbformat.h"
#include "db/range_tombstone_fragmenter.h"
#include "file/random_access_file_reader.h"
#include "rocksdb/options.h"
#include "rocksdb/snapshot.h"
#include "rocksdb/version.h"
#include "table/block_based/block.h"
#include "table/get_context.h"
#include "table/meta_blocks.h"
#include "table/serving_read.h"
#include "table/table_reader.h"

#if ROCKSDB_MAJOR < 7 || ROCKSDB_MAJOR == 8 || ROCKSDB_MAJOR > 11
#error "rocksdb-cuckoo supports RocksDB 7.8, 9.x, 10.x and 11.x"
#endif

#if ROCKSDB_MAJOR < 11
namespace ROCKSDB_NAMESPACE {
extern const uint64_t
    kLegacyBlockBasedTableMagicNumber;  // not in 7.8's headers
}  // namespace ROCKSDB_NAMESPACE
#endif

namespace rocksdb_cuckoo {

// Block-based files written before RocksDB 4.6, which 11.x no longer reads.
inline bool IsLegacyBlockBasedMagic(uint64_t magic) {
#if ROCKSDB_MAJOR < 11
  return magic == ROCKSDB_NAMESPACE::kLegacyBlockBasedTableMagicNumber;
#else
  (void)magic;
  return false;
#endif
}

// A TableReader whose version-dependent virtuals forward to version-neutral
// ones, which the reader implements.
class VersionNeutralTableReader : public ROCKSDB_NAMESPACE::TableReader {
 public:
#if ROCKSDB_MAJOR >= 9
  uint64_t ApproximateOffsetOf(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const ROCKSDB_NAMESPACE::Slice& key,
      ROCKSDB_NAMESPACE::TableReaderCaller) override {
    ServingRead serving(read_options);
    return OffsetOf(key);
  }
  uint64_t ApproximateSize(const ROCKSDB_NAMESPACE::ReadOptions& read_options,
                           const ROCKSDB_NAMESPACE::Slice& start,
                           const ROCKSDB_NAMESPACE::Slice& end,
                           ROCKSDB_NAMESPACE::TableReaderCaller) override {
    ServingRead serving(read_options);
    return SizeBetween(start, end);
  }
  // 9.x's level iterator asks files below L0 for their tombstones by
  // sequence number; the default answer (none) would make iterators ignore
  // range deletions there.
  ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator*
  NewRangeTombstoneIterator(
      ROCKSDB_NAMESPACE::SequenceNumber read_seqno,
      const ROCKSDB_NAMESPACE::Slice* /*timestamp*/) override {
    return TombstonesAt(read_seqno);
  }
#else
  uint64_t ApproximateOffsetOf(const ROCKSDB_NAMESPACE::Slice& key,
                               ROCKSDB_NAMESPACE::TableReaderCaller) override {
    return OffsetOf(key);
  }
  uint64_t ApproximateSize(const ROCKSDB_NAMESPACE::Slice& start,
                           const ROCKSDB_NAMESPACE::Slice& end,
                           ROCKSDB_NAMESPACE::TableReaderCaller) override {
    return SizeBetween(start, end);
  }
#endif
#if ROCKSDB_MAJOR > 10 || (ROCKSDB_MAJOR == 10 && ROCKSDB_MINOR >= 9)
  // 10.9's compaction output verification may ask for the metadata alone
  // when it reads every entry afterwards anyway.
  ROCKSDB_NAMESPACE::Status VerifyChecksum(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      ROCKSDB_NAMESPACE::TableReaderCaller,
      bool meta_blocks_only = false) override {
    ServingRead serving(read_options);
    return VerifyFile(meta_blocks_only);
  }
#else
  ROCKSDB_NAMESPACE::Status VerifyChecksum(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      ROCKSDB_NAMESPACE::TableReaderCaller) override {
    ServingRead serving(read_options);
    return VerifyFile(/*metadata_only=*/false);
  }
#endif
  ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator*
  NewRangeTombstoneIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options) override {
    return TombstonesAt(read_options.snapshot != nullptr
                            ? read_options.snapshot->GetSequenceNumber()
                            : ROCKSDB_NAMESPACE::kMaxSequenceNumber);
  }

 protected:
  // Checks the file against its checksums: its metadata only when
  // `metadata_only`, every byte otherwise. As RocksDB's default: none.
  virtual ROCKSDB_NAMESPACE::Status VerifyFile(bool /*metadata_only*/) {
    return ROCKSDB_NAMESPACE::Status::NotSupported(
        "VerifyChecksum() not supported");
  }
  // Bytes of the file before the first entry >= key, estimated.
  virtual uint64_t OffsetOf(const ROCKSDB_NAMESPACE::Slice& key) = 0;
  uint64_t SizeBetween(const ROCKSDB_NAMESPACE::Slice& start,
                       const ROCKSDB_NAMESPACE::Slice& end) {
    const uint64_t begin = OffsetOf(start);
    const uint64_t finish = OffsetOf(end);
    return finish > begin ? finish - begin : 0;
  }
  // The file's range tombstones visible at `sequence`, or nullptr if none.
  virtual ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator* TombstonesAt(
      ROCKSDB_NAMESPACE::SequenceNumber sequence) = 0;
};

// Types a flush or compaction stores as point entries; anything else in a
// file means it is damaged (GetContext and ParseInternalKey assert on
// unknown types). 9.x adds TimedPut's value with a preferred seqno.
inline bool IsStoredType(ROCKSDB_NAMESPACE::ValueType type) {
  using namespace ROCKSDB_NAMESPACE;
  switch (type) {
    case kTypeValue:
    case kTypeDeletion:
    case kTypeSingleDeletion:
    case kTypeMerge:
    case kTypeBlobIndex:
    case kTypeWideColumnEntity:
    case kTypeDeletionWithTimestamp:
#if ROCKSDB_MAJOR >= 9
    case kTypeValuePreferredSeqno:
#endif
      return true;
    default:
      return false;
  }
}

// Feeds one version to a GetContext; false when the lookup is complete.
// 9.x also reports a failed read (say, a merge operator error) there.
inline bool SaveToGetContext(ROCKSDB_NAMESPACE::GetContext* get_context,
                             const ROCKSDB_NAMESPACE::ParsedInternalKey& key,
                             const ROCKSDB_NAMESPACE::Slice& value,
                             ROCKSDB_NAMESPACE::Cleanable* pinner,
                             ROCKSDB_NAMESPACE::Status* read_status) {
  bool matched = false;
#if ROCKSDB_MAJOR >= 9
  return get_context->SaveValue(key, value, &matched, read_status, pinner);
#else
  (void)read_status;
  return get_context->SaveValue(key, value, &matched, pinner);
#endif
}

// Reads [offset, offset + n) of the file. 9.x takes the I/O options
// (priority, I/O activity) from the ReadOptions of the operation that reads.
inline ROCKSDB_NAMESPACE::IOStatus ReadFileRange(
    ROCKSDB_NAMESPACE::RandomAccessFileReader* file,
    const ROCKSDB_NAMESPACE::ReadOptions& read_options, uint64_t offset,
    uint64_t n, ROCKSDB_NAMESPACE::Slice* result, char* scratch) {
#if ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::IOOptions io_options;
  ROCKSDB_NAMESPACE::IOStatus s =
      file->PrepareIOOptions(read_options, io_options);
  if (!s.ok()) return s;
  return file->Read(io_options, offset, static_cast<size_t>(n), result, scratch,
                    nullptr);
#else
  return file->Read(ROCKSDB_NAMESPACE::IOOptions(), offset,
                    static_cast<size_t>(n), result, scratch, nullptr,
                    read_options.rate_limiter_priority);
#endif
}

// Parses the file's properties block, `block`, which starts at `offset` in
// the file (ingestion rewrites a field found through that offset). 7.8 and
// 9.x find the block through the file's footer; 10.x parses it directly,
// which 11.x requires: its footer decoding refuses magic numbers other than
// RocksDB's own.
inline ROCKSDB_NAMESPACE::Status ReadProperties(
    ROCKSDB_NAMESPACE::RandomAccessFileReader* file, uint64_t file_size,
    const ROCKSDB_NAMESPACE::Slice& block, uint64_t offset,
    uint64_t magic_number, const ROCKSDB_NAMESPACE::ImmutableOptions& ioptions,
    const ROCKSDB_NAMESPACE::ReadOptions& read_options,
    std::unique_ptr<ROCKSDB_NAMESPACE::TableProperties>* properties) {
#if ROCKSDB_MAJOR >= 10
  (void)file;
  (void)file_size;
  (void)magic_number;
  (void)read_options;
  ROCKSDB_NAMESPACE::Block parsed{ROCKSDB_NAMESPACE::BlockContents(block)};
  properties->reset(new ROCKSDB_NAMESPACE::TableProperties);
  return ROCKSDB_NAMESPACE::ParsePropertiesBlock(ioptions, offset, parsed,
                                                 *properties);
#elif ROCKSDB_MAJOR >= 9
  (void)block;
  (void)offset;
  return ROCKSDB_NAMESPACE::ReadTableProperties(
      file, file_size, magic_number, ioptions, read_options, properties);
#else
  (void)block;
  (void)offset;
  (void)read_options;
  return ROCKSDB_NAMESPACE::ReadTableProperties(file, file_size, magic_number,
                                                ioptions, properties);
#endif
}

}  // namespace rocksdb_cuckoo
