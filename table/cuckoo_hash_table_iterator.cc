#include "table/cuckoo_hash_table_iterator.h"

#include "table/serving_read.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Status;

bool CuckooHashTableIterator::FindLowerBound(const Slice& target,
                                             uint64_t* index) {
  ServingRead serving(read_options_);
  const Status s = reader_->LowerBound(target, verify_, index);
  if (s.ok()) return true;
  valid_ = false;
  status_ = reader_->InThisFile(s);
  return false;
}

void CuckooHashTableIterator::Seek(const Slice& target) {
  uint64_t index;
  if (FindLowerBound(target, &index)) MoveTo(index);
}

void CuckooHashTableIterator::SeekForPrev(const Slice& target) {
  // The last entry <= target: step back from the first entry >= target
  // unless that entry equals the target.
  uint64_t index;
  if (!FindLowerBound(target, &index)) return;
  MoveTo(index);
  if (!valid_ && !status_.ok()) return;
  if (!valid_ || key() != target) MoveTo(index - 1);
}

void CuckooHashTableIterator::MoveTo(uint64_t index) {
  ServingRead serving(read_options_);
  index_ = index;
  valid_ = false;
  // Each positioning starts afresh: RocksDB asserts that a valid iterator
  // has an OK status.
  status_ = Status::OK();
  if (index >= num_entries_) return;
  // RocksDB parses every key an iterator yields and asserts on unknown
  // types: a damaged type byte must stop here.
  const Status s = reader_->EntryAt(index, verify_, &entry_);
  if (!s.ok()) {
    status_ = reader_->InThisFile(s);
    return;
  }
  if (!IsStoredType(entry_.type())) {
    status_ = reader_->InThisFile(
        Status::Corruption("CuckooHashTable: malformed entry"));
    return;
  }
  valid_ = true;
  if (!keys_in_file_) {
    key_buffer_.assign(entry_.user_key.data(), entry_.user_key.size());
    ROCKSDB_NAMESPACE::PutFixed64(&key_buffer_,
                                  reader_->PresentedTrailer(entry_.trailer));
  }
}

}  // namespace rocksdb_cuckoo
