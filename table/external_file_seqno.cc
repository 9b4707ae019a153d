#include "table/external_file_seqno.h"

#include <string>

#include "table/meta_block_check.h"
#include "table/sst_file_writer_collectors.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

Status ExternalFileSequenceNumber(const TableProperties& properties,
                                  SequenceNumber largest_seqno,
                                  SequenceNumber* seqno) {
  *seqno = kDisableGlobalSequenceNumber;
  const UserCollectedProperties& user = properties.user_collected_properties;
  const auto version = user.find(ExternalSstFilePropertyNames::kVersion);
  const auto global = user.find(ExternalSstFilePropertyNames::kGlobalSeqno);
  if (version == user.end()) {
    if (global != user.end()) {
      return Status::Corruption(
          "CuckooHashTable: global seqno property in a file that is not an "
          "external file");
    }
    return Status::OK();
  }
  if (version->second.size() != 4) {
    return Status::Corruption(
        "CuckooHashTable: malformed external file version property");
  }
  const uint32_t file_version = DecodeFixed32(version->second.data());
  if (file_version < 2) {
    // Version 1 files predate global sequence numbers: entries keep theirs.
    if (file_version != 1 || global != user.end()) {
      return Status::Corruption("CuckooHashTable: external file version " +
                                std::to_string(file_version) +
                                " with a global seqno property");
    }
    return Status::OK();
  }
  SequenceNumber assigned = 0;
  if (global != user.end()) {
    if (global->second.size() != 8) {
      return Status::Corruption(
          "CuckooHashTable: malformed global seqno property");
    }
    assigned = DecodeFixed64(global->second.data());
  }
  if (largest_seqno != kMaxSequenceNumber) {
    // write_global_seqno=false leaves the property 0: the DB's number rules.
    if (assigned == 0) assigned = largest_seqno;
    if (assigned != largest_seqno) {
      return Status::Corruption("CuckooHashTable: global seqno property " +
                                std::to_string(assigned) +
                                " differs from the file's largest seqno " +
                                std::to_string(largest_seqno));
    }
  }
  if (assigned > kMaxSequenceNumber) {
    return Status::Corruption("CuckooHashTable: global seqno " +
                              std::to_string(assigned) + " out of range");
  }
  *seqno = assigned;
  return Status::OK();
}

bool FindGlobalSeqnoField(const Slice& properties_block, uint64_t* offset) {
  bool found = false;
  const bool well_formed =
      WalkMetaBlock(properties_block, [&](const BlockEntry& entry) {
        if (entry.key != ExternalSstFilePropertyNames::kGlobalSeqno) {
          return true;
        }
        found = entry.value_size == 8;
        *offset = entry.value_offset;
        return false;
      });
  return well_formed && found;
}

}  // namespace rocksdb_cuckoo
