// Iterates a CuckooHashTable file in internal-key order through its order
// index: Seek and SeekForPrev are binary searches, Next and Prev step one
// position. Nothing is sorted at open, and keys and values point into the
// file's memory, which lives as long as the reader, or into a compaction's
// copy of the file, which lives as long as the iterator (so they are
// pinned) — except the keys of an ingested file, which carry the file's
// global sequence number and so are rebuilt in a buffer of the iterator.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "table/cuckoo_hash_table_reader.h"
#include "table/internal_iterator.h"

namespace rocksdb_cuckoo {

class CuckooHashTableIterator : public ROCKSDB_NAMESPACE::InternalIterator {
 public:
  // `verify`: whether the reads pass the chunk verifiers (the reader's
  // MustVerify() for the iterator's ReadOptions). `copy`: a reader the
  // iterator reads instead of `reader` and keeps until it is destroyed (a
  // compaction's copy of the file), or none.
  CuckooHashTableIterator(
      const CuckooHashTableReader* reader,
      const ROCKSDB_NAMESPACE::ReadOptions& read_options, bool verify,
      std::unique_ptr<const CuckooHashTableReader> copy = nullptr)
      : copy_(std::move(copy)),
        reader_(copy_ != nullptr ? copy_.get() : reader),
        read_options_(read_options),
        num_entries_(reader_->num_entries()),
        keys_in_file_(reader_->keys_as_stored()),
        verify_(verify) {}

  bool Valid() const override { return valid_; }
  void SeekToFirst() override { MoveTo(0); }
  void SeekToLast() override { MoveTo(num_entries_ - 1); }
  void Seek(const Slice& target) override;
  void SeekForPrev(const Slice& target) override;
  void Next() override {
    reader_->PrefetchEntry(index_ + kPrefetchDistance);
    MoveTo(index_ + 1);
  }
  void Prev() override { MoveTo(index_ - 1); }
  Slice key() const override {
    return keys_in_file_ ? entry_.internal_key() : Slice(key_buffer_);
  }
  Slice value() const override { return entry_.value; }
  ROCKSDB_NAMESPACE::Status status() const override { return status_; }
  bool IsKeyPinned() const override { return keys_in_file_; }
  bool IsValuePinned() const override { return true; }

 private:
  // How far ahead Next() fetches: enough entries to cover a memory miss.
  static constexpr uint64_t kPrefetchDistance = 8;
  // Positions at `index`; an index outside the table (including the
  // wrapped-around -1) makes the iterator invalid.
  void MoveTo(uint64_t index);
  // Sets *index to the first entry >= target; false (iterator invalid, with
  // the damage in status()) if the search met a damaged entry.
  bool FindLowerBound(const Slice& target, uint64_t* index);

  const std::unique_ptr<const CuckooHashTableReader> copy_;
  const CuckooHashTableReader* const reader_;
  // For the file reads its steps cause (ServingRead): the caller's options
  // need not outlive the iterator.
  const ROCKSDB_NAMESPACE::ReadOptions read_options_;
  const uint64_t num_entries_;
  const bool keys_in_file_;
  const bool verify_;
  std::string key_buffer_;  // the current key, when !keys_in_file_
  uint64_t index_ = 0;
  bool valid_ = false;
  EntryView entry_{};
  ROCKSDB_NAMESPACE::Status status_;
};

}  // namespace rocksdb_cuckoo
