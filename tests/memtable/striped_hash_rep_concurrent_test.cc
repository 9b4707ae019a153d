// The striped_hash memtable under concurrency: several writers through
// InsertKeyConcurrently (with a tiny initial index, so it doubles many times
// while they run), readers and iterators alongside. Labelled `concurrent`, so
// the TSan configuration runs it (striped_hash_db_test has the DB-level
// version).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/memtable_rep_harness.h"

namespace rocksdb_cuckoo::testing {
namespace {

#ifdef CUCKOO_SANITIZED
constexpr int kPerWriter = 3000;
#else
constexpr int kPerWriter = 20000;
#endif
constexpr int kWriters = 4;

// Writer w's i-th key; fixed width so a scan can parse it back.
std::string KeyOf(int writer, int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "w%d-%08d", writer, i);
  return buf;
}

bool ParseKey(const std::string& key, int* writer, int* i) {
  return sscanf(key.c_str(), "w%d-%d", writer, i) == 2;
}

// Unique per (writer, i, version).
SequenceNumber SeqOf(int writer, int i, int version) {
  return (static_cast<SequenceNumber>(i) * kWriters + writer) * 4 + version + 1;
}

// Reads how far each writer has published (into *before), then makes an
// iterator and scans it: returns, per writer, the entries of published keys
// that `counted(entry, writer, i)` accepts. Entries out of order, or not a
// writer's key, add to *failures.
std::vector<int> ScanPublished(
    RepHarness* h, std::atomic<int>* published, std::atomic<int>* failures,
    std::vector<int>* before,
    const std::function<bool(const Entry&, int, int)>& counted) {
  before->assign(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    (*before)[w] = published[w].load(std::memory_order_acquire);
  }
  const MemTableRep::KeyComparator& cmp = h->comparator();
  std::unique_ptr<MemTableRep::Iterator> iter(h->rep()->GetIterator());
  std::vector<int> seen(kWriters, 0);
  std::string previous;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    const std::string current = MemtableKeyAt(iter->key());
    if (!previous.empty() && cmp(previous.data(), current.data()) >= 0) {
      failures->fetch_add(1);
    }
    previous = current;
    int w;
    int i;
    const Entry e = DecodeEntry(iter->key());
    if (!ParseKey(e.user_key, &w, &i)) {
      failures->fetch_add(1);
    } else if (i < (*before)[w] && counted(e, w, i)) {
      ++seen[w];
    }
  }
  return seen;
}

// Scans (ScanPublished) until the writers are done, once more after: each
// published key must show two entries that `counted` accepts. Returns the
// number of scans.
int ScanWhileWriting(
    RepHarness* h, std::atomic<int>* published,
    const std::atomic<int>& writers_left, std::atomic<int>* failures,
    const std::function<bool(const Entry&, int, int)>& counted) {
  int scans = 0;
  bool last_round = false;
  while (!last_round) {
    last_round = writers_left.load() == 0;
    std::vector<int> before;
    const std::vector<int> seen =
        ScanPublished(h, published, failures, &before, counted);
    ++scans;
    for (int w = 0; w < kWriters; ++w) {
      if (seen[w] != 2 * before[w]) failures->fetch_add(1);
    }
  }
  return scans;
}

TEST(StripedHashConcurrentTest, WritersReadersAndIteratorsAgree) {
  StripedHashMemTableOptions options;
  options.bucket_count = 16;
  RepHarness h(options);
  // published[w] = n: writer w's keys 0..n-1 are fully inserted.
  std::atomic<int> published[kWriters];
  for (auto& p : published) p.store(0);
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> failures{0};
  std::atomic<int> refused{0};

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        // Every fourth key gets a second, newer version right away: chains
        // grow while others read them.
        const int versions = i % 4 == 0 ? 2 : 1;
        for (int v = 0; v < versions; ++v) {
          if (!h.InsertConcurrently(
                  {KeyOf(w, i), SeqOf(w, i, v), kTypeValue, "x"})) {
            refused.fetch_add(1);
          }
        }
        published[w].store(i + 1, std::memory_order_release);
      }
      writers_left.fetch_sub(1);
    });
  }
  // A reader: every published key must be found, with all its versions.
  threads.emplace_back([&] {
    std::mt19937_64 random(7);
    while (writers_left.load() > 0) {
      const int w = static_cast<int>(random() % kWriters);
      const int n = published[w].load(std::memory_order_acquire);
      if (n == 0) continue;
      const int i = static_cast<int>(random() % n);
      const std::vector<Entry> got = h.Get(KeyOf(w, i), kMaxSequenceNumber);
      const size_t expected = i % 4 == 0 ? 2 : 1;
      if (got.size() != expected || got[0].seq != SeqOf(w, i, expected - 1)) {
        failures.fetch_add(1);
      }
    }
  });
  // An iterator user: each view is sorted and holds what was published
  // before it was made.
  threads.emplace_back([&] {
    while (writers_left.load() > 0) {
      std::vector<int> before;
      const std::vector<int> seen = ScanPublished(
          &h, published, &failures, &before,
          [](const Entry& e, int w, int i) { return e.seq == SeqOf(w, i, 0); });
      for (int w = 0; w < kWriters; ++w) {
        // Every key below before[w] appears with its first version (later
        // keys may appear too).
        if (seen[w] < before[w]) failures.fetch_add(1);
      }
    }
  });
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(refused.load(), 0);
  std::vector<Entry> all;
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kPerWriter; ++i) {
      for (int v = 0; v < (i % 4 == 0 ? 2 : 1); ++v) {
        all.push_back({KeyOf(w, i), SeqOf(w, i, v), kTypeValue, "x"});
      }
    }
  }
  std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
  std::vector<std::string> scanned;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    scanned.push_back(MemtableKeyAt(iter->key()));
  }
  EXPECT_EQ(scanned, h.SortedMemtableKeys(all));
  const StripedHashMemTableStats stats = h.factory()->GetStats();
  EXPECT_EQ(stats.inserts, all.size());
  EXPECT_EQ(stats.new_keys, static_cast<uint64_t>(kWriters) * kPerWriter);
  EXPECT_GE(stats.resizes, 10u);
}

// Iterators made while writers insert: after the first, each view is the
// last one with the entries logged since merged in (fewer than the log's
// 65536 in all, so nothing is sorted twice). Every view must be ordered and
// hold every entry published before the iterator was made, older versions
// that arrive after newer ones included.
TEST(StripedHashConcurrentTest, RenewedViewsHoldEverythingPublished) {
  constexpr int kKeysPerWriter = 450;  // two versions each: 3600 entries
  RepHarness h;
  std::atomic<int> published[kWriters];
  for (auto& p : published) p.store(0);
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> failures{0};
  std::atomic<int> iterators{0};
  // One iterator before any write: the one sort.
  { std::unique_ptr<MemTableRep::Iterator> first(h.rep()->GetIterator()); }

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kKeysPerWriter; ++i) {
        // Odd keys get their newer version first, as concurrent writers
        // finishing out of sequence order would leave them.
        const int order[2] = {i % 2, 1 - i % 2};
        for (int v : order) {
          if (!h.InsertConcurrently(
                  {KeyOf(w, i), SeqOf(w, i, v), kTypeValue, "x"})) {
            failures.fetch_add(1);
          }
        }
        published[w].store(i + 1, std::memory_order_release);
      }
      writers_left.fetch_sub(1);
    });
  }
  threads.emplace_back([&] {
    iterators.store(
        ScanWhileWriting(&h, published, writers_left, &failures,
                         [](const Entry&, int, int) { return true; }));
  });
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(failures.load(), 0);
  const StripedHashMemTableStats stats = h.factory()->GetStats();
  EXPECT_EQ(stats.inserts, 2u * kWriters * kKeysPerWriter);
  EXPECT_EQ(stats.sorts, 1u);
  EXPECT_GE(stats.view_renewals, 1u);
  // Each renewal merges entries added since (never one a step without a
  // write): when a scan is made, when it is positioned, and each time it
  // reaches its view's last key while writers append (as a tailing
  // iterator steps on).
  EXPECT_LE(stats.view_renewals, stats.inserts);
  EXPECT_GE(iterators.load(), 1);
}

TEST(StripedHashConcurrentTest, ManyRunViewsBesideWritersLoseNothing) {
  // A large memtable sorted once, then written while scans renew its view
  // after every few writes: the new entries gather in runs beside the large
  // one, with newer versions of keys those hold (a third version of an
  // older key with each new key), until the runs merge.
  constexpr int kBase = kPerWriter / 4;
  constexpr int kMore = kPerWriter / 8;
  RepHarness h;
  std::atomic<int> published[kWriters];
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kBase; ++i) {
      for (int v : {0, 1}) {
        ASSERT_TRUE(h.Insert({KeyOf(w, i), SeqOf(w, i, v), kTypeValue, "x"}));
      }
    }
    published[w].store(kBase);
  }
  { std::unique_ptr<MemTableRep::Iterator> first(h.rep()->GetIterator()); }
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 random(w);
      for (int i = kBase; i < kBase + kMore; ++i) {
        const int old = static_cast<int>(random() % i);
        for (const Entry& e :
             {Entry{KeyOf(w, i), SeqOf(w, i, i % 2), kTypeValue, "x"},
              Entry{KeyOf(w, i), SeqOf(w, i, 1 - i % 2), kTypeValue, "x"},
              Entry{KeyOf(w, old), SeqOf(w, old, 2 + i % 2), kTypeValue,
                    "y"}}) {
          // A third version of an old key may be there already.
          h.InsertConcurrently(e);
        }
        published[w].store(i + 1, std::memory_order_release);
      }
      writers_left.fetch_sub(1);
    });
  }
  threads.emplace_back([&] {
    // Each published key's two first versions.
    ScanWhileWriting(&h, published, writers_left, &failures,
                     [](const Entry& e, int, int) { return e.value == "x"; });
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  // Every entry, once, in order.
  std::vector<int> before;
  const std::vector<int> all =
      ScanPublished(&h, published, &failures, &before,
                    [](const Entry&, int, int) { return true; });
  uint64_t scanned = 0;
  for (int n : all) scanned += static_cast<uint64_t>(n);
  EXPECT_EQ(scanned, h.factory()->GetStats().inserts);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(h.factory()->GetStats().view_renewals, 1u);
}

TEST(StripedHashConcurrentTest, ASortBesideTheLastWritesMissesNoneOfThem) {
  // The first iterator of a memtable sorts it while the last writes land:
  // the view must not count as covered what its scan of the index missed,
  // or the next iterator (a flush's) would reuse it without them.
  constexpr int kKeys = kPerWriter / 4;
  for (int round = 0; round < 40; ++round) {
    RepHarness h;
    std::atomic<int> written{0};
    std::thread writer([&] {
      for (int i = 0; i < kKeys; ++i) {
        h.InsertConcurrently({KeyOf(0, i), SeqOf(0, i, 0), kTypeValue, "x"});
        written.store(i + 1, std::memory_order_release);
      }
    });
    // Sorts as the writer nears its end, at a point that varies by round.
    const int start = kKeys - 1 - (round * kKeys / 160);
    while (written.load(std::memory_order_acquire) < start) {
    }
    { std::unique_ptr<MemTableRep::Iterator> sorted(h.rep()->GetIterator()); }
    writer.join();
    std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
    int scanned = 0;
    for (iter->SeekToFirst(); iter->Valid(); iter->Next()) ++scanned;
    ASSERT_EQ(scanned, kKeys) << "round " << round;
  }
}

// Writers add only newer versions of keys a view already holds: nothing is
// logged and the view is never renewed, yet every iterator sees each key's
// newest version published before it was made, through the heads those
// versions superseded, forwards and backwards.
TEST(StripedHashConcurrentTest, NewVersionsOfKeysInTheViewNeedNoRenewal) {
  constexpr int kKeys = kPerWriter / 20;
  constexpr int kVersions = 4;  // SeqOf's versions per key
  RepHarness h;
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(h.Insert({KeyOf(w, i), SeqOf(w, i, 0), kTypeValue, "v0"}));
    }
  }
  // The one sort.
  { std::unique_ptr<MemTableRep::Iterator> first(h.rep()->GetIterator()); }

  // Per writer: every key of it has this version, or a newer one.
  std::atomic<int> published[kWriters];
  for (auto& p : published) p.store(0);
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int v = 1; v < kVersions; ++v) {
        for (int i = 0; i < kKeys; ++i) {
          if (!h.InsertConcurrently(
                  {KeyOf(w, i), SeqOf(w, i, v), kTypeValue, "v"})) {
            failures.fetch_add(1);
          }
        }
        published[w].store(v, std::memory_order_release);
      }
      writers_left.fetch_sub(1);
    });
  }
  // The newest version a scan in `forward` direction shows of every key.
  auto scan = [&](bool forward, const int* before) {
    std::vector<std::vector<int>> newest(kWriters, std::vector<int>(kKeys, -1));
    const MemTableRep::KeyComparator& cmp = h.comparator();
    std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
    std::string previous;
    forward ? iter->SeekToFirst() : iter->SeekToLast();
    for (; iter->Valid(); forward ? iter->Next() : iter->Prev()) {
      const std::string current = MemtableKeyAt(iter->key());
      if (!previous.empty() &&
          (cmp(previous.data(), current.data()) < 0) != forward) {
        failures.fetch_add(1);
      }
      previous = current;
      const Entry e = DecodeEntry(iter->key());
      int w;
      int i;
      if (!ParseKey(e.user_key, &w, &i) || w >= kWriters || i >= kKeys) {
        failures.fetch_add(1);
        continue;
      }
      const int version = static_cast<int>((e.seq - 1) % 4);
      newest[w][i] = std::max(newest[w][i], version);
    }
    for (int w = 0; w < kWriters; ++w) {
      for (int i = 0; i < kKeys; ++i) {
        if (newest[w][i] < before[w]) failures.fetch_add(1);
      }
    }
  };
  threads.emplace_back([&] {
    bool last_round = false;
    for (int round = 0; !last_round; ++round) {
      last_round = writers_left.load() == 0;
      int before[kWriters];
      for (int w = 0; w < kWriters; ++w) {
        before[w] = published[w].load(std::memory_order_acquire);
      }
      scan(/*forward=*/round % 2 == 0, before);
    }
  });
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(failures.load(), 0);
  const StripedHashMemTableStats stats = h.factory()->GetStats();
  EXPECT_EQ(stats.inserts, uint64_t{kWriters} * kKeys * kVersions);
  EXPECT_EQ(stats.sorts, 1u);
  EXPECT_EQ(stats.view_renewals, 0u);
}

TEST(StripedHashConcurrentTest, VersionsOfSharedKeysStayOrdered) {
  constexpr int kKeys = 64;
  constexpr int kRounds = kPerWriter / 10;
  RepHarness h;
  std::atomic<int> duplicate_wins{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int r = 0; r < kRounds; ++r) {
        // All writers hit the same keys with interleaved sequence numbers,
        // so versions arrive out of order and race for the same chains.
        const SequenceNumber seq =
            static_cast<SequenceNumber>(r) * kWriters + w + 1;
        ASSERT_TRUE(h.InsertConcurrently(
            {"shared" + std::to_string(r % kKeys), seq, kTypeMerge, "m"}));
        // All writers also insert one identical entry: one must win.
        if (r == kRounds / 2 &&
            h.InsertConcurrently({"dup", 1, kTypeValue, std::to_string(w)})) {
          duplicate_wins.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(duplicate_wins.load(), 1);
  size_t total = 0;
  for (int k = 0; k < kKeys; ++k) {
    const std::vector<Entry> got =
        h.Get("shared" + std::to_string(k), kMaxSequenceNumber);
    for (size_t i = 1; i < got.size(); ++i) {
      ASSERT_GT(got[i - 1].seq, got[i].seq);
    }
    total += got.size();
  }
  EXPECT_EQ(total, static_cast<size_t>(kRounds) * kWriters);
  EXPECT_EQ(h.factory()->GetStats().duplicates, kWriters - 1u);
}

// What RocksDB does with max_successive_merges and concurrent memtable
// writes: while writers add merge operands, a counter walks one key's newest
// versions through the dynamic prefix iterator. It must see only that key,
// newest first, and never sort the memtable.
TEST(StripedHashConcurrentTest, KeyVersionsWalkBesideWriters) {
  constexpr int kKeys = 16;
  constexpr int kRounds = kPerWriter / 10;
  RepHarness h;
  std::atomic<int> writers_left{kWriters};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int r = 0; r < kRounds; ++r) {
        const SequenceNumber seq =
            static_cast<SequenceNumber>(r) * kWriters + w + 1;
        ASSERT_TRUE(h.InsertConcurrently(
            {"counter" + std::to_string(r % kKeys), seq, kTypeMerge, "+1"}));
      }
      writers_left.fetch_sub(1);
    });
  }
  std::atomic<int> walks{0};
  threads.emplace_back([&] {
    std::unique_ptr<MemTableRep::Iterator> iter(
        h.rep()->GetDynamicPrefixIterator());
    for (int n = 0; writers_left.load() > 0 || n < 100; ++n) {
      const Entry target{"counter" + std::to_string(n % kKeys),
                         kMaxSequenceNumber, kValueTypeForSeek, ""};
      iter->Seek(target.InternalKey(), target.MemtableKey().data());
      SequenceNumber previous = kMaxSequenceNumber;
      for (; iter->Valid(); iter->Next()) {
        const Entry e = DecodeEntry(iter->key());
        ASSERT_EQ(e.user_key, target.user_key);
        ASSERT_LT(e.seq, previous);
        previous = e.seq;
      }
      walks.fetch_add(1);
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_GE(walks.load(), 100);
  EXPECT_EQ(h.factory()->GetStats().sorts, 0u);
}

}  // namespace
}  // namespace rocksdb_cuckoo::testing
