// What differs between RocksDB 7.8 and 9.x in the interfaces a table
// builder calls, kept here so the builder itself is version-neutral.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "file/writable_file_writer.h"
#include "rocksdb/version.h"
#include "table/format.h"
#include "table/meta_blocks.h"
#include "table/table_builder.h"

namespace rocksdb_cuckoo {

#if ROCKSDB_MAJOR >= 9
using PropertyCollector = ROCKSDB_NAMESPACE::InternalTblPropColl;
#else
using PropertyCollector = ROCKSDB_NAMESPACE::IntTblPropCollector;
#endif
using PropertyCollectors = std::vector<std::unique_ptr<PropertyCollector>>;

// The DB's table property collectors for a new file, and their names.
inline void CreatePropertyCollectors(
    const ROCKSDB_NAMESPACE::TableBuilderOptions& tbo,
    PropertyCollectors* collectors, std::string* names) {
#if ROCKSDB_MAJOR >= 10
  // 10.x tells collectors which sequence numbers a last-level file keeps.
  for (auto& factory : *tbo.internal_tbl_prop_coll_factories) {
    PropertyCollector* collector = factory->CreateInternalTblPropColl(
        tbo.column_family_id, tbo.level_at_creation, tbo.ioptions.num_levels,
        tbo.last_level_inclusive_max_seqno_threshold);
#elif ROCKSDB_MAJOR >= 9
  for (auto& factory : *tbo.internal_tbl_prop_coll_factories) {
    PropertyCollector* collector = factory->CreateInternalTblPropColl(
        tbo.column_family_id, tbo.level_at_creation, tbo.ioptions.num_levels);
#else
  for (auto& factory : *tbo.int_tbl_prop_collector_factories) {
    PropertyCollector* collector = factory->CreateIntTblPropCollector(
        tbo.column_family_id, tbo.level_at_creation);
#endif
    if (collector == nullptr) continue;  // a factory may decline this file
    collectors->emplace_back(collector);
    names->append(names->empty() ? "" : ",").append(collector->Name());
  }
}

// A TableBuilder whose version-dependent virtuals forward to version-neutral
// ones, which the builder implements.
class VersionNeutralTableBuilder : public ROCKSDB_NAMESPACE::TableBuilder {
 public:
  // Flushes and compactions hand over the file's oldest ancestor time and
  // the seqno-to-time pairs its entries span, for table properties that
  // TTL, FIFO and tiering decisions read back.
#if ROCKSDB_MAJOR >= 9
  void SetSeqnoTimeTableProperties(
      const ROCKSDB_NAMESPACE::SeqnoToTimeMapping& relevant_mapping,
      uint64_t oldest_ancestor_time) override {
    std::string encoded;
    relevant_mapping.EncodeTo(encoded);
    SetTimeProperties(std::move(encoded), oldest_ancestor_time);
  }
#else
  void SetSeqnoTimeTableProperties(const std::string& encoded_mapping,
                                   uint64_t oldest_ancestor_time) override {
    SetTimeProperties(encoded_mapping, oldest_ancestor_time);
  }
#endif

 protected:
  virtual void SetTimeProperties(std::string encoded_seqno_to_time_mapping,
                                 uint64_t oldest_ancestor_time) = 0;
};

// Properties that only 9.x's TableProperties carries.
inline void SetVersionSpecificProperties(
    const ROCKSDB_NAMESPACE::TableBuilderOptions& tbo,
    ROCKSDB_NAMESPACE::TableProperties* properties) {
#if ROCKSDB_MAJOR >= 9
  properties->newest_key_time = static_cast<uint64_t>(tbo.newest_key_time);
  // Known from here on (UINT64_MAX means unknown): raised by CountSequence.
  properties->key_largest_seqno = 0;
#else
  (void)tbo;
  (void)properties;
#endif
}

// 9.x records the largest sequence number among a file's entries, 10.x
// the smallest too; ingesting a DB's own files reads them instead of every
// key (and refuses a prepared file without the smallest).
inline void CountSequence(ROCKSDB_NAMESPACE::SequenceNumber sequence,
                          ROCKSDB_NAMESPACE::TableProperties* properties) {
#if ROCKSDB_MAJOR >= 9
  properties->key_largest_seqno =
      std::max(properties->key_largest_seqno, sequence);
#endif
#if ROCKSDB_MAJOR >= 10
  properties->key_smallest_seqno =
      std::min(properties->key_smallest_seqno, sequence);
#endif
#if ROCKSDB_MAJOR < 9
  (void)sequence;
  (void)properties;
#endif
}

// I/O options for the file's writes. 9.x takes them (priority, I/O
// activity) from the WriteOptions of the flush or compaction.
inline ROCKSDB_NAMESPACE::IOStatus PrepareWriteOptions(
    const ROCKSDB_NAMESPACE::TableBuilderOptions& tbo,
    ROCKSDB_NAMESPACE::IOOptions* io_options) {
#if ROCKSDB_MAJOR >= 9
  return ROCKSDB_NAMESPACE::WritableFileWriter::PrepareIOOptions(
      tbo.write_options, *io_options);
#else
  (void)tbo;
  (void)io_options;
  return ROCKSDB_NAMESPACE::IOStatus::OK();
#endif
}

inline ROCKSDB_NAMESPACE::IOStatus AppendToFile(
    ROCKSDB_NAMESPACE::WritableFileWriter* file,
    const ROCKSDB_NAMESPACE::IOOptions& io_options,
    const ROCKSDB_NAMESPACE::Slice& data) {
#if ROCKSDB_MAJOR >= 9
  return file->Append(io_options, data);
#else
  (void)io_options;
  return file->Append(data);
#endif
}

// Adds the user-collected properties, ours and the collectors', to the
// properties block. 9.x also records them in `properties`.
inline void AddCollectedProperties(
    const PropertyCollectors& collectors, ROCKSDB_NAMESPACE::Logger* logger,
    ROCKSDB_NAMESPACE::PropertyBlockBuilder* block,
    ROCKSDB_NAMESPACE::TableProperties* properties) {
#if ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::NotifyCollectTableCollectorsOnFinish(
      collectors, logger, block, properties->user_collected_properties,
      properties->readable_properties);
#else
  block->Add(properties->user_collected_properties);
  ROCKSDB_NAMESPACE::NotifyCollectTableCollectorsOnFinish(collectors, logger,
                                                          block);
#endif
}

}  // namespace rocksdb_cuckoo
