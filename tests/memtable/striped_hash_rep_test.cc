// The striped_hash MemTableRep on its own, single-threaded: ordering, versions
// of a key by sequence number, every entry type, Get/Contains/MultiGet,
// iterators against a reference order from RocksDB's own comparator, index
// growth and the statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "memory/arena.h"
#include "rocksdb/slice_transform.h"
#include "tests/support/memtable_rep_harness.h"
#include "tests/support/seek_reference.h"
#include "tests/support/sorted_heads.h"
#include "tests/support/status_assertions.h"
#include "tests/support/test_comparators.h"
#include "util/cpu_topology.h"

namespace rocksdb_cuckoo::testing {
namespace {

const ValueType kEntryTypes[] = {kTypeValue,          kTypeDeletion,
                                 kTypeSingleDeletion, kTypeMerge,
                                 kTypeBlobIndex,      kTypeWideColumnEntity};

// Random keys with 1-4 versions each, of every entry type, inserted in a
// shuffled order (so versions arrive out of sequence order).
std::vector<Entry> MakeEntries(std::mt19937_64* random, size_t num_keys) {
  std::vector<Entry> entries;
  SequenceNumber seq = 1;
  for (const std::string& key : MakeKeys(random, num_keys)) {
    for (size_t v = 0, n = 1 + (*random)() % 4; v < n; ++v) {
      const ValueType type = kEntryTypes[(*random)() % 6];
      entries.push_back({key, seq++, type, "v" + std::to_string(seq)});
    }
  }
  std::shuffle(entries.begin(), entries.end(), *random);
  return entries;
}

std::vector<std::string> ScanForward(MemTableRep* rep) {
  std::unique_ptr<MemTableRep::Iterator> iter(rep->GetIterator());
  std::vector<std::string> keys;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    keys.push_back(MemtableKeyAt(iter->key()));
  }
  return keys;
}

std::vector<std::string> ScanBackward(MemTableRep* rep) {
  std::unique_ptr<MemTableRep::Iterator> iter(rep->GetIterator());
  std::vector<std::string> keys;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    keys.push_back(MemtableKeyAt(iter->key()));
  }
  return keys;
}

TEST(StripedHashRepTest, IteratesInInternalKeyOrderBothWays) {
  std::mt19937_64 random(1);
  RepHarness h;
  const std::vector<Entry> entries = MakeEntries(&random, 2000);
  for (const Entry& e : entries) ASSERT_TRUE(h.Insert(e));
  const std::vector<std::string> expected = h.SortedMemtableKeys(entries);
  EXPECT_EQ(ScanForward(h.rep()), expected);
  std::vector<std::string> backward = ScanBackward(h.rep());
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(backward, expected);
}

TEST(StripedHashRepTest, IteratorKeepsEntryBytes) {
  RepHarness h;
  const Entry put{"key", 7, kTypeValue, std::string("va\0lue", 6)};
  const Entry merge{"key", 9, kTypeMerge, "operand"};
  const Entry del{"other", 8, kTypeDeletion, ""};
  for (const Entry& e : {put, merge, del}) ASSERT_TRUE(h.Insert(e));
  std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
  iter->SeekToFirst();
  std::vector<Entry> seen;
  for (; iter->Valid(); iter->Next()) seen.push_back(DecodeEntry(iter->key()));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].seq, 9u);
  EXPECT_EQ(seen[0].type, kTypeMerge);
  EXPECT_EQ(seen[0].value, "operand");
  EXPECT_EQ(seen[1].seq, 7u);
  EXPECT_EQ(seen[1].value, std::string("va\0lue", 6));
  EXPECT_EQ(seen[2].user_key, "other");
  EXPECT_EQ(seen[2].type, kTypeDeletion);
}

// An iterator's first positioning uses the view it was made with; every later
// one also sees entries inserted since (its reader may have moved on to a
// newer sequence number: Iterator::Refresh, tailing iterators).
TEST(StripedHashRepTest, RepositioningSeesEntriesInsertedSince) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"b", 1, kTypeValue, "b1"}));
  std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
  ASSERT_TRUE(h.Insert({"a", 2, kTypeValue, "a2"}));
  ASSERT_TRUE(h.Insert({"b", 3, kTypeValue, "b3"}));
  auto scan = [&] {
    std::vector<SequenceNumber> seqs;
    for (; iter->Valid(); iter->Next()) {
      seqs.push_back(DecodeEntry(iter->key()).seq);
    }
    return seqs;
  };
  iter->SeekToFirst();
  EXPECT_EQ(scan(), (std::vector<SequenceNumber>{2, 3, 1}));
  ASSERT_TRUE(h.Insert({"c", 4, kTypeValue, "c4"}));
  iter->SeekToLast();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(DecodeEntry(iter->key()).seq, 4u);
  ASSERT_TRUE(h.Insert({"d", 5, kTypeValue, "d5"}));
  iter->Seek(
      Entry{"c", kMaxSequenceNumber, kValueTypeForSeek, ""}.InternalKey(),
      nullptr);
  EXPECT_EQ(scan(), (std::vector<SequenceNumber>{4, 5}));
  ASSERT_TRUE(h.Insert({"e", 6, kTypeValue, "e6"}));
  iter->SeekForPrev(Entry{"f", 0, kValueTypeForSeekForPrev, ""}.InternalKey(),
                    nullptr);
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(DecodeEntry(iter->key()).seq, 6u);
}

TEST(StripedHashRepTest, GetReturnsVersionsNewestFirstFromLookupSequence) {
  RepHarness h;
  // Out of sequence order, as concurrent writers may deliver them.
  for (SequenceNumber seq : {10, 30, 5, 20}) {
    ASSERT_TRUE(h.Insert({"k", seq, kTypeValue, "v" + std::to_string(seq)}));
  }
  ASSERT_TRUE(h.Insert({"k2", 25, kTypeValue, "other key"}));

  auto seqs = [](const std::vector<Entry>& got) {
    std::vector<SequenceNumber> out;
    for (const Entry& e : got) {
      EXPECT_EQ(e.user_key, "k");
      out.push_back(e.seq);
    }
    return out;
  };
  EXPECT_EQ(seqs(h.Get("k", 100)),
            (std::vector<SequenceNumber>{30, 20, 10, 5}));
  EXPECT_EQ(seqs(h.Get("k", 25)), (std::vector<SequenceNumber>{20, 10, 5}));
  EXPECT_EQ(seqs(h.Get("k", 20)), (std::vector<SequenceNumber>{20, 10, 5}));
  EXPECT_TRUE(h.Get("k", 4).empty());
  EXPECT_TRUE(h.Get("absent", 100).empty());
  // The callback's false stops the walk.
  EXPECT_EQ(seqs(h.Get("k", 100, 2)), (std::vector<SequenceNumber>{30, 20}));
}

std::vector<std::string> EncodedAll(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const Entry& e : entries) out.push_back(e.Encoded());
  return out;
}

// In the order RocksDB's MultiGet passes keys: by internal key.
void SortLookups(const RepHarness& h, std::vector<RepHarness::Lookup>* batch) {
  auto memtable_key = [](const RepHarness::Lookup& lookup) {
    return Entry{lookup.user_key, lookup.seq, kValueTypeForSeek, ""}
        .MemtableKey();
  };
  std::stable_sort(
      batch->begin(), batch->end(),
      [&](const RepHarness::Lookup& a, const RepHarness::Lookup& b) {
        return h.comparator()(memtable_key(a).data(), memtable_key(b).data()) <
               0;
      });
}

// Each key of a MultiGet batch gets exactly what Get gives it: the versions
// at or below its sequence number, newest first, until its callback stops
// the walk; nothing for an absent key. Batches of 1 to 64 keys (more than
// one round of prefetches), with keys repeated.
TEST(StripedHashRepTest, MultiGetAnswersLikeGet) {
  std::mt19937_64 random(21);
  RepHarness h;
  const std::vector<Entry> entries = MakeEntries(&random, 300);
  std::set<std::string> present;
  for (const Entry& e : entries) {
    ASSERT_TRUE(h.Insert(e));
    present.insert(e.user_key);
  }
  std::vector<std::string> absent;
  for (const std::string& key : MakeKeys(&random, 100)) {
    if (present.count(key) == 0) absent.push_back(key);
  }
  ASSERT_FALSE(absent.empty());

  size_t several_versions = 0;
  size_t nothing = 0;
  for (size_t n = 1; n <= 64; ++n) {
    std::vector<RepHarness::Lookup> batch;
    for (size_t i = 0; i < n; ++i) {
      const std::string& user_key =
          random() % 4 == 0 ? absent[random() % absent.size()]
                            : entries[random() % entries.size()].user_key;
      batch.push_back({user_key, random() % (entries.size() + 2),
                       random() % 3 == 0 ? size_t{1} : SIZE_MAX});
    }
    SortLookups(h, &batch);
    Status s;
    const std::vector<std::vector<Entry>> got = h.MultiGet(batch, &s);
    ASSERT_OK(s);
    ASSERT_EQ(got.size(), n);
    for (size_t i = 0; i < n; ++i) {
      const RepHarness::Lookup& lookup = batch[i];
      const std::vector<Entry> expected =
          h.Get(lookup.user_key, lookup.seq, lookup.stop_after);
      ASSERT_EQ(EncodedAll(got[i]), EncodedAll(expected))
          << lookup.user_key << "@" << lookup.seq << " in a batch of " << n;
      if (expected.size() > 1) ++several_versions;
      if (expected.empty()) ++nothing;
    }
  }
  // The batches did cover both.
  EXPECT_GT(several_versions, 0u);
  EXPECT_GT(nothing, 0u);
}

// MultiGet looks every key up in the hash index, counted as Get counts, and
// never sorts the memtable (RocksDB's default MultiGet walks an iterator).
TEST(StripedHashRepTest, MultiGetCountsLookupsAndNeverSorts) {
  RepHarness h;
  std::vector<RepHarness::Lookup> batch;
  for (int i = 0; i < 40; ++i) {
    const std::string key = "key" + std::to_string(100 + i);
    if (i % 4 != 0) {
      ASSERT_TRUE(
          h.Insert({key, static_cast<SequenceNumber>(i + 1), kTypeValue, "v"}));
    }
    batch.push_back({key, kMaxSequenceNumber});
  }
  const StripedHashMemTableStats before = h.factory()->GetStats();
  Status s;
  const std::vector<std::vector<Entry>> got = h.MultiGet(batch, &s);
  ASSERT_OK(s);
  const StripedHashMemTableStats after = h.factory()->GetStats();
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].size(), i % 4 != 0 ? 1u : 0u) << batch[i].user_key;
  }
  EXPECT_EQ(after.hits - before.hits, 30u);
  EXPECT_EQ(after.misses - before.misses, 10u);
  EXPECT_EQ(after.sorts, 0u);
}

TEST(StripedHashRepTest, DuplicateKeyAndSequenceIsRefused) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"k", 5, kTypeValue, "a"}));
  EXPECT_FALSE(h.Insert({"k", 5, kTypeValue, "b"}));
  ASSERT_TRUE(h.Insert({"k", 9, kTypeValue, "c"}));
  ASSERT_TRUE(h.Insert({"k", 7, kTypeMerge, "d"}));
  // Duplicates of the head, of a middle and of the last version.
  EXPECT_FALSE(h.Insert({"k", 9, kTypeValue, "e"}));
  EXPECT_FALSE(h.Insert({"k", 7, kTypeMerge, "f"}));
  EXPECT_FALSE(h.Insert({"k", 5, kTypeValue, "g"}));
  // The memtable identifies entries by key and sequence; another type does
  // not make another entry (as with the skip list).
  EXPECT_FALSE(h.Insert({"k", 5, kTypeMerge, "h"}));

  const std::vector<Entry> got = h.Get("k", 100);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].value, "c");
  EXPECT_EQ(got[1].value, "d");
  EXPECT_EQ(got[2].value, "a");
  const StripedHashMemTableStats stats = h.factory()->GetStats();
  EXPECT_EQ(stats.duplicates, 5u);
  EXPECT_EQ(stats.inserts, 3u);
}

TEST(StripedHashRepTest, ContainsMatchesExactInternalKeys) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"k", 5, kTypeValue, "a"}));
  ASSERT_TRUE(h.Insert({"k", 9, kTypeDeletion, ""}));
  EXPECT_TRUE(
      h.rep()->Contains(Entry{"k", 5, kTypeValue, ""}.MemtableKey().c_str()));
  EXPECT_TRUE(h.rep()->Contains(
      Entry{"k", 9, kTypeDeletion, ""}.MemtableKey().c_str()));
  EXPECT_FALSE(
      h.rep()->Contains(Entry{"k", 7, kTypeValue, ""}.MemtableKey().c_str()));
  // Key and sequence decide, as in MemTable's comparator.
  EXPECT_TRUE(
      h.rep()->Contains(Entry{"k", 5, kTypeMerge, ""}.MemtableKey().c_str()));
  EXPECT_FALSE(
      h.rep()->Contains(Entry{"j", 5, kTypeValue, ""}.MemtableKey().c_str()));
}

// Seek/SeekForPrev to existing and absent keys at assorted sequence numbers,
// with and without a memtable key, checked against the sorted reference.
// Seeks `count` times in both directions, to existing user keys and to
// `probes`, and checks each position and its neighbours against `entries`
// sorted.
void ExpectSeeksMatchReference(RepHarness* h, const std::vector<Entry>& entries,
                               const std::vector<std::string>& probes,
                               std::mt19937_64* random, size_t count) {
  const std::vector<std::string> expected = h->SortedMemtableKeys(entries);
  std::unique_ptr<MemTableRep::Iterator> iter(h->rep()->GetIterator());
  for (size_t i = 0; i < count; ++i) {
    const bool existing = i % 2 == 0;
    Entry target{existing ? entries[(*random)() % entries.size()].user_key
                          : probes[(*random)() % probes.size()],
                 (*random)() % (entries.size() + 2), kValueTypeForSeek, ""};
    ASSERT_NO_FATAL_FAILURE(ExpectSeeksAsInReference(
        iter.get(), expected, h->comparator(), target, i % 3 != 0));
  }
}

// Several chunks of the view (SortedView::kChunkHeads heads each).
TEST(StripedHashRepTest, SeeksMatchReference) {
  std::mt19937_64 random(2);
  RepHarness h;
  const std::vector<Entry> entries = MakeEntries(&random, 3000);
  for (const Entry& e : entries) ASSERT_TRUE(h.Insert(e));
  ExpectSeeksMatchReference(&h, entries, MakeKeys(&random, 300), &random, 4000);
}

// GetDynamicPrefixIterator serves RocksDB's work on one key (with
// max_successive_merges, a count of the newest merges on every Merge), which
// seeks with the memtable key: a Seek lands where the ordered iterator
// would, but only on the target's own user key, Next and Prev stay on it,
// and no seek sorts the memtable, however many inserts came between.
// SeekToFirst and SeekToLast have no key to stay on and go over everything
// in order.
TEST(StripedHashRepTest, DynamicPrefixIteratorStaysOnTheSoughtKey) {
  std::mt19937_64 random(5);
  RepHarness h;
  std::vector<Entry> entries = MakeEntries(&random, 300);
  for (const Entry& e : entries) ASSERT_TRUE(h.Insert(e));
  const std::vector<std::string> probes = MakeKeys(&random, 100);
  const MemTableRep::KeyComparator& cmp = h.comparator();
  const uint64_t sorts_before = h.factory()->GetStats().sorts;
  std::unique_ptr<MemTableRep::Iterator> iter(
      h.rep()->GetDynamicPrefixIterator());
  SequenceNumber next_seq = entries.size() + 1;

  for (size_t i = 0; i < 1500; ++i) {
    if (i % 100 == 99) {
      // A new version and a new key: the cached order is stale now.
      const Entry newer{entries[random() % entries.size()].user_key, next_seq++,
                        kTypeMerge, "m"};
      const Entry fresh{"fresh" + std::to_string(i), next_seq++, kTypeValue,
                        "f"};
      ASSERT_TRUE(h.Insert(newer));
      ASSERT_TRUE(h.Insert(fresh));
      entries.push_back(newer);
      entries.push_back(fresh);
    }
    const std::string user_key =
        i % 2 == 0 ? entries[random() % entries.size()].user_key
                   : probes[random() % probes.size()];
    const Entry target{user_key, random() % (next_seq + 2), kValueTypeForSeek,
                       ""};
    const std::string mkey = target.MemtableKey();
    const std::string ikey = target.InternalKey();
    // The target key's versions, in the memtable's order.
    std::vector<std::string> versions;
    for (const Entry& e : entries) {
      if (e.user_key == user_key) versions.push_back(e.MemtableKey());
    }
    std::sort(versions.begin(), versions.end(),
              [&](const std::string& a, const std::string& b) {
                return cmp(a.data(), b.data()) < 0;
              });
    const auto lower = std::partition_point(
        versions.begin(), versions.end(),
        [&](const std::string& k) { return cmp(k.data(), mkey.data()) < 0; });

    iter->Seek(ikey, mkey.data());
    for (auto expected = lower; expected != versions.end(); ++expected) {
      ASSERT_TRUE(iter->Valid()) << user_key;
      EXPECT_EQ(MemtableKeyAt(iter->key()), *expected);
      iter->Next();
    }
    EXPECT_FALSE(iter->Valid()) << user_key;

    iter->Seek(ikey, mkey.data());
    if (lower != versions.end()) {
      iter->Prev();
      if (lower == versions.begin()) {
        EXPECT_FALSE(iter->Valid());
      } else {
        ASSERT_TRUE(iter->Valid());
        EXPECT_EQ(MemtableKeyAt(iter->key()), *(lower - 1));
      }
    }

    const auto upper = std::partition_point(
        versions.begin(), versions.end(),
        [&](const std::string& k) { return cmp(k.data(), mkey.data()) <= 0; });
    iter->SeekForPrev(ikey, mkey.data());
    if (upper == versions.begin()) {
      EXPECT_FALSE(iter->Valid());
    } else {
      ASSERT_TRUE(iter->Valid());
      EXPECT_EQ(MemtableKeyAt(iter->key()), *(upper - 1));
    }
  }
  EXPECT_EQ(h.factory()->GetStats().sorts, sorts_before);

  const std::vector<std::string> expected = h.SortedMemtableKeys(entries);
  std::vector<std::string> forward;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    forward.push_back(MemtableKeyAt(iter->key()));
  }
  EXPECT_EQ(forward, expected);
  std::vector<std::string> backward;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    backward.push_back(MemtableKeyAt(iter->key()));
  }
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(backward, expected);
}

// With a prefix extractor RocksDB's prefix seeks (which carry no memtable
// key) need every key of the target's prefix, in order: they get the
// ordered view. Its work on one key (which does carry it) still stays on
// the key, without a sort, between writes as well.
TEST(StripedHashRepTest, DynamicPrefixIteratorWithAnExtractor) {
  std::unique_ptr<const SliceTransform> prefix(NewFixedPrefixTransform(2));
  RepHarness h(StripedHashMemTableOptions(), BytewiseComparator(),
               prefix.get());
  ASSERT_TRUE(h.Insert({"aa1", 1, kTypeValue, "1"}));
  ASSERT_TRUE(h.Insert({"aa2", 2, kTypeValue, "2"}));
  ASSERT_TRUE(h.Insert({"ab1", 3, kTypeValue, "3"}));
  std::unique_ptr<MemTableRep::Iterator> iter(
      h.rep()->GetDynamicPrefixIterator());
  auto user_keys_from = [&](bool with_memtable_key) {
    const Entry target{"aa1", kMaxSequenceNumber, kValueTypeForSeek, ""};
    const std::string mkey = target.MemtableKey();
    iter->Seek(target.InternalKey(), with_memtable_key ? mkey.data() : nullptr);
    std::vector<std::string> seen;
    for (; iter->Valid(); iter->Next()) {
      seen.push_back(DecodeEntry(iter->key()).user_key);
    }
    return seen;
  };
  EXPECT_EQ(user_keys_from(false),
            (std::vector<std::string>{"aa1", "aa2", "ab1"}));
  const uint64_t sorts = h.factory()->GetStats().sorts;
  for (SequenceNumber seq = 4; seq < 8; ++seq) {
    ASSERT_TRUE(h.Insert({"aa1", seq, kTypeMerge, "m"}));
    EXPECT_EQ(user_keys_from(true), std::vector<std::string>(seq - 2, "aa1"));
  }
  EXPECT_EQ(h.factory()->GetStats().sorts, sorts);
  // A prefix seek after those writes sees them.
  EXPECT_EQ(user_keys_from(false),
            (std::vector<std::string>{"aa1", "aa1", "aa1", "aa1", "aa1", "aa2",
                                      "ab1"}));
  EXPECT_EQ(h.factory()->GetStats().sorts, sorts);
  // Only new versions of a key the view holds: the view stays.
  EXPECT_EQ(h.factory()->GetStats().view_renewals, 0u);
  // A new key renews it, once.
  ASSERT_TRUE(h.Insert({"aa0", 8, kTypeValue, "0"}));
  EXPECT_EQ(user_keys_from(false),
            (std::vector<std::string>{"aa1", "aa1", "aa1", "aa1", "aa1", "aa2",
                                      "ab1"}));
  EXPECT_EQ(h.factory()->GetStats().view_renewals, 1u);
  EXPECT_EQ(h.factory()->GetStats().sorts, sorts);
}

TEST(StripedHashRepTest, EmptyRep) {
  RepHarness h;
  std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  EXPECT_FALSE(iter->Valid());
  const std::string target = Entry{"a", 1, kTypeValue, ""}.MemtableKey();
  iter->Seek(Slice(), target.data());
  EXPECT_FALSE(iter->Valid());
  iter->SeekForPrev(Slice(), target.data());
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(h.Get("a", 10).empty());
  EXPECT_EQ(h.rep()->ApproximateNumEntries(
                Entry{"a", 1, kTypeValue, ""}.InternalKey(),
                Entry{"z", 1, kTypeValue, ""}.InternalKey()),
            0u);
}

TEST(StripedHashRepTest, OtherComparatorsOrderTheView) {
  // Reverse bytewise takes the radix path with inverted prefixes.
  static LengthFirstComparator length_first;
  for (const Comparator* user :
       {ReverseBytewiseComparator(),
        static_cast<const Comparator*>(&length_first)}) {
    SCOPED_TRACE(user->Name());
    std::mt19937_64 random(3);
    RepHarness h(StripedHashMemTableOptions(), user);
    const std::vector<Entry> entries = MakeEntries(&random, 1000);
    for (const Entry& e : entries) ASSERT_TRUE(h.Insert(e));
    EXPECT_EQ(ScanForward(h.rep()), h.SortedMemtableKeys(entries));
    EXPECT_EQ(h.factory()->GetStats().sorts, 1u);  // ours, not a skip list
  }
}

// An iterator made after inserts merges the user keys logged since into the
// last view, and finds the newer heads of keys in the view and versions
// older than a key's head (concurrent writers finish out of sequence order)
// from the heads it holds. Each view must equal a full sort; more new keys
// than the log holds (at least 65536) sort again; a burst of versions of
// keys the view holds renews nothing. `num_keys` keys
// of about 2.5 versions each, shuffled, `first` of them before the first
// view; each burst below the log's limit, the last takes the rest.
void ExpectRenewedViewsEqualAFullSort(const Comparator* user, size_t num_keys,
                                      size_t first,
                                      const std::vector<size_t>& bursts) {
  std::mt19937_64 random(5);
  RepHarness h(StripedHashMemTableOptions(), user);
  // Shuffled: the versions of a key arrive in any order and any round.
  const std::vector<Entry> entries = MakeEntries(&random, num_keys);
  const std::vector<std::string> probes = MakeKeys(&random, 200);
  std::vector<Entry> inserted;
  std::set<std::string> user_keys;
  bool new_key = false;  // since the last view
  auto insert_up_to = [&](size_t end) {
    while (inserted.size() < end) {
      ASSERT_TRUE(h.Insert(entries[inserted.size()]));
      new_key |= user_keys.insert(entries[inserted.size()].user_key).second;
      inserted.push_back(entries[inserted.size()]);
    }
  };
  ASSERT_NO_FATAL_FAILURE(insert_up_to(first));
  const std::vector<std::string> first_keys = h.SortedMemtableKeys(inserted);
  EXPECT_EQ(ScanForward(h.rep()), first_keys);
  new_key = false;
  // Held across the renewals below: its view's memory is not reused.
  std::unique_ptr<MemTableRep::Iterator> held(h.rep()->GetIterator());
  uint64_t rounds = 0;
  for (size_t burst : bursts) {
    ASSERT_NO_FATAL_FAILURE(
        insert_up_to(std::min(entries.size(), inserted.size() + burst)));
    const std::vector<std::string> expected = h.SortedMemtableKeys(inserted);
    ASSERT_EQ(ScanForward(h.rep()), expected) << "after " << inserted.size();
    rounds += new_key ? 1 : 0;
    new_key = false;
    std::vector<std::string> backward = ScanBackward(h.rep());
    std::reverse(backward.begin(), backward.end());
    ASSERT_EQ(backward, expected);
    ASSERT_NO_FATAL_FAILURE(
        ExpectSeeksMatchReference(&h, inserted, probes, &random, 200));
  }
  ASSERT_EQ(inserted.size(), entries.size());
  std::set<std::pair<std::string, SequenceNumber>> first_entries;
  for (size_t i = 0; i < first; ++i) {
    first_entries.insert({entries[i].user_key, entries[i].seq});
  }
  std::vector<std::string> held_keys;
  for (held->SeekToFirst(); held->Valid(); held->Next()) {
    const Entry e = DecodeEntry(held->key());
    // Its view's heads are as they were; their chains may have grown.
    if (first_entries.count({e.user_key, e.seq}) == 1) {
      held_keys.push_back(MemtableKeyAt(held->key()));
    }
  }
  EXPECT_EQ(held_keys, first_keys);
  EXPECT_EQ(h.factory()->GetStats().sorts, 1u);
  EXPECT_EQ(h.factory()->GetStats().view_renewals, rounds);

  std::vector<Entry> more;
  for (int i = 0; i < 70000; ++i) {
    more.push_back({"more" + std::to_string(i),
                    static_cast<SequenceNumber>(1000000 + i), kTypeValue, "m"});
    ASSERT_TRUE(h.Insert(more.back()));
  }
  inserted.insert(inserted.end(), more.begin(), more.end());
  EXPECT_EQ(ScanForward(h.rep()), h.SortedMemtableKeys(inserted));
  EXPECT_EQ(h.factory()->GetStats().sorts, 2u);
  EXPECT_EQ(h.factory()->GetStats().view_renewals, rounds);
}

TEST(StripedHashRepTest, RenewedViewsEqualAFullSort) {
  static LengthFirstComparator length_first;
  for (const Comparator* user :
       {BytewiseComparator(), ReverseBytewiseComparator(),
        static_cast<const Comparator*>(&length_first)}) {
    SCOPED_TRACE(user->Name());
    // Views of a few chunks, in one group.
    ASSERT_NO_FATAL_FAILURE(ExpectRenewedViewsEqualAFullSort(
        user, 2400, 2000, {1, 2, 7, 50, 1, 300, 3, 100, 1000, 2000, 4000}));
    // Views of a few groups of chunks, whose chunks and groups split as
    // the bursts land.
    ASSERT_NO_FATAL_FAILURE(ExpectRenewedViewsEqualAFullSort(
        user, 40000, 40000, {1, 3, 60, 1, 700, 5000, 20000, 40000}));
  }
}

TEST(StripedHashRepTest, GrowsFromTheSmallestIndex) {
  StripedHashMemTableOptions options;
  options.bucket_count = 16;
  RepHarness h(options);
  const size_t before = h.rep()->ApproximateMemoryUsage();
  const size_t arena_before = h.arena().MemoryAllocatedBytes();
  std::vector<Entry> entries;
  size_t entry_bytes = 0;
  for (int i = 0; i < 20000; ++i) {
    entries.push_back({"key" + std::to_string(i),
                       static_cast<SequenceNumber>(i + 1), kTypeValue,
                       std::to_string(i)});
    entry_bytes += entries.back().Encoded().size();
    ASSERT_TRUE(h.Insert(entries.back()));
  }
  for (const Entry& e : entries) {
    const std::vector<Entry> got = h.Get(e.user_key, kMaxSequenceNumber);
    ASSERT_EQ(got.size(), 1u) << e.user_key;
    EXPECT_EQ(got[0].value, e.value);
  }
  const StripedHashMemTableStats stats = h.factory()->GetStats();
  // 16 slots at 0.75 to 20000 keys: 16 -> 32768 is 11 doublings.
  EXPECT_EQ(stats.resizes, 11u);
  EXPECT_EQ(stats.new_keys, 20000u);
  // At 0.61 load, linear probing's hits take about 1.8 probes on average:
  // some more than one, none counted twice.
  EXPECT_EQ(stats.hits, 20000u);
  EXPECT_GT(stats.lookup_probes, stats.hits);
  EXPECT_LT(stats.lookup_probes, 3 * stats.hits);
  // The slot array went from 16 to 32768 slots of 8 bytes, each doubling
  // charged to the arena (where RocksDB's WriteBufferManager sees it), so
  // the rep's own figure, which leaves the charged bytes out, did not move.
  EXPECT_EQ(h.rep()->ApproximateMemoryUsage(), before);
  EXPECT_GE(h.arena().MemoryAllocatedBytes() - arena_before,
            entry_bytes + (32768 - 16) * 8u);
  EXPECT_EQ(ScanForward(h.rep()), h.SortedMemtableKeys(entries));
}

TEST(StripedHashRepTest, ViewIsReusedUntilTheNextInsert) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"b", 1, kTypeValue, "1"}));
  std::unique_ptr<MemTableRep::Iterator> first(h.rep()->GetIterator());
  std::unique_ptr<MemTableRep::Iterator> second(h.rep()->GetIterator());
  EXPECT_EQ(h.factory()->GetStats().sorts, 1u);

  ASSERT_TRUE(h.Insert({"a", 2, kTypeValue, "2"}));
  // Positioned after the insert, an iterator made earlier sees it (a
  // tailing iterator keeps its memtable iterator across writes).
  first->SeekToFirst();
  ASSERT_TRUE(first->Valid());
  EXPECT_EQ(DecodeEntry(first->key()).user_key, "a");
  std::unique_ptr<MemTableRep::Iterator> third(h.rep()->GetIterator());
  third->SeekToFirst();
  ASSERT_TRUE(third->Valid());
  EXPECT_EQ(DecodeEntry(third->key()).user_key, "a");
  // The insert since was merged into the view, not sorted with it.
  EXPECT_EQ(h.factory()->GetStats().sorts, 1u);
  EXPECT_EQ(h.factory()->GetStats().view_renewals, 1u);

  // A flushed memtable drops its view (memory) and rebuilds on demand.
  h.rep()->MarkReadOnly();
  h.rep()->MarkFlushed();
  std::unique_ptr<MemTableRep::Iterator> fourth(h.rep()->GetIterator());
  EXPECT_EQ(h.factory()->GetStats().sorts, 2u);
}

// RocksDB's immutable memtable list subtracts on release what it added, and
// asserts it does not go below zero; 11.x's MemPurge adds a memtable without
// marking it read-only (DBFlushTest.MemPurgeDeleteAndDeleteRange, debug
// build: "parent_memtable_list_memory_usage_ >= m->ApproximateMemoryUsage()").
// Views built for readers, a flush's included, must not change the figure.
TEST(StripedHashRepTest, MemoryUsageChangesOnlyWithInserts) {
  RepHarness h;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(h.Insert({"key" + std::to_string(i),
                          static_cast<SequenceNumber>(i + 1), kTypeValue, ""}));
  }
  const size_t after_inserts = h.rep()->ApproximateMemoryUsage();
  std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
  iter->SeekToFirst();
  EXPECT_EQ(h.rep()->ApproximateMemoryUsage(), after_inserts);
  h.rep()->MarkFlushed();
  std::unique_ptr<MemTableRep::Iterator> flush_iter(h.rep()->GetIterator());
  flush_iter->SeekToFirst();
  EXPECT_EQ(h.rep()->ApproximateMemoryUsage(), after_inserts);
}

TEST(StripedHashRepTest, NewVersionOfAKeyInTheViewShowsInOlderIterators) {
  // Chains are shared, so an older iterator may see a version inserted
  // later only below the head it holds: never a newer head.
  RepHarness h;
  ASSERT_TRUE(h.Insert({"k", 10, kTypeValue, "10"}));
  std::unique_ptr<MemTableRep::Iterator> iter(h.rep()->GetIterator());
  iter->SeekToFirst();  // holds head k@10
  ASSERT_TRUE(iter->Valid());
  ASSERT_TRUE(h.Insert({"k", 20, kTypeValue, "20"}));
  ASSERT_TRUE(h.Insert({"k", 5, kTypeValue, "5"}));
  std::vector<SequenceNumber> seqs;
  for (; iter->Valid(); iter->Next()) {
    seqs.push_back(DecodeEntry(iter->key()).seq);
  }
  EXPECT_EQ(seqs, (std::vector<SequenceNumber>{10, 5}));
}

TEST(StripedHashRepTest, IteratorInArena) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"x", 1, kTypeValue, "1"}));
  Arena arena;
  MemTableRep::Iterator* iter = h.rep()->GetIterator(&arena);
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(DecodeEntry(iter->key()).user_key, "x");
  iter->~Iterator();  // as MemTable does for arena iterators
}

TEST(StripedHashRepTest, ApproximateNumEntriesCountsTheRange) {
  RepHarness h;
  for (int i = 0; i < 100; ++i) {
    char key[8];
    snprintf(key, sizeof(key), "k%03d", i);
    ASSERT_TRUE(
        h.Insert({key, static_cast<SequenceNumber>(i + 1), kTypeValue, ""}));
  }
  auto ikey = [](const char* k) {
    return Entry{k, kMaxSequenceNumber, kValueTypeForSeek, ""}.InternalKey();
  };
  EXPECT_EQ(h.rep()->ApproximateNumEntries(ikey("k000"), ikey("k100")), 100u);
  EXPECT_EQ(h.rep()->ApproximateNumEntries(ikey("k010"), ikey("k020")), 10u);
  EXPECT_EQ(h.rep()->ApproximateNumEntries(ikey("k500"), ikey("k600")), 0u);
}

TEST(StripedHashRepTest, UniqueRandomSampleTakesDistinctEntries) {
  RepHarness h;
  std::set<std::string> inserted;
  for (int i = 0; i < 1000; ++i) {
    const Entry e{"key" + std::to_string(i), static_cast<SequenceNumber>(i + 1),
                  kTypeValue, ""};
    ASSERT_TRUE(h.Insert(e));
    inserted.insert(e.MemtableKey());
  }
  std::unordered_set<const char*> sample;
  h.rep()->UniqueRandomSample(1000, 50, &sample);
  EXPECT_EQ(sample.size(), 50u);
  for (const char* entry : sample) {
    EXPECT_EQ(inserted.count(MemtableKeyAt(entry)), 1u);
  }
  h.rep()->UniqueRandomSample(1000, 1000, &sample);
  EXPECT_EQ(sample.size(), 1000u);
}

TEST(StripedHashRepTest, StatisticsCountEachOperation) {
  RepHarness h;
  ASSERT_TRUE(h.Insert({"a", 1, kTypeValue, "12345"}));
  ASSERT_TRUE(h.Insert({"a", 2, kTypeMerge, "x"}));
  ASSERT_TRUE(h.Insert({"b", 3, kTypeDeletion, ""}));
  ASSERT_TRUE(h.Insert({"c", 4, kTypeSingleDeletion, ""}));
  h.Get("a", 10);
  h.Get("b", 10);
  h.Get("zz", 10);
  EXPECT_FALSE(
      h.rep()->Contains(Entry{"q", 1, kTypeValue, ""}.MemtableKey().c_str()));

  const StripedHashMemTableStats stats = h.factory()->GetStats();
  EXPECT_EQ(stats.memtables, 1u);
  EXPECT_EQ(stats.inserts, 4u);
  // user key + 8-byte trailer + value, per entry
  EXPECT_EQ(stats.insert_bytes, (1 + 8 + 5) + (1 + 8 + 1) + 9u + 9u);
  EXPECT_EQ(stats.merges, 1u);
  EXPECT_EQ(stats.deletes, 2u);
  EXPECT_EQ(stats.new_keys, 3u);
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.lookups(), 4u);
  EXPECT_GE(stats.lookup_probes, 4u);
  EXPECT_GE(stats.insert_probes, 4u);
  EXPECT_GE(stats.stripes, 1u);
  // The default, auto, reports what it chose: per LLC only where there are
  // several.
  EXPECT_EQ(stats.stripe_mode, CpuTopology::System().num_llcs() >= 2
                                   ? StatsStripeMode::kLlc
                                   : StatsStripeMode::kCore);
  EXPECT_NE(stats.ToString().find("inserts=4 "), std::string::npos);
}

}  // namespace
}  // namespace rocksdb_cuckoo::testing
