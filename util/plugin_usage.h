// Process-wide counts of what the plugin's parts did (GetPluginUsage in
// plugin/rocksdb_cuckoo.h reads them). They count rare events (a table
// opened or built, a memtable created, a background job run), so one shared
// counter each costs nothing measurable. With the environment variable
// ROCKSDB_CUCKOO_PRINT_USAGE set, the process prints them to stderr as it
// exits: for one run of any program (a test, db_bench, a JVM), proof that
// the parts it was configured with really ran.
#pragma once

namespace rocksdb_cuckoo {

enum class PluginUse {
  kTableOpened,
  kTableBuilt,
  kMemtableCreated,
  kEnvJobRun,
  kNumUses,
};

void CountPluginUse(PluginUse use);

}  // namespace rocksdb_cuckoo
