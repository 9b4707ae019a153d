// SortedRun on its own, over a HashSlotIndex: the newest entry of each user
// key in the comparator's order (bytewise and reverse bytewise through their
// prefixes, any other order through the comparator alone), LowerBound,
// UpperBound and head/prefix, and runs merged from a base and the entries
// added since (or a newer run of them), which must equal a full sort.
#include "memtable/sorted_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/hash_index_harness.h"
#include "tests/support/sorted_heads.h"

namespace rocksdb_cuckoo::testing {
namespace {

// Heads before `target` (or also equal to it): what the bounds must say.
size_t CountBefore(const IndexHarness& h, const std::vector<HashNode*>& heads,
                   const std::string& target, bool or_equal) {
  size_t n = 0;
  for (const HashNode* head : heads) {
    const int c = h.comparator()(head->entry(), target.data());
    n += (c < 0 || (or_equal && c == 0)) ? 1 : 0;
  }
  return n;
}

using SortedRunTest = SortedHeadsTest;

TEST_P(SortedRunTest, EmptyIndexGivesAnEmptyView) {
  auto view = h_.SortRun();
  EXPECT_EQ(view->size(), 0u);
  const std::string target = Target("a", 1);
  EXPECT_EQ(view->LowerBound(target.data()), 0u);
  EXPECT_EQ(view->UpperBound(target.data()), 0u);
  // Merged with nothing: still empty.
  SortedRun renewed(*view, {});
  EXPECT_EQ(renewed.size(), 0u);
  EXPECT_EQ(renewed.LowerBound(target.data()), 0u);
}

TEST_P(SortedRunTest, RenewingAnEmptyViewSortsWhatWasAdded) {
  auto empty = h_.SortRun();
  std::mt19937_64 random(7);
  SequenceNumber seq = 1;
  std::vector<HashNode*> added =
      AddAll(MakeEntries(&random, MakeKeys(&random, 700), &seq));
  SortedRun renewed(*empty, added);
  EXPECT_EQ(renewed.size(), 700u);
  EXPECT_EQ(Describe(HeadsOf(renewed)), ExpectedHeads(h_, added_));
  EXPECT_EQ(empty->size(), 0u);
}

TEST_P(SortedRunTest, OneKeyHoldsItsNewestVersionOnly) {
  AddAll({{"k", 3, kTypeValue, "a"},
          {"k", 9, kTypeMerge, "b"},
          {"k", 5, kTypeDeletion, ""}});
  auto view = h_.SortRun();
  ASSERT_EQ(view->size(), 1u);
  EXPECT_EQ(Describe({view->head(0)}), std::vector<std::string>{"k@9"});
  // Versions of one key order by sequence number, newest first.
  EXPECT_EQ(view->LowerBound(Target("k", 10).data()), 0u);
  EXPECT_EQ(view->UpperBound(Target("k", 10).data()), 0u);
  const std::string head = Entry{"k", 9, kTypeMerge, ""}.MemtableKey();
  EXPECT_EQ(view->LowerBound(head.data()), 0u);
  EXPECT_EQ(view->UpperBound(head.data()), 1u);
  EXPECT_EQ(view->LowerBound(Target("k", 4).data()), 1u);
  EXPECT_EQ(view->UpperBound(Target("k", 4).data()), 1u);
}

TEST_P(SortedRunTest, HoldsTheNewestEntryOfEachKeyInOrder) {
  std::mt19937_64 random(1);
  SequenceNumber seq = 1;
  // Over 4096 keys: several groups of chunks, sorted by the radix pass.
  AddAll(MakeEntries(&random, MakeKeys(&random, 6000), &seq));
  auto view = h_.SortRun();
  EXPECT_EQ(view->size(), 6000u);
  EXPECT_EQ(Describe(HeadsOf(*view)), ExpectedHeads(h_, added_));
}

TEST_P(SortedRunTest, SmallViewsSortLikeLargeOnes) {
  // Under the radix pass's threshold: a comparison sort.
  std::mt19937_64 random(2);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 40), &seq));
  auto view = h_.SortRun();
  EXPECT_EQ(Describe(HeadsOf(*view)), ExpectedHeads(h_, added_));
}

TEST_P(SortedRunTest, BoundsCountTheHeadsBeforeATarget) {
  std::mt19937_64 random(3);
  SequenceNumber seq = 1;
  // Enough keys that searches start from the run's sampled prefixes, some
  // of them tied across a stride's edge ("samepref..." keys).
  AddAll(MakeEntries(&random, MakeKeys(&random, 9000), &seq));
  auto view = h_.SortRun();
  const std::vector<HashNode*> heads = HeadsOf(*view);
  ASSERT_EQ(heads.size(), 9000u);
  for (size_t i = 0; i < heads.size(); ++i) {
    const std::string head = MemtableKeyAt(heads[i]->entry());
    ASSERT_EQ(view->LowerBound(head.data()), i);
    ASSERT_EQ(view->UpperBound(head.data()), i + 1);
    // Every version of the key sorts after (key, kMaxSequenceNumber).
    const std::string user_key = DecodeEntry(heads[i]->entry()).user_key;
    const std::string before_all = Target(user_key, kMaxSequenceNumber);
    ASSERT_EQ(view->LowerBound(before_all.data()), i);
    ASSERT_EQ(view->UpperBound(before_all.data()), i);
  }
  // Keys the view does not hold, and every edge key at a low sequence.
  std::vector<std::string> probes = MakeKeys(&random, 500);
  for (const std::string& key : EdgeKeys()) probes.push_back(key);
  for (const std::string& key : probes) {
    const std::string target = Target(key, 1);
    ASSERT_EQ(view->LowerBound(target.data()),
              CountBefore(h_, heads, target, false))
        << key;
    ASSERT_EQ(view->UpperBound(target.data()),
              CountBefore(h_, heads, target, true))
        << key;
  }
}

TEST_P(SortedRunTest, EachUserKeyKeepsItsNewestHeadThroughRenewals) {
  AddAll({{"a", 10, kTypeValue, ""},
          {"b", 20, kTypeValue, ""},
          {"c", 30, kTypeValue, ""}});
  auto base = h_.SortRun();
  // Older than the view's head of "b": linked into its chain, not a head.
  // Newer than its head of "c", in several versions out of order. A new key
  // twice.
  std::vector<HashNode*> added = AddAll({{"b", 15, kTypeValue, ""},
                                         {"c", 33, kTypeValue, ""},
                                         {"c", 35, kTypeValue, ""},
                                         {"c", 31, kTypeValue, ""},
                                         {"bb", 40, kTypeValue, ""},
                                         {"bb", 41, kTypeValue, ""}});
  SortedRun renewed(*base, added);
  EXPECT_EQ(Describe(HeadsOf(renewed)), ExpectedHeads(h_, added_));
  EXPECT_EQ(Describe(HeadsOf(renewed)), Describe(HeadsOf(*h_.SortRun())));
  // The base does not change.
  EXPECT_EQ(Describe(HeadsOf(*base)),
            (ExpectedHeads(h_, {{"a", 10, kTypeValue, ""},
                                {"b", 20, kTypeValue, ""},
                                {"c", 30, kTypeValue, ""}})));
}

TEST_P(SortedRunTest, RenewedViewsEqualAFullSort) {
  std::mt19937_64 random(5);
  // Heads' sequence numbers from here on; older versions' below them.
  SequenceNumber seq = 1000000;
  SequenceNumber older_seq = 1;
  const std::vector<std::string> keys = MakeKeys(&random, 9000);
  // A base of 3000 keys; the rest arrive in bursts, with versions of keys
  // seen before, newer and older than the view's heads.
  std::vector<std::string> first(keys.begin(), keys.begin() + 3000);
  AddAll(MakeEntries(&random, first, &seq));
  std::shared_ptr<const SortedRun> view = h_.SortRun();
  size_t next_key = 3000;
  for (size_t burst : {1, 2, 40, 300, 700, 3000, 1000}) {
    std::vector<Entry> entries;
    for (size_t i = 0; i < burst && next_key < keys.size(); ++i) {
      entries.push_back({keys[next_key++], seq++, kTypeValue, "new"});
    }
    for (size_t i = 0; i < burst / 2 + 1; ++i) {
      const std::string& old_key = keys[random() % next_key];
      entries.push_back({old_key, seq++, kTypeValue, "newer"});
      entries.push_back({old_key, older_seq++, kTypeValue, "older"});
    }
    std::shuffle(entries.begin(), entries.end(), random);
    std::vector<HashNode*> added = AddAll(entries);
    auto renewed = std::make_shared<const SortedRun>(*view, std::move(added));
    ASSERT_EQ(Describe(HeadsOf(*renewed)), Describe(HeadsOf(*h_.SortRun())))
        << "burst " << burst;
    ASSERT_EQ(Describe(HeadsOf(*renewed)), ExpectedHeads(h_, added_));
    view = renewed;
  }
}

TEST_P(SortedRunTest, MergingANewerRunEqualsAFullSort) {
  std::mt19937_64 random(8);
  SequenceNumber seq = 1000000;
  SequenceNumber older_seq = 1;
  const std::vector<std::string> keys = MakeKeys(&random, 6000);
  const std::vector<std::string> base_keys(keys.begin(), keys.begin() + 4000);
  AddAll(MakeEntries(&random, base_keys, &seq));
  const std::shared_ptr<const SortedRun> base = h_.SortRun();
  // New keys, and newer and older versions of the base's keys: a newer run
  // of them holds some heads the base holds older, and some older ones.
  std::vector<Entry> entries;
  for (size_t i = 4000; i < keys.size(); ++i) {
    entries.push_back({keys[i], seq++, kTypeValue, "new"});
  }
  for (int i = 0; i < 500; ++i) {
    const std::string& old_key = keys[random() % 4000];
    entries.push_back({old_key, seq++, kTypeValue, "newer"});
    entries.push_back({old_key, older_seq++, kTypeValue, "older"});
  }
  std::shuffle(entries.begin(), entries.end(), random);
  const SortedRun empty(h_.comparator(), GetParam().order);
  const SortedRun newer(empty, AddAll(entries));
  const SortedRun merged(*base, newer);
  EXPECT_EQ(Describe(HeadsOf(merged)), Describe(HeadsOf(*h_.SortRun())));
  EXPECT_EQ(Describe(HeadsOf(merged)), ExpectedHeads(h_, added_));
  // Merging into an empty run copies the newer one.
  EXPECT_EQ(Describe(HeadsOf(SortedRun(empty, newer))),
            Describe(HeadsOf(newer)));
}

TEST_P(SortedRunTest, ManyKeysBetweenTwoHeadsOfTheBase) {
  // No key of the base sorts between any two "k5000/<i>" (right after
  // "k5000" bytewise, right before it reversed, after every 5-byte key by
  // length): 600 new heads go in at one place.
  std::vector<Entry> base_entries;
  for (int i = 0; i < 2000; ++i) {
    base_entries.push_back({"k" + std::to_string(4000 + i),
                            static_cast<SequenceNumber>(i + 1), kTypeValue,
                            ""});
  }
  AddAll(base_entries);
  auto base = h_.SortRun();
  std::vector<Entry> entries;
  for (int i = 0; i < 600; ++i) {
    entries.push_back({"k5000/" + std::to_string(i),
                       static_cast<SequenceNumber>(10000 + i), kTypeValue, ""});
  }
  SortedRun renewed(*base, AddAll(entries));
  EXPECT_EQ(renewed.size(), 2600u);
  EXPECT_EQ(Describe(HeadsOf(renewed)), ExpectedHeads(h_, added_));
  // Each head's prefix is its key's, as searches and merges read it.
  for (size_t i = 0; i < renewed.size(); ++i) {
    ASSERT_EQ(renewed.prefix(i), renewed.PrefixOf(renewed.head(i)->entry()))
        << i;
  }
}

TEST_P(SortedRunTest, MergingLeavesBothRunsAsTheyWere) {
  std::mt19937_64 random(6);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 5000), &seq));
  auto base = h_.SortRun();
  const std::vector<std::string> base_heads = Describe(HeadsOf(*base));
  const SortedRun empty(h_.comparator(), GetParam().order);
  const SortedRun newer(empty, AddAll({{"new key", seq++, kTypeValue, ""}}));
  const std::vector<std::string> newer_heads = Describe(HeadsOf(newer));

  // Nothing added: the same heads.
  EXPECT_EQ(Describe(HeadsOf(SortedRun(*base, {}))), base_heads);
  const SortedRun merged(*base, newer);
  EXPECT_EQ(merged.size(), base->size() + 1);
  EXPECT_EQ(Describe(HeadsOf(merged)), ExpectedHeads(h_, added_));
  EXPECT_EQ(Describe(HeadsOf(*base)), base_heads);
  EXPECT_EQ(Describe(HeadsOf(newer)), newer_heads);
}

INSTANTIATE_TEST_SUITE_P(Orders, SortedRunTest, ::testing::ValuesIn(Orders()),
                         [](const ::testing::TestParamInfo<Order>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace rocksdb_cuckoo::testing
