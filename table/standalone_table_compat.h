// What differs between RocksDB 7.8 and 9.x for code that builds, opens and
// queries a table file outside a DB (tests, tools, benchmarks, the fuzzer).
// Every version switch those need lives here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/table_properties_collector.h"
#include "file/writable_file_writer.h"
#include "options/cf_options.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/version.h"
#include "table/multiget_context.h"
#include "table/table_builder.h"
#include "table/table_reader.h"

#if ROCKSDB_MAJOR < 7 || ROCKSDB_MAJOR == 8 || ROCKSDB_MAJOR > 11
#error "rocksdb-cuckoo supports RocksDB 7.8, 9.x, 10.x and 11.x"
#endif

namespace rocksdb_cuckoo {

#if ROCKSDB_MAJOR >= 9
using TablePropertyCollectorFactories =
    ROCKSDB_NAMESPACE::InternalTblPropCollFactories;
#else
using TablePropertyCollectorFactories =
    ROCKSDB_NAMESPACE::IntTblPropCollectorFactories;
#endif

// Everything a TableBuilderOptions refers to besides the DB's options, kept
// alive here: TableBuilderOptions holds references only.
struct StandaloneBuildContext {
  TablePropertyCollectorFactories collectors;
  ROCKSDB_NAMESPACE::CompressionOptions compression_options;
  std::string column_family_name = "default";
  ROCKSDB_NAMESPACE::ReadOptions read_options;
  ROCKSDB_NAMESPACE::WriteOptions write_options;

  // Options for one uncompressed file of column family 0 at an unknown
  // level. The result refers to this context and to the arguments.
  ROCKSDB_NAMESPACE::TableBuilderOptions BuilderOptions(
      const ROCKSDB_NAMESPACE::ImmutableOptions& ioptions,
      const ROCKSDB_NAMESPACE::MutableCFOptions& moptions,
      const ROCKSDB_NAMESPACE::InternalKeyComparator& icomp) const {
#if ROCKSDB_MAJOR >= 9
    return ROCKSDB_NAMESPACE::TableBuilderOptions(
        ioptions, moptions, read_options, write_options, icomp, &collectors,
        ROCKSDB_NAMESPACE::kNoCompression, compression_options,
        /*_column_family_id=*/0, column_family_name, /*_level=*/-1,
        /*_newest_key_time=*/0);
#else
    return ROCKSDB_NAMESPACE::TableBuilderOptions(
        ioptions, moptions, icomp, &collectors,
        ROCKSDB_NAMESPACE::kNoCompression, compression_options,
        /*_column_family_id=*/0, column_family_name, /*_level=*/-1);
#endif
  }
};

// Reader options with every optional field at its default; callers set the
// named fields they need afterwards. Only the required arguments are passed
// positionally: 9.x inserted a required argument before the optional ones,
// so a positional 7.8 call would compile there with its values shifted.
// The result refers to the arguments, so temporaries are refused.
inline ROCKSDB_NAMESPACE::TableReaderOptions MakeTableReaderOptions(
    const ROCKSDB_NAMESPACE::ImmutableOptions& ioptions,
    const std::shared_ptr<const ROCKSDB_NAMESPACE::SliceTransform>&
        prefix_extractor,
    const ROCKSDB_NAMESPACE::EnvOptions& env_options,
    const ROCKSDB_NAMESPACE::InternalKeyComparator& icomp) {
#if ROCKSDB_MAJOR >= 10
  return ROCKSDB_NAMESPACE::TableReaderOptions(
      ioptions, prefix_extractor, /*_compression_manager=*/nullptr,
      env_options, icomp, /*_block_protection_bytes_per_key=*/0);
#elif ROCKSDB_MAJOR >= 9
  return ROCKSDB_NAMESPACE::TableReaderOptions(
      ioptions, prefix_extractor, env_options, icomp,
      /*_block_protection_bytes_per_key=*/0);
#else
  return ROCKSDB_NAMESPACE::TableReaderOptions(ioptions, prefix_extractor,
                                               env_options, icomp);
#endif
}
ROCKSDB_NAMESPACE::TableReaderOptions MakeTableReaderOptions(
    const ROCKSDB_NAMESPACE::ImmutableOptions&,
    const std::shared_ptr<const ROCKSDB_NAMESPACE::SliceTransform>&,
    ROCKSDB_NAMESPACE::EnvOptions&&,
    const ROCKSDB_NAMESPACE::InternalKeyComparator&) = delete;

// Closes a written file; 9.x takes the I/O options of the close.
inline ROCKSDB_NAMESPACE::IOStatus CloseWrittenFile(
    ROCKSDB_NAMESPACE::WritableFileWriter* writer) {
#if ROCKSDB_MAJOR >= 9
  return writer->Close(ROCKSDB_NAMESPACE::IOOptions());
#else
  return writer->Close();
#endif
}

// Size estimates; 9.x passes the ReadOptions of the query first.
inline uint64_t ApproximateOffsetOf(
    ROCKSDB_NAMESPACE::TableReader* reader, const ROCKSDB_NAMESPACE::Slice& key,
    ROCKSDB_NAMESPACE::TableReaderCaller caller) {
#if ROCKSDB_MAJOR >= 9
  return reader->ApproximateOffsetOf(ROCKSDB_NAMESPACE::ReadOptions(), key,
                                     caller);
#else
  return reader->ApproximateOffsetOf(key, caller);
#endif
}

inline uint64_t ApproximateSize(ROCKSDB_NAMESPACE::TableReader* reader,
                                const ROCKSDB_NAMESPACE::Slice& start,
                                const ROCKSDB_NAMESPACE::Slice& end,
                                ROCKSDB_NAMESPACE::TableReaderCaller caller) {
#if ROCKSDB_MAJOR >= 9
  return reader->ApproximateSize(ROCKSDB_NAMESPACE::ReadOptions(), start, end,
                                 caller);
#else
  return reader->ApproximateSize(start, end, caller);
#endif
}

// Appends a MultiGet key with no column family, wide columns or timestamp;
// 9.x added the wide-columns result before the timestamp.
inline void AddKeyContext(std::vector<ROCKSDB_NAMESPACE::KeyContext>* contexts,
                          const ROCKSDB_NAMESPACE::Slice& user_key,
                          ROCKSDB_NAMESPACE::PinnableSlice* value,
                          ROCKSDB_NAMESPACE::Status* status) {
#if ROCKSDB_MAJOR >= 9
  contexts->emplace_back(nullptr, user_key, value, /*cols=*/nullptr,
                         /*ts=*/nullptr, status);
#else
  contexts->emplace_back(nullptr, user_key, value, /*ts=*/nullptr, status);
#endif
}

}  // namespace rocksdb_cuckoo
