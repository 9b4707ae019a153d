// Sequence numbers of files made by SstFileWriter and then ingested.
//
// SstFileWriter writes every entry with sequence number 0 and marks the file
// with an external-file version property. From version 2 on, ingestion gives
// the whole file one sequence number: either written into the file's global
// seqno property in place (write_global_seqno=true), or kept only in the
// DB's metadata and handed to the reader as the file's largest sequence
// number (write_global_seqno=false). Every entry of such a file, point or
// range tombstone, must then read with that number, or snapshots, iterators
// and compactions order it wrongly against older versions.
#pragma once

#include "db/dbformat.h"
#include "rocksdb/status.h"
#include "rocksdb/table_properties.h"

namespace rocksdb_cuckoo {

// The sequence number every entry of the file reads with, or
// kDisableGlobalSequenceNumber if the file was not made by SstFileWriter
// (entries keep their own). `largest_seqno` is what RocksDB knows of the
// file (kMaxSequenceNumber: unknown, as for SstFileReader). Inconsistent
// properties give Corruption.
ROCKSDB_NAMESPACE::Status ExternalFileSequenceNumber(
    const ROCKSDB_NAMESPACE::TableProperties& properties,
    ROCKSDB_NAMESPACE::SequenceNumber largest_seqno,
    ROCKSDB_NAMESPACE::SequenceNumber* seqno);

// Finds the 8-byte value of the global seqno property in a RocksDB
// properties block without RocksDB's parser: the checksum over the block is
// verified before that parser may read it, and ingestion overwrites this
// field in place, so the checksum reads it as the zeros SstFileWriter wrote.
// Returns the value's offset in the block, or false if the block has no
// such entry or is malformed.
bool FindGlobalSeqnoField(const ROCKSDB_NAMESPACE::Slice& properties_block,
                          uint64_t* offset);

}  // namespace rocksdb_cuckoo
