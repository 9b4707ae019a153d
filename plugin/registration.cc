#include "cache/jemalloc_arena_allocator.h"
#include "memtable/striped_hash_memtable.h"
#include "plugin/rocksdb_cuckoo.h"
#include "table/cuckoo_hash_table_factory.h"
#include "util/async_executor_env.h"

using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::MemoryAllocator;
using ROCKSDB_NAMESPACE::MemTableRepFactory;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::TableFactory;

namespace {

// Makes `Object` (default options) when RocksDB asks for `name` as a `Base`.
template <typename Base, typename Object>
void AddFactory(ObjectLibrary& library, const std::string& name) {
  library.AddFactory<Base>(
      name, [](const std::string& /*uri*/, std::unique_ptr<Base>* guard,
               std::string* /*errmsg*/) {
        guard->reset(new Object());
        return guard->get();
      });
}

}  // namespace

extern "C" int register_rocksdb_cuckoo(ObjectLibrary& library,
                                       const std::string& /*arg*/) {
  AddFactory<TableFactory, rocksdb_cuckoo::CuckooHashTableFactory>(
      library, rocksdb_cuckoo::kCuckooHashTableName);
  AddFactory<MemoryAllocator, rocksdb_cuckoo::JemallocArenaAllocator>(
      library, rocksdb_cuckoo::JemallocArenaAllocator::kClassName());
  AddFactory<MemTableRepFactory, rocksdb_cuckoo::StripedHashMemTableFactory>(
      library, rocksdb_cuckoo::kStripedHashMemTableName);
  AddFactory<Env, rocksdb_cuckoo::AsyncExecutorEnv>(
      library, rocksdb_cuckoo::AsyncExecutorEnv::kClassName());
  size_t num_types;
  return static_cast<int>(library.GetFactoryCount(&num_types));
}
