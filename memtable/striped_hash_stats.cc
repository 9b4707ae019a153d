#include "memtable/striped_hash_stats.h"

#include <cinttypes>
#include <cstdio>

namespace rocksdb_cuckoo {

StripedHashMemTableStats ReadStats(const StripedCounters& counters) {
  StripedHashMemTableStats stats;
  stats.memtables = counters.Sum(kStatMemtables);
  stats.inserts = counters.Sum(kStatInserts);
  stats.insert_bytes = counters.Sum(kStatInsertBytes);
  stats.deletes = counters.Sum(kStatDeletes);
  stats.merges = counters.Sum(kStatMerges);
  stats.new_keys = counters.Sum(kStatNewKeys);
  stats.duplicates = counters.Sum(kStatDuplicates);
  stats.insert_probes = counters.Sum(kStatInsertProbes);
  stats.hits = counters.Sum(kStatHits);
  stats.misses = counters.Sum(kStatMisses);
  stats.lookup_probes =
      stats.hits + stats.misses + counters.Sum(kStatExtraLookupProbes);
  stats.tag_collisions = counters.Sum(kStatTagCollisions);
  stats.resizes = counters.Sum(kStatResizes);
  stats.sorts = counters.Sum(kStatSorts);
  stats.view_renewals = counters.Sum(kStatViewRenewals);
  stats.stripes = counters.num_stripes();
  stats.stripe_mode = static_cast<StatsStripeMode>(counters.mode());
  return stats;
}

std::string StripedHashMemTableStats::ToString() const {
  char buf[640];
  snprintf(buf, sizeof(buf),
           "memtables=%" PRIu64 " inserts=%" PRIu64 " insert_bytes=%" PRIu64
           " deletes=%" PRIu64 " merges=%" PRIu64 " new_keys=%" PRIu64
           " duplicates=%" PRIu64 " insert_probes=%" PRIu64 " hits=%" PRIu64
           " misses=%" PRIu64 " lookup_probes=%" PRIu64
           " tag_collisions=%" PRIu64 " resizes=%" PRIu64 " sorts=%" PRIu64
           " view_renewals=%" PRIu64 " stripes=%" PRIu64 " stripe_mode=%s",
           memtables, inserts, insert_bytes, deletes, merges, new_keys,
           duplicates, insert_probes, hits, misses, lookup_probes,
           tag_collisions, resizes, sorts, view_renewals, stripes,
           kStripeModeNames[static_cast<size_t>(stripe_mode)]);
  return buf;
}

}  // namespace rocksdb_cuckoo
