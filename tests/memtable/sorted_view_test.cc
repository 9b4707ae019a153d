// SortedView: the runs a renewal leaves (new entries in a small newest run,
// runs merged on as they outgrow their level, into the base once they hold
// a share of it), which together must hold every user key's newest entry,
// share the base they leave alone, and count heads across runs.
#include "memtable/sorted_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/support/hash_index_harness.h"
#include "tests/support/sorted_heads.h"

namespace rocksdb_cuckoo::testing {
namespace {

// What the view holds as an iterator reads it: of each user key, the newest
// head over all runs, in the memtable's order.
std::vector<HashNode*> NewestHeads(const IndexHarness& h,
                                   const SortedView& view) {
  std::map<std::string, HashNode*> newest;
  for (size_t r = 0; r < view.num_runs(); ++r) {
    for (HashNode* head : HeadsOf(view.run(r))) {
      const Entry e = DecodeEntry(head->entry());
      auto it = newest.find(e.user_key);
      if (it == newest.end() || DecodeEntry(it->second->entry()).seq < e.seq) {
        newest[e.user_key] = head;
      }
    }
  }
  std::vector<HashNode*> heads;
  for (const auto& kv : newest) heads.push_back(kv.second);
  std::sort(heads.begin(), heads.end(), [&h](HashNode* a, HashNode* b) {
    return h.comparator()(a->entry(), b->entry()) < 0;
  });
  return heads;
}

class SortedViewTest : public SortedHeadsTest {
 protected:
  // New keys and newer and older versions of keys added before, shuffled.
  std::vector<Entry> Burst(std::mt19937_64* random, size_t new_keys,
                           size_t old_keys) {
    std::vector<Entry> entries;
    for (size_t i = 0; i < new_keys; ++i) {
      entries.push_back(
          {"new" + std::to_string(next_key_++), seq_++, kTypeValue, "n"});
    }
    for (size_t i = 0; i < old_keys; ++i) {
      const std::string& key = added_[(*random)() % added_.size()].user_key;
      entries.push_back({key, seq_++, kTypeValue, "newer"});
      entries.push_back({key, older_seq_++, kTypeValue, "older"});
    }
    std::shuffle(entries.begin(), entries.end(), *random);
    return entries;
  }

  size_t next_key_ = 0;
  // Heads' sequence numbers from here on; older versions' below them.
  SequenceNumber seq_ = 1000000;
  SequenceNumber older_seq_ = 1;
};

TEST_P(SortedViewTest, ASortIsOneRun) {
  std::mt19937_64 random(1);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 3000), &seq));
  const std::shared_ptr<const SortedView> view = h_.Sort();
  ASSERT_EQ(view->num_runs(), 1u);
  EXPECT_EQ(view->size(), 3000u);
  EXPECT_EQ(view->covered_keys(), 3000u);
  EXPECT_EQ(Describe(HeadsOf(view->run(0))), ExpectedHeads(h_, added_));
}

TEST_P(SortedViewTest, AFewNewEntriesGoIntoANewRunBesideTheBase) {
  std::mt19937_64 random(2);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 4000), &seq));
  const std::shared_ptr<const SortedView> base = h_.Sort();
  std::vector<HashNode*> added = AddAll(Burst(&random, 20, 10));
  const SortedView renewed(*base, added, h_.index()->NumKeys());
  ASSERT_EQ(renewed.num_runs(), 2u);
  EXPECT_EQ(renewed.covered_keys(), h_.index()->NumKeys());
  // The base is shared, untouched; the new run holds only the burst.
  EXPECT_EQ(&renewed.run(1), &base->run(0));
  EXPECT_LE(renewed.run(0).size(), 40u);
  EXPECT_EQ(Describe(NewestHeads(h_, renewed)), ExpectedHeads(h_, added_));
}

TEST_P(SortedViewTest, ASmallBaseTakesNewEntriesIn) {
  std::mt19937_64 random(3);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 40), &seq));
  const std::shared_ptr<const SortedView> base = h_.Sort();
  // 10 heads are a large share of 40: merged into the base at once.
  std::vector<HashNode*> added = AddAll(Burst(&random, 10, 0));
  const SortedView renewed(*base, added, h_.index()->NumKeys());
  ASSERT_EQ(renewed.num_runs(), 1u);
  EXPECT_EQ(renewed.size(), 50u);
  EXPECT_EQ(Describe(HeadsOf(renewed.run(0))), ExpectedHeads(h_, added_));
}

TEST_P(SortedViewTest, AnEmptyViewTakesWhatWasAdded) {
  const std::shared_ptr<const SortedView> empty = h_.Sort();
  EXPECT_EQ(empty->size(), 0u);
  std::mt19937_64 random(4);
  SequenceNumber seq = 1;
  std::vector<HashNode*> added =
      AddAll(MakeEntries(&random, MakeKeys(&random, 300), &seq));
  const SortedView renewed(*empty, added, h_.index()->NumKeys());
  ASSERT_EQ(renewed.num_runs(), 1u);
  EXPECT_EQ(Describe(HeadsOf(renewed.run(0))), ExpectedHeads(h_, added_));
  // Nothing added: the same heads.
  const SortedView same(renewed, {}, renewed.covered_keys());
  EXPECT_EQ(Describe(NewestHeads(h_, same)), ExpectedHeads(h_, added_));
}

TEST_P(SortedViewTest, RenewalsKeepFewRunsAndEqualAFullSort) {
  std::mt19937_64 random(5);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 20000), &seq));
  std::shared_ptr<const SortedView> view = h_.Sort();
  size_t most_runs = 1;
  // Bursts of every size, enough of them to fill and merge each level.
  for (int round = 0; round < 160; ++round) {
    const size_t burst = round % 40 == 39 ? 2500 : 1 + random() % 120;
    std::vector<HashNode*> added = AddAll(Burst(&random, burst, burst / 3));
    auto renewed = std::make_shared<const SortedView>(*view, std::move(added),
                                                      h_.index()->NumKeys());
    ASSERT_LE(renewed->num_runs(), SortedView::kMaxRuns);
    most_runs = std::max(most_runs, renewed->num_runs());
    for (size_t r = 0; r < renewed->num_runs(); ++r) {
      // Each run is sorted, one head per user key.
      const std::vector<HashNode*> heads = HeadsOf(renewed->run(r));
      for (size_t i = 1; i < heads.size(); ++i) {
        ASSERT_LT(h_.comparator()(heads[i - 1]->entry(), heads[i]->entry()), 0);
        ASSERT_NE(DecodeEntry(heads[i - 1]->entry()).user_key,
                  DecodeEntry(heads[i]->entry()).user_key);
      }
    }
    ASSERT_EQ(Describe(NewestHeads(h_, *renewed)), ExpectedHeads(h_, added_))
        << "round " << round;
    view = renewed;
  }
  EXPECT_GE(most_runs, 3u);
}

TEST_P(SortedViewTest, CountBeforeSumsTheRuns) {
  std::mt19937_64 random(6);
  SequenceNumber seq = 1;
  AddAll(MakeEntries(&random, MakeKeys(&random, 5000), &seq));
  const std::shared_ptr<const SortedView> base = h_.Sort();
  std::vector<HashNode*> added = AddAll(Burst(&random, 100, 30));
  const SortedView renewed(*base, added, h_.index()->NumKeys());
  ASSERT_EQ(renewed.num_runs(), 2u);
  for (const Entry& e : {added_[0], added_[added_.size() / 2], added_.back()}) {
    const std::string target = e.MemtableKey();
    EXPECT_EQ(renewed.CountBefore(target.data()),
              renewed.run(0).LowerBound(target.data()) +
                  renewed.run(1).LowerBound(target.data()));
  }
  EXPECT_EQ(renewed.size(), renewed.run(0).size() + renewed.run(1).size());
}

INSTANTIATE_TEST_SUITE_P(Orders, SortedViewTest, ::testing::ValuesIn(Orders()),
                         [](const ::testing::TestParamInfo<Order>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace rocksdb_cuckoo::testing
