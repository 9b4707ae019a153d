// The striped_hash memtable's statistics counters: their indices in the
// factory's StripedCounters, and how they are read into the public struct.
#pragma once

#include <cstddef>

#include "memtable/striped_hash_memtable.h"
#include "util/striped_counters.h"

namespace rocksdb_cuckoo {

enum StatsCounter : size_t {
  kStatMemtables,
  kStatInserts,
  kStatInsertBytes,
  kStatDeletes,
  kStatMerges,
  kStatNewKeys,
  kStatDuplicates,
  kStatInsertProbes,
  kStatHits,
  kStatMisses,
  // Probes beyond a lookup's first (every lookup probes at least one slot):
  // a lookup that finds its slot at once, the common case, then updates one
  // counter, not two.
  kStatExtraLookupProbes,
  kStatTagCollisions,
  kStatResizes,
  kStatSorts,
  kStatViewRenewals,
  kNumStatsCounters,
};

// The public StatsStripeMode mirrors StripeMode value for value, so the two
// convert by a cast; the names users type, in the same order.
static_assert(static_cast<int>(StatsStripeMode::kLlc) ==
                      static_cast<int>(StripeMode::kLlc) &&
                  static_cast<int>(StatsStripeMode::kCore) ==
                      static_cast<int>(StripeMode::kCore) &&
                  static_cast<int>(StatsStripeMode::kNone) ==
                      static_cast<int>(StripeMode::kNone) &&
                  static_cast<int>(StatsStripeMode::kAuto) ==
                      static_cast<int>(StripeMode::kAuto),
              "StatsStripeMode mirrors StripeMode");
inline StripeMode ToStripeMode(StatsStripeMode mode) {
  return static_cast<StripeMode>(mode);
}
inline constexpr const char* kStripeModeNames[] = {"llc", "core", "none",
                                                   "auto"};
constexpr size_t kNumStripeModes =
    sizeof(kStripeModeNames) / sizeof(kStripeModeNames[0]);

StripedHashMemTableStats ReadStats(const StripedCounters& counters);

}  // namespace rocksdb_cuckoo
