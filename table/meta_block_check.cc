#include "table/meta_block_check.h"

#include <string>

#include "util/coding.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::DecodeFixed32;
using ROCKSDB_NAMESPACE::GetVarint32Ptr;
using ROCKSDB_NAMESPACE::Slice;

bool WalkMetaBlock(const Slice& block,
                   const std::function<bool(const BlockEntry&)>& visit) {
  const char* const begin = block.data();
  const uint64_t size = block.size();
  // The last 4 bytes count the restarts; their top bit would announce a
  // hash index, which no block of ours has. RocksDB reads at least 8 bytes.
  if (size < 8) return false;
  const uint32_t num_restarts = DecodeFixed32(begin + size - 4);
  if (num_restarts == 0 || (num_restarts >> 31) != 0 ||
      (uint64_t{num_restarts} + 1) * 4 > size) {
    return false;
  }
  const uint64_t entries_end = size - (uint64_t{num_restarts} + 1) * 4;
  const char* const restarts = begin + entries_end;
  const char* const limit = begin + entries_end;
  uint32_t next_restart = 0;
  std::string key;
  bool visiting = true;
  for (const char* p = begin; p < limit;) {
    const uint64_t offset = static_cast<uint64_t>(p - begin);
    const bool is_restart =
        next_restart < num_restarts &&
        DecodeFixed32(restarts + 4 * next_restart) == offset;
    if (is_restart) next_restart++;
    uint32_t shared, unshared, value_size;
    if (limit - p < 3) return false;
    p = GetVarint32Ptr(p, limit, &shared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &unshared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &value_size);
    if (p == nullptr || shared > key.size() || (is_restart && shared != 0) ||
        static_cast<uint64_t>(limit - p) < uint64_t{unshared} + value_size) {
      return false;
    }
    key.resize(shared);
    key.append(p, unshared);
    p += unshared;
    if (visiting) {
      visiting =
          visit(BlockEntry{key, static_cast<uint64_t>(p - begin), value_size});
    }
    p += value_size;
  }
  // Every restart point was an entry boundary, in increasing order.
  return next_restart == num_restarts;
}

}  // namespace rocksdb_cuckoo
