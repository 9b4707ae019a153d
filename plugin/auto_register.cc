// Only in the shared library: LD_PRELOAD or dlopen alone must make every
// rocksdb-cuckoo name resolvable by the stock tools. The static library leaves
// registration to the application (and to RocksDB's in-tree plugin hook), so
// that nothing is registered twice.
#include "plugin/rocksdb_cuckoo.h"

namespace {
const int kRegistered =
    register_rocksdb_cuckoo(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
}  // namespace
