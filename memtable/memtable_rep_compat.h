// What differs between RocksDB 7.8 and 9.x in the MemTableRep interface.
// 9.x's paranoid_memory_checks option makes a memtable read through
// *AndValidate methods, which fail with NotSupported unless a rep provides
// them; these bases forward them to version-neutral checked operations that
// the rep and its iterator implement (and that tests call on any version).
#pragma once

#include "rocksdb/memtablerep.h"
#include "rocksdb/version.h"

namespace rocksdb_cuckoo {

// Derived (the rep) must provide:
//   Status GetChecked(const LookupKey&, void* args,
//                     bool (*callback)(void*, const char*),
//                     bool allow_data_in_errors);
template <typename Derived>
class ValidatingMemTableRep : public ROCKSDB_NAMESPACE::MemTableRep {
 public:
  using MemTableRep::MemTableRep;
#if ROCKSDB_MAJOR >= 9
  ROCKSDB_NAMESPACE::Status GetAndValidate(
      const ROCKSDB_NAMESPACE::LookupKey& key, void* callback_args,
      bool (*callback_func)(void* arg, const char* entry),
      bool allow_data_in_errors) override {
    return static_cast<Derived*>(this)->GetChecked(
        key, callback_args, callback_func, allow_data_in_errors);
  }
#endif
};

// Derived (the iterator) must provide NextChecked(bool), PrevChecked(bool) and
// SeekChecked(const Slice&, const char*, bool), each returning a Status.
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
  ROCKSDB_NAMESPACE::Status SeekAndValidate(
      const ROCKSDB_NAMESPACE::Slice& internal_key, const char* memtable_key,
      bool allow_data_in_errors) override {
    return static_cast<Derived*>(this)->SeekChecked(internal_key, memtable_key,
                                                    allow_data_in_errors);
  }
#endif
};

}  // namespace rocksdb_cuckoo
