// TableReader-level micro-benchmarks: our CuckooHashTable against RocksDB's
// built-in CuckooTable built from the same keys, measured in
// one process. This isolates the table from the ~1 us a DB::Get spends
// elsewhere, which db_bench cannot. (PlainTable is compared at the DB level
// by db_bench_compare.py: its total-order reader needs a DB around it.)
// The one_read_floor formats (one_read_floor.h) do nothing but one memory
// read per hit, and their MultiGet starts every read of a batch before it
// uses any: they show how far any table could get in this harness.
//
// Environment: CUCKOO_BENCH_KEYS (default 1000000), CUCKOO_BENCH_DIR (/tmp).
// Counters: allocs_per_op counts heap allocations inside the timed loop
// (a counting operator new), so "no allocation per lookup" is measured; the
// count is process-wide, so only single-thread figures isolate one lookup.
//
// With CUCKOO_LOOKUPS=<format>:<present|absent>:<count> it runs just that
// many Gets in RunLookups() instead, for lookup_lines.sh to count the cache
// lines they read under a cache simulator.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <random>

#include "db_bench_ext/one_read_floor.h"
#include "rocksdb/table.h"
#include "table/cuckoo_hash_table.h"
#include "table/multiget_context.h"
#include "tests/support/table_harness.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::InternalKeyOf;
using testing::TableHarness;

// Ours is measured both mapped (as the built-ins, which require mmap) and
// loaded (allow_mmap_reads=false: the file is read into huge-page memory).
enum Format {
  kOurs,
  kOursLoaded,
  kOursIdentity,
  kOursIdentityLoaded,
  kBuiltinCuckoo,
  kBuiltinIdentity,
  kOneReadFloor,
  kOneReadFloorIdentity
};

bool IsIdentity(Format f) {
  return f == kOursIdentity || f == kOursIdentityLoaded ||
         f == kBuiltinIdentity || f == kOneReadFloorIdentity;
}
bool IsFloor(Format f) {
  return f == kOneReadFloor || f == kOneReadFloorIdentity;
}
bool IsLoaded(Format f) { return f == kOursLoaded || f == kOursIdentityLoaded; }
enum KeyKind { kText16, kInteger8 };

uint64_t NumKeys() {
  const char* env = getenv("CUCKOO_BENCH_KEYS");
  return env != nullptr ? strtoull(env, nullptr, 10) : 1000000;
}

// Key i of the data set; absent keys use i >= NumKeys().
std::string MakeKey(KeyKind kind, uint64_t i) {
  const uint64_t be = __builtin_bswap64(i);
  if (kind == kInteger8)
    return std::string(reinterpret_cast<const char*>(&be), 8);
  // 16 bytes: 8 pseudo-random bytes then the big-endian index.
  const uint64_t scrambled = (i + 1) * 0x9E3779B97F4A7C15ULL;
  std::string key(reinterpret_cast<const char*>(&scrambled), 8);
  key.append(reinterpret_cast<const char*>(&be), 8);
  return key;
}

constexpr size_t kValueSize = 100;

KeyKind KindOf(Format f) { return IsIdentity(f) ? kInteger8 : kText16; }

std::shared_ptr<TableFactory> FactoryFor(Format f) {
  switch (f) {
    case kOurs:
    case kOursLoaded:
      return NewCuckooHashTableFactory();
    case kOursIdentity:
    case kOursIdentityLoaded: {
      CuckooHashTableOptions o;
      o.identity_as_first_hash = true;
      return NewCuckooHashTableFactory(o);
    }
    case kBuiltinCuckoo:
      return std::shared_ptr<TableFactory>(NewCuckooTableFactory());
    case kBuiltinIdentity: {
      CuckooTableOptions o;
      o.identity_as_first_hash = true;
      return std::shared_ptr<TableFactory>(NewCuckooTableFactory(o));
    }
    case kOneReadFloor:
    case kOneReadFloorIdentity:
      break;  // no file: see Reader()
  }
  return nullptr;
}

// A table file of the format's keys and values, opened.
std::unique_ptr<TableHarness> BuildTable(Format f) {
  const KeyKind kind = KindOf(f);
  const char* dir = getenv("CUCKOO_BENCH_DIR");
  auto table = std::make_unique<TableHarness>(
      FactoryFor(f),
      std::string(dir ? dir : "/tmp") + "/table_reader_bench_" +
          std::to_string(getpid()) + "_" + std::to_string(f) + ".sst",
      /*mmap=*/!IsLoaded(f));
  std::vector<std::pair<std::string, std::string>> entries;
  const uint64_t n = NumKeys();
  entries.reserve(n);
  std::string value(kValueSize, 'v');
  for (uint64_t i = 0; i < n; i++) {
    memcpy(value.data(), &i, sizeof(i));
    entries.emplace_back(InternalKeyOf(MakeKey(kind, i), 0, kTypeValue), value);
  }
  Status s = table->Build(std::move(entries));
  if (!s.ok()) {
    fprintf(stderr, "build failed for format %d: %s\n", f,
            s.ToString().c_str());
    abort();
  }
  // A loaded table reads each chunk from the file the first time a lookup
  // reaches it: verifying the whole table first reads them all, so that
  // lookups are timed as a long-running DB sees them.
  if (IsLoaded(f)) {
    s = table->reader()->VerifyChecksum(ReadOptions(),
                                        TableReaderCaller::kUserVerifyChecksum);
    if (!s.ok()) {
      fprintf(stderr, "verify failed for format %d: %s\n", f,
              s.ToString().c_str());
      abort();
    }
  }
  // The open reader keeps the file open: nothing is left behind in the
  // folder (the table is never destroyed, and a run may be killed).
  std::remove(table->path().c_str());
  return table;
}

// The reader of each format, made once and shared by every benchmark: under
// a lock (benchmark threads may race to the first use), and never destroyed
// (static destructors of RocksDB's Env may run first). A file for the table
// formats, a OneReadFloor over the same keys and values for the floors.
TableReader* Reader(Format f) {
  struct Made {
    std::unique_ptr<TableHarness> table;
    std::unique_ptr<OneReadFloor> floor;
  };
  static std::mutex mu;
  static auto* made = new std::map<Format, Made>;
  std::lock_guard<std::mutex> lock(mu);
  Made& m = (*made)[f];
  if (IsFloor(f)) {
    if (m.floor == nullptr) {
      const KeyKind kind = KindOf(f);
      m.floor = std::make_unique<OneReadFloor>(
          NumKeys(), kValueSize,
          [kind](uint64_t i) { return MakeKey(kind, i); });
    }
    return m.floor.get();
  }
  if (m.table == nullptr) m.table = BuildTable(f);
  return m.table->reader();
}

// One TableReader::Get of internal key `ikey`; whether it found the key.
bool GetOnce(TableReader* reader, const Slice& ikey, PinnableSlice* value,
             MergeContext* merge_context) {
  SequenceNumber max_covering_tombstone_seq = 0;
  GetContext ctx(BytewiseComparator(), nullptr, nullptr, nullptr,
                 GetContext::kNotFound, ExtractUserKey(ikey), value, nullptr,
                 nullptr, merge_context, true, &max_covering_tombstone_seq,
                 nullptr);
  reader->Get(ReadOptions(), ikey, &ctx, nullptr).PermitUncheckedError();
  value->Reset();
  return ctx.State() == GetContext::kFound;
}

void BM_Get(benchmark::State& state, Format format, bool present) {
  TableReader* reader = Reader(format);
  const uint64_t n = NumKeys();
  std::mt19937_64 rng(state.thread_index() * 7919 + 1);
  // Lookup keys prepared outside the timed loop.
  std::vector<std::string> keys(1 << 16);
  for (auto& k : keys) {
    const uint64_t i = rng() % n + (present ? 0 : n);
    k = InternalKeyOf(MakeKey(KindOf(format), i), kMaxSequenceNumber,
                      kTypeValue);
  }
  PinnableSlice value;
  MergeContext merge_context;
  uint64_t found = 0;
  size_t next = 0;
  const uint64_t allocations_before = g_allocations.load();
  for (auto _ : state) {
    found += GetOnce(reader, keys[next++ & (keys.size() - 1)], &value,
                     &merge_context);
  }
  const uint64_t allocations = g_allocations.load() - allocations_before;
  if (found != static_cast<uint64_t>(present ? state.iterations() : 0)) {
    state.SkipWithError("wrong lookup results");
  }
  state.counters["allocs_per_op"] =
      benchmark::Counter(static_cast<double>(allocations) / state.iterations());
  state.SetItemsProcessed(state.iterations());
}

void BM_MultiGet(benchmark::State& state, Format format, bool present) {
  TableReader* reader = Reader(format);
  const size_t batch = static_cast<size_t>(state.range(0));
  const uint64_t n = NumKeys();
  std::mt19937_64 rng(state.thread_index() * 104729 + 3);
  std::vector<std::string> user_keys(1 << 16);
  for (auto& k : user_keys) {
    k = MakeKey(KindOf(format), rng() % n + (present ? 0 : n));
  }
  std::vector<Slice> key_slices(batch);
  std::vector<PinnableSlice> values(batch);
  std::vector<Status> statuses(batch);
  std::vector<MergeContext> merge_contexts(batch);
  std::vector<SequenceNumber> tombstone_seqs(batch);
  std::vector<KeyContext> contexts;
  // GetContexts live in preallocated storage: the harness must not add
  // allocations of its own to what is measured.
  std::vector<std::aligned_storage_t<sizeof(GetContext), alignof(GetContext)>>
      get_context_storage(batch);
  auto get_context = [&](size_t i) {
    return reinterpret_cast<GetContext*>(&get_context_storage[i]);
  };
  size_t next = 0;
  uint64_t found = 0;
  ReadOptions read_options;
  for (auto _ : state) {
    contexts.clear();
    autovector<KeyContext*, MultiGetContext::MAX_BATCH_SIZE> sorted;
    for (size_t i = 0; i < batch; i++) {
      key_slices[i] = user_keys[next++ & (user_keys.size() - 1)];
      AddKeyContext(&contexts, key_slices[i], &values[i], &statuses[i]);
    }
    for (auto& c : contexts) sorted.push_back(&c);
    MultiGetContext mget(&sorted, 0, batch, kMaxSequenceNumber, read_options,
                         nullptr, nullptr);
    MultiGetContext::Range range = mget.GetMultiGetRange();
    for (size_t i = 0; i < batch; i++) {
      tombstone_seqs[i] = 0;
      contexts[i].get_context = new (get_context(i)) GetContext(
          BytewiseComparator(), nullptr, nullptr, nullptr,
          GetContext::kNotFound, *contexts[i].key, &values[i], nullptr, nullptr,
          &merge_contexts[i], true, &tombstone_seqs[i], nullptr);
    }
    reader->MultiGet(read_options, &range, nullptr);
    for (size_t i = 0; i < batch; i++) {
      found += get_context(i)->State() == GetContext::kFound;
      get_context(i)->~GetContext();
      values[i].Reset();
    }
  }
  if (found != (present ? state.iterations() * batch : 0)) {
    state.SkipWithError("wrong results");
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

// The machine's limit: dependent loads over a buffer the size of the table,
// in a random cyclic order (one cache miss per step).
void BM_DramPointerChase(benchmark::State& state) {
  const size_t bytes = 120 * NumKeys();
  const size_t slots = bytes / 64;
  std::vector<uint64_t> next_slot(slots * 8);
  std::vector<uint64_t> order(slots);
  for (size_t i = 0; i < slots; i++) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
  for (size_t i = 0; i < slots; i++) {
    next_slot[order[i] * 8] = order[(i + 1) % slots];
  }
  uint64_t at = order[0];
  for (auto _ : state) {
    at = next_slot[at * 8];
    benchmark::DoNotOptimize(at);
  }
  state.SetItemsProcessed(state.iterations());
}

const struct {
  const char* name;
  Format format;
} kFormats[] = {{"ours", kOurs},
                {"ours_loaded", kOursLoaded},
                {"builtin_cuckoo", kBuiltinCuckoo},
                {"ours_identity", kOursIdentity},
                {"ours_identity_loaded", kOursIdentityLoaded},
                {"builtin_cuckoo_identity", kBuiltinIdentity},
                {"one_read_floor", kOneReadFloor},
                {"one_read_floor_identity", kOneReadFloorIdentity}};

// `count` Gets of keys (random or in order), present or absent, each key
// made just before its lookup: nothing but the lookups reads memory the
// size of the table. Returns how many were found.
uint64_t LookUp(TableReader* reader, KeyKind kind, bool present, uint64_t count,
                bool random) {
  const uint64_t n = NumKeys();
  std::mt19937_64 rng(11);
  PinnableSlice value;
  MergeContext merge_context;
  uint64_t found = 0;
  std::string ikey;
  for (uint64_t i = 0; i < count; i++) {
    const uint64_t key = (random ? rng() : i) % n + (present ? 0 : n);
    ikey = InternalKeyOf(MakeKey(kind, key), kMaxSequenceNumber, kTypeValue);
    found += GetOnce(reader, ikey, &value, &merge_context);
  }
  return found;
}

// Not inlined: the cache simulator counts inside this function only.
__attribute__((noinline)) uint64_t RunLookups(TableReader* reader, KeyKind kind,
                                              bool present, uint64_t count) {
  return LookUp(reader, kind, present, count, /*random=*/true);
}

// CUCKOO_LOOKUPS=<format>:<present|absent>:<count>; false if malformed or
// the lookups found the wrong number of keys.
bool RunLookupsFromEnvironment(const char* spec) {
  char name[64];
  char kind[16];
  unsigned long long count;
  if (sscanf(spec, "%63[^:]:%15[^:]:%llu", name, kind, &count) != 3) {
    return false;
  }
  const bool present = strcmp(kind, "present") == 0;
  for (auto& f : kFormats) {
    if (strcmp(f.name, name) != 0) continue;
    TableReader* reader = Reader(f.format);
    // Every key looked up once first (not counted), as in a table that has
    // served a while: every chunk of ours is verified by then.
    const KeyKind kind = KindOf(f.format);
    const uint64_t n = NumKeys();
    if (LookUp(reader, kind, /*present=*/true, n, /*random=*/false) != n) {
      return false;
    }
    return RunLookups(reader, kind, present, count) == (present ? count : 0);
  }
  return false;
}

void RegisterAll() {
  for (auto& f : kFormats) {
    // The floors are floors for hits only: their misses read nothing.
    const bool floor = IsFloor(f.format);
    for (bool present : {true, false}) {
      if (floor && !present) continue;
      benchmark::RegisterBenchmark(
          (std::string("Get/") + (present ? "present/" : "absent/") + f.name)
              .c_str(),
          [=](benchmark::State& s) { BM_Get(s, f.format, present); })
          ->Threads(1)
          ->Threads(2)
          ->UseRealTime();
      // Batches of up to 32 keys: RocksDB hands a table no more at once
      // (MultiGetContext::MAX_BATCH_SIZE), however large the DB's batch.
      benchmark::RegisterBenchmark(
          (std::string(present ? "MultiGet/" : "MultiGetAbsent/") + f.name)
              .c_str(),
          [=](benchmark::State& s) { BM_MultiGet(s, f.format, present); })
          ->Arg(8)
          ->Arg(16)
          ->Arg(32)
          ->UseRealTime();
    }
  }
  benchmark::RegisterBenchmark("DramPointerChase", BM_DramPointerChase);
}

}  // namespace
}  // namespace rocksdb_cuckoo

int main(int argc, char** argv) {
  if (const char* spec = getenv("CUCKOO_LOOKUPS")) {
    if (rocksdb_cuckoo::RunLookupsFromEnvironment(spec)) return 0;
    fprintf(stderr, "CUCKOO_LOOKUPS=%s: unknown format or wrong results\n",
            spec);
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  rocksdb_cuckoo::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
