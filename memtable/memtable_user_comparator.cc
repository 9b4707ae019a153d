#include "memtable/memtable_user_comparator.h"

#include <cstring>

#include "db/dbformat.h"
#include "db/memtable.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

// The address of the vtable `object` was built with (Itanium C++ ABI: the
// first word of a polymorphic object).
const void* VtableOf(const MemTableRep::KeyComparator& object) {
  const void* vtable;
  std::memcpy(&vtable, static_cast<const void*>(&object), sizeof(vtable));
  return vtable;
}

}  // namespace

// Release builds of RocksDB compile without run-time type information, so
// the exact type is checked by hand: an object has MemTable::KeyComparator's
// vtable only if it is one (a subclass has its own). That vtable is emitted
// once, in librocksdb, next to the class's out-of-line operator(), so a probe
// built here shares it.
const Comparator* UserComparatorOf(
    const MemTableRep::KeyComparator& comparator) {
  static const void* const kMemTableComparatorVtable = VtableOf(
      MemTable::KeyComparator(InternalKeyComparator(BytewiseComparator())));
  if (VtableOf(comparator) != kMemTableComparatorVtable) return nullptr;
  return static_cast<const MemTable::KeyComparator&>(comparator)
      .comparator.user_comparator();
}

}  // namespace rocksdb_cuckoo
