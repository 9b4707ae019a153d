// The floor under any table's hit, for scale in table_reader_bench: a
// "table" whose Get does only what every hit must do, one read of the key's
// entry from memory the size of the table, and then hands the value to
// GetContext pinned, at no cost.
//
// Entry i (user key, then value) sits at i * kEntrySize, and a benchmark
// key carries its index big-endian in its last 8 bytes: no hashing, no
// probing, no checksums. The memory has huge pages where the kernel allows
// them (a mapped table file may get them too, from the page cache's large
// folios), so TLB misses cost it as little as they could cost any table.
// A table that must read its entry from memory cannot beat this, so this
// reader's speed over the built-in's bounds every table's.
//
// Its MultiGet is the batched floor: it starts the reads of every key in the
// batch before it uses any of them, so their cache misses overlap as far as
// the core allows; no table's batched lookups can do better here.
#pragma once

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "db/dbformat.h"
#include "table/internal_iterator.h"
#include "table/multiget_context.h"
#include "table/table_reader_compat.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {

class OneReadFloor : public VersionNeutralTableReader {
 public:
  static constexpr size_t kEntrySize = 128;  // a 16-byte key and 100 bytes
  static constexpr size_t kHugePage = size_t{2} << 20;

  // `key_of(i)` is the user key of entry i; `value_size` bytes of value
  // follow each key.
  template <typename KeyOf>
  OneReadFloor(uint64_t num_keys, size_t value_size, KeyOf key_of)
      : num_keys_(num_keys),
        value_size_(value_size),
        bytes_((num_keys * kEntrySize + kHugePage - 1) / kHugePage *
               kHugePage) {
    entries_ = static_cast<char*>(aligned_alloc(kHugePage, bytes_));
    if (entries_ == nullptr) throw std::bad_alloc();
    madvise(entries_, bytes_, MADV_HUGEPAGE);  // a hint; failure is fine
    memset(entries_, 0, bytes_);
    for (uint64_t i = 0; i < num_keys; i++) {
      const std::string key = key_of(i);
      if (key.size() + value_size > kEntrySize) abort();  // a benchmark bug
      char* entry = entries_ + i * kEntrySize;
      memcpy(entry, key.data(), key.size());
      memset(entry + key.size(), 'v', value_size);
      ROCKSDB_NAMESPACE::EncodeFixed64(entry + key.size(), i);
    }
  }
  ~OneReadFloor() override { free(entries_); }

  ROCKSDB_NAMESPACE::Status Get(
      const ROCKSDB_NAMESPACE::ReadOptions& /*read_options*/,
      const ROCKSDB_NAMESPACE::Slice& ikey,
      ROCKSDB_NAMESPACE::GetContext* get_context,
      const ROCKSDB_NAMESPACE::SliceTransform* /*prefix_extractor*/,
      bool /*skip_filters*/) override {
    using namespace ROCKSDB_NAMESPACE;
    const Slice user_key = ExtractUserKey(ikey);
    const char* entry = EntryOf(user_key);
    if (entry == nullptr) return Status::OK();
    return Save(user_key, entry, get_context);
  }

  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& /*read_options*/,
                const ROCKSDB_NAMESPACE::MultiGetContext::Range* range,
                const ROCKSDB_NAMESPACE::SliceTransform* /*prefix_extractor*/,
                bool /*skip_filters*/) override {
    using namespace ROCKSDB_NAMESPACE;
    const char* entries[MultiGetContext::MAX_BATCH_SIZE];
    size_t n = 0;
    for (auto it = range->begin(); it != range->end(); ++it, ++n) {
      entries[n] = EntryOf(ExtractUserKey(it->ikey));
      if (entries[n] != nullptr) __builtin_prefetch(entries[n]);
    }
    n = 0;
    for (auto it = range->begin(); it != range->end(); ++it, ++n) {
      if (entries[n] == nullptr) continue;
      const Status s =
          Save(ExtractUserKey(it->ikey), entries[n], it->get_context);
      if (!s.ok()) *it->s = s;
    }
  }

  // Lookups only.
  ROCKSDB_NAMESPACE::InternalIterator* NewIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& /*read_options*/,
      const ROCKSDB_NAMESPACE::SliceTransform* /*prefix_extractor*/,
      ROCKSDB_NAMESPACE::Arena* arena, bool /*skip_filters*/,
      ROCKSDB_NAMESPACE::TableReaderCaller /*caller*/,
      size_t /*compaction_readahead_size*/,
      bool /*allow_unprepared_value*/) override {
    return ROCKSDB_NAMESPACE::NewErrorInternalIterator<
        ROCKSDB_NAMESPACE::Slice>(
        ROCKSDB_NAMESPACE::Status::NotSupported("OneReadFloor: lookups only"),
        arena);
  }
  void SetupForCompaction() override {}
  std::shared_ptr<const ROCKSDB_NAMESPACE::TableProperties> GetTableProperties()
      const override {
    return properties_;
  }
  size_t ApproximateMemoryUsage() const override { return bytes_; }

 protected:
  uint64_t OffsetOf(const ROCKSDB_NAMESPACE::Slice& /*key*/) override {
    return 0;
  }
  ROCKSDB_NAMESPACE::FragmentedRangeTombstoneIterator* TombstonesAt(
      ROCKSDB_NAMESPACE::SequenceNumber /*sequence*/) override {
    return nullptr;
  }

 private:
  // Where a benchmark key's entry would be; null for keys out of range. No
  // memory of the table is read yet.
  const char* EntryOf(const ROCKSDB_NAMESPACE::Slice& user_key) const {
    if (user_key.size() < 8) return nullptr;
    const uint64_t index = __builtin_bswap64(ROCKSDB_NAMESPACE::DecodeFixed64(
        user_key.data() + user_key.size() - 8));
    return index < num_keys_ ? entries_ + index * kEntrySize : nullptr;
  }

  // Reads the entry (the one memory read) and hands out its value if it
  // holds the key.
  ROCKSDB_NAMESPACE::Status Save(
      const ROCKSDB_NAMESPACE::Slice& user_key, const char* entry,
      ROCKSDB_NAMESPACE::GetContext* get_context) const {
    using namespace ROCKSDB_NAMESPACE;
    if (memcmp(entry, user_key.data(), user_key.size()) != 0) {
      return Status::OK();
    }
    // Pinned, not copied, with a release that does nothing: the cheapest
    // way to hand out a value (a real table's pin must keep its memory).
    Cleanable pinner;
    pinner.RegisterCleanup([](void*, void*) {}, nullptr, nullptr);
    Status read_status;
    SaveToGetContext(get_context, ParsedInternalKey(user_key, 0, kTypeValue),
                     Slice(entry + user_key.size(), value_size_), &pinner,
                     &read_status);
    return read_status;
  }

  const uint64_t num_keys_;
  const size_t value_size_;
  const size_t bytes_;
  char* entries_ = nullptr;
  const std::shared_ptr<const ROCKSDB_NAMESPACE::TableProperties> properties_ =
      std::make_shared<ROCKSDB_NAMESPACE::TableProperties>();
};

}  // namespace rocksdb_cuckoo
