// What differs between RocksDB versions in the MemTableRep interface.
// 9.x's paranoid_memory_checks option makes a memtable read through
// *AndValidate methods, which fail with NotSupported unless a rep provides
// them; 10.7 adds a per-entry validation callback (the per-key checksum of
// memtable_verify_per_key_checksum_on_seek) and an order-check flag to
// GetAndValidate and SeekAndValidate; 11.1 adds a batched MultiGet, whose
// default walks a sorted iterator. These bases forward them to
// version-neutral operations that the rep and its iterator implement (and
// that tests call on any version).
#pragma once

#include <cstddef>
#include <functional>

#include "rocksdb/memtablerep.h"
#include "rocksdb/status.h"
#include "rocksdb/version.h"

// GetAndValidate and SeekAndValidate take detect_key_out_of_order and a
// key_validation_callback.
#define CUCKOO_MEMTABLE_KEY_VALIDATION \
  (ROCKSDB_MAJOR > 10 || (ROCKSDB_MAJOR == 10 && ROCKSDB_MINOR >= 7))
// MemTableRep::MultiGet exists (memtable_batch_lookup_optimization).
#define CUCKOO_MEMTABLE_MULTIGET \
  (ROCKSDB_MAJOR > 11 || (ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR >= 1))

namespace rocksdb_cuckoo {

// Checks one memtable entry (RocksDB's MemTable::ValidateKey verifies its
// per-key checksum); the bool is allow_data_in_errors. May be empty.
using EntryValidator = std::function<ROCKSDB_NAMESPACE::Status(
    const char* entry, bool allow_data_in_errors)>;

// Derived (the rep) must provide:
//   Status GetChecked(const LookupKey&, void* args,
//                     bool (*callback)(void*, const char*),
//                     bool allow_data_in_errors, const EntryValidator&);
//   Status MultiGetEntries(size_t num_keys, const char* const* keys,
//                          void** args, bool (*callback)(void*, const char*),
//                          bool allow_data_in_errors,
//                          bool detect_key_out_of_order,
//                          const EntryValidator&);
template <typename Derived>
class ValidatingMemTableRep : public ROCKSDB_NAMESPACE::MemTableRep {
 public:
  using MemTableRep::MemTableRep;
#if CUCKOO_MEMTABLE_KEY_VALIDATION
  // Our order checks always run, asked for (detect_key_out_of_order) or not.
  ROCKSDB_NAMESPACE::Status GetAndValidate(
      const ROCKSDB_NAMESPACE::LookupKey& key, void* callback_args,
      bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors, bool /*detect_key_out_of_order*/,
      const EntryValidator& key_validation_callback) override {
    return static_cast<Derived*>(this)->GetChecked(
        key, callback_args, callback_func, allow_data_in_errors,
        key_validation_callback);
  }
#elif ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::Status GetAndValidate(
      const ROCKSDB_NAMESPACE::LookupKey& key, void* callback_args,
      bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors) override {
    return static_cast<Derived*>(this)->GetChecked(
        key, callback_args, callback_func, allow_data_in_errors,
        EntryValidator());
  }
#endif
#if CUCKOO_MEMTABLE_MULTIGET
  ROCKSDB_NAMESPACE::Status MultiGet(
      size_t num_keys, const char* const* keys, void** callback_args,
      bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors, bool detect_key_out_of_order,
      const EntryValidator& key_validation_callback) override {
    return static_cast<Derived*>(this)->MultiGetEntries(
        num_keys, keys, callback_args, callback_func, allow_data_in_errors,
        detect_key_out_of_order, key_validation_callback);
  }
#endif
};

// Derived (the iterator) must provide NextChecked(bool), PrevChecked(bool) and
// SeekChecked(const Slice&, const char*, bool, const EntryValidator&), each
// returning a Status.
template <typename Derived>
class ValidatingMemTableIterator
    : public ROCKSDB_NAMESPACE::MemTableRep::Iterator {
 public:
#if ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::Status NextAndValidate(
      bool allow_data_in_errors) override {
    return static_cast<Derived*>(this)->NextChecked(allow_data_in_errors);
  }
  ROCKSDB_NAMESPACE::Status PrevAndValidate(
      bool allow_data_in_errors) override {
    return static_cast<Derived*>(this)->PrevChecked(allow_data_in_errors);
  }
#endif
#if CUCKOO_MEMTABLE_KEY_VALIDATION
  // As GetAndValidate: the order checks always run.
  ROCKSDB_NAMESPACE::Status SeekAndValidate(
      const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key,
      bool allow_data_in_errors, bool /*detect_key_out_of_order*/,
      const EntryValidator& key_validation_callback) override {
    return static_cast<Derived*>(this)->SeekChecked(internal_key, memtable_key,
                                                    allow_data_in_errors,
                                                    key_validation_callback);
  }
#elif ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::Status SeekAndValidate(
      const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key,
      bool allow_data_in_errors) override {
    return static_cast<Derived*>(this)->SeekChecked(
        internal_key, memtable_key, allow_data_in_errors, EntryValidator());
  }
#endif
};

}  // namespace rocksdb_cuckoo
