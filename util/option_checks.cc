#include "util/option_checks.h"

namespace rocksdb_cuckoo {

ROCKSDB_NAMESPACE::Status CheckKeysCompareByBytes(
    const char* owner, const ROCKSDB_NAMESPACE::Comparator* comparator) {
  using ROCKSDB_NAMESPACE::Status;
  if (comparator->timestamp_size() > 0) {
    return Status::NotSupported(std::string(owner) +
                                " does not support user-defined timestamps");
  }
  if (comparator->CanKeysWithDifferentByteContentsBeEqual()) {
    return Status::NotSupported(
        std::string(owner) +
        " hashes key bytes, so it needs a comparator under which equal keys "
        "have equal bytes; " +
        comparator->Name() + " does not promise that");
  }
  return Status::OK();
}

}  // namespace rocksdb_cuckoo
