#include "util/plugin_usage.h"

#include <atomic>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "plugin/rocksdb_cuckoo.h"

namespace rocksdb_cuckoo {

namespace {

std::atomic<uint64_t> uses[static_cast<size_t>(PluginUse::kNumUses)];

uint64_t Read(PluginUse use) {
  return uses[static_cast<size_t>(use)].load(std::memory_order_relaxed);
}

struct PrintUsageAtExit {
  ~PrintUsageAtExit() {
    if (getenv("ROCKSDB_CUCKOO_PRINT_USAGE") == nullptr) return;
    const PluginUsage usage = GetPluginUsage();
    fprintf(stderr,
            "rocksdb-cuckoo usage: tables_opened=%" PRIu64
            " tables_built=%" PRIu64 " memtables_created=%" PRIu64
            " env_jobs_run=%" PRIu64 "\n",
            usage.tables_opened, usage.tables_built, usage.memtables_created,
            usage.env_jobs_run);
  }
} print_usage_at_exit;

}  // namespace

void CountPluginUse(PluginUse use) {
  uses[static_cast<size_t>(use)].fetch_add(1, std::memory_order_relaxed);
}

PluginUsage GetPluginUsage() {
  PluginUsage usage;
  usage.tables_opened = Read(PluginUse::kTableOpened);
  usage.tables_built = Read(PluginUse::kTableBuilt);
  usage.memtables_created = Read(PluginUse::kMemtableCreated);
  usage.env_jobs_run = Read(PluginUse::kEnvJobRun);
  return usage;
}

}  // namespace rocksdb_cuckoo
