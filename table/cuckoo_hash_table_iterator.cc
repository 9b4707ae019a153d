#include "table/cuckoo_hash_table_iterator.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Status;

void CuckooHashTableIterator::SeekForPrev(const Slice& target) {
  // The last entry <= target: step back from the first entry >= target
  // unless that entry equals the target.
  const uint64_t index = reader_->LowerBound(target);
  MoveTo(index);
  if (!valid_ && !status_.ok()) return;
  if (!valid_ || entry_.internal_key != target) MoveTo(index - 1);
}

void CuckooHashTableIterator::MoveTo(uint64_t index) {
  index_ = index;
  valid_ = false;
  if (index >= reader_->num_entries()) return;
  if (!reader_->EntryAt(index, &entry_)) {
    status_ = Status::Corruption("CuckooHashTable: malformed entry");
    return;
  }
  valid_ = true;
}

}  // namespace rocksdb_cuckoo
