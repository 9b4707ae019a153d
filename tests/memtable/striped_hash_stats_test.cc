// The memtable's statistics read from its striped counters: each public
// field sums its counter over every stripe, lookup probes count each
// lookup's first probe, and ToString names every field with the stripe mode
// users type.
#include "memtable/striped_hash_stats.h"

#include <gtest/gtest.h>

#include <string>

namespace rocksdb_cuckoo {
namespace {

TEST(StripedHashStatsTest, FieldsSumTheirCountersOverStripes) {
  StripedCounters counters(kNumStatsCounters, StripeMode::kCore);
  for (size_t s = 0; s < counters.num_stripes(); s++) {
    for (size_t c = 0; c < kNumStatsCounters; c++) {
      counters.At(s).Add(c, c + 1);  // counter c holds (c + 1) per stripe
    }
  }
  const uint64_t stripes = counters.num_stripes();
  const StripedHashMemTableStats stats = ReadStats(counters);
  EXPECT_EQ(stats.memtables, (kStatMemtables + 1) * stripes);
  EXPECT_EQ(stats.inserts, (kStatInserts + 1) * stripes);
  EXPECT_EQ(stats.insert_bytes, (kStatInsertBytes + 1) * stripes);
  EXPECT_EQ(stats.deletes, (kStatDeletes + 1) * stripes);
  EXPECT_EQ(stats.merges, (kStatMerges + 1) * stripes);
  EXPECT_EQ(stats.new_keys, (kStatNewKeys + 1) * stripes);
  EXPECT_EQ(stats.duplicates, (kStatDuplicates + 1) * stripes);
  EXPECT_EQ(stats.insert_probes, (kStatInsertProbes + 1) * stripes);
  EXPECT_EQ(stats.hits, (kStatHits + 1) * stripes);
  EXPECT_EQ(stats.misses, (kStatMisses + 1) * stripes);
  EXPECT_EQ(
      stats.lookup_probes,
      (kStatHits + 1 + kStatMisses + 1 + kStatExtraLookupProbes + 1) * stripes);
  EXPECT_EQ(stats.tag_collisions, (kStatTagCollisions + 1) * stripes);
  EXPECT_EQ(stats.resizes, (kStatResizes + 1) * stripes);
  EXPECT_EQ(stats.sorts, (kStatSorts + 1) * stripes);
  EXPECT_EQ(stats.view_renewals, (kStatViewRenewals + 1) * stripes);
  EXPECT_EQ(stats.stripes, stripes);
  EXPECT_EQ(stats.stripe_mode, StatsStripeMode::kCore);
}

TEST(StripedHashStatsTest, ToStringNamesFieldsAndTheModeUsersType) {
  StripedCounters counters(kNumStatsCounters, StripeMode::kNone);
  counters.Add(kStatSorts, 3);
  const std::string text = ReadStats(counters).ToString();
  EXPECT_NE(text.find("sorts=3"), std::string::npos) << text;
  EXPECT_NE(text.find("view_renewals=0"), std::string::npos) << text;
  EXPECT_NE(text.find("stripes=1"), std::string::npos) << text;
  EXPECT_NE(text.find("stripe_mode=none"), std::string::npos) << text;
}

}  // namespace
}  // namespace rocksdb_cuckoo
