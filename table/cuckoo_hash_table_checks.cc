#include "table/cuckoo_hash_table_checks.h"

#include <string>

#include "util/checksum.h"
#include "util/option_checks.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Status;

namespace {
constexpr uint32_t kMaxSearchDepth = 100000;
}  // namespace

Status CheckHashTableRatio(const std::string& name, const double& ratio) {
  if (ratio > 0.0 && ratio < 1.0) return Status::OK();
  return Status::InvalidArgument("CuckooHashTable: " + name +
                                 " must be in (0, 1), got " +
                                 std::to_string(ratio));
}

Status CheckMaxSearchDepth(const std::string& name, const uint32_t& depth) {
  return CheckInRange<uint32_t>("CuckooHashTable", name, depth, 1,
                                kMaxSearchDepth);
}

Status CheckChecksumType(const std::string& name,
                         const ROCKSDB_NAMESPACE::ChecksumType& type) {
  if (IsSupportedChecksum(type)) return Status::OK();
  return Status::InvalidArgument("CuckooHashTable: " + name +
                                 " must be kNoChecksum, kCRC32c or kXXH3");
}

Status CheckOptions(const CuckooHashTableOptions& options) {
  Status s = CheckHashTableRatio("hash_table_ratio", options.hash_table_ratio);
  if (s.ok()) {
    s = CheckMaxSearchDepth("max_search_depth", options.max_search_depth);
  }
  if (s.ok()) s = CheckChecksumType("checksum", options.checksum);
  return s;
}

Status CheckComparator(const ROCKSDB_NAMESPACE::Comparator* user_comparator) {
  return CheckKeysCompareByBytes("CuckooHashTable", user_comparator);
}

}  // namespace rocksdb_cuckoo
