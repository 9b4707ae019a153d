// What differs between RocksDB 7.8 and 9.x in the TableFactory interface.
#pragma once

#include <memory>

#include "rocksdb/table.h"
#include "rocksdb/version.h"

namespace rocksdb_cuckoo {

// A TableFactory whose whole state is its options(): 9.x copies factories
// (Clone, when options are copied), 7.8 does not ask.
template <typename Factory>
class CopyableTableFactory : public ROCKSDB_NAMESPACE::TableFactory {
 public:
#if ROCKSDB_MAJOR >= 9
  std::unique_ptr<ROCKSDB_NAMESPACE::TableFactory> Clone() const override {
    return std::make_unique<Factory>(
        static_cast<const Factory&>(*this).options());
  }
#endif
};

}  // namespace rocksdb_cuckoo
