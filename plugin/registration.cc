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

extern "C" int register_rocksdb_cuckoo(ObjectLibrary& library,
                                       const std::string& /*arg*/) {
  library.AddFactory<TableFactory>(
      rocksdb_cuckoo::kCuckooHashTableName,
      [](const std::string& /*uri*/, std::unique_ptr<TableFactory>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new rocksdb_cuckoo::CuckooHashTableFactory());
        return guard->get();
      });
  library.AddFactory<MemoryAllocator>(
      rocksdb_cuckoo::JemallocArenaAllocator::kClassName(),
      [](const std::string& /*uri*/, std::unique_ptr<MemoryAllocator>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new rocksdb_cuckoo::JemallocArenaAllocator());
        return guard->get();
      });
  library.AddFactory<MemTableRepFactory>(
      rocksdb_cuckoo::kStripedHashMemTableName,
      [](const std::string& /*uri*/, std::unique_ptr<MemTableRepFactory>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new rocksdb_cuckoo::StripedHashMemTableFactory());
        return guard->get();
      });
  library.AddFactory<Env>(
      rocksdb_cuckoo::AsyncExecutorEnv::kClassName(),
      [](const std::string& /*uri*/, std::unique_ptr<Env>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new rocksdb_cuckoo::AsyncExecutorEnv());
        return guard->get();
      });
  size_t num_types;
  return static_cast<int>(library.GetFactoryCount(&num_types));
}
