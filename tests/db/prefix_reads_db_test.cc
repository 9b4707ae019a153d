// Reads under a prefix extractor, as users of prefix seeks run them: the
// memtable's prefix bloom filter, iterators bound to the seek key's prefix
// (prefix_same_as_start), auto_prefix_mode with an upper bound, total-order
// seeks, and a DB reopened with a different extractor than its files were
// written with. Our table hashes whole keys and its iterator is always in
// total order; RocksDB must still get exactly the keys BlockBasedTable gives,
// from the memtable, from table files and after a compaction.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/version.h"
#include "tests/support/model_reads.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::Model;
using testing::TableFormat;

// Four-byte prefixes "pf00".."pf24", each with keys of varying suffixes,
// and a few keys shorter than any prefix (outside the extractor's domain).
// Those sit behind in-domain fences ("aaaa", "zzzz"): an iterator bound to a
// prefix looks at the key past the prefix's ends, and RocksDB's own DBIter
// takes the prefix of that key without asking whether it has one (an assert
// in debug builds, a read past the key in release builds).
std::string PrefixOf(int p) {
  return "pf" + std::string(1, static_cast<char>('0' + p / 10)) +
         std::string(1, static_cast<char>('0' + p % 10));
}
constexpr int kPrefixes = 25;

class PrefixReadsTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  PrefixReadsTest() : db_("prefix_reads") {
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;
    options_.prefix_extractor.reset(NewFixedPrefixTransform(4));
    options_.memtable_prefix_bloom_size_ratio = 0.1;
    options_.memtable_whole_key_filtering = true;
    testing::UseTableFormat(GetParam(), &options_);
  }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_OK(db_->Put(WriteOptions(), key, value));
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_OK(db_->Delete(WriteOptions(), key));
    model_.erase(key);
  }

  // Keys of every prefix in three generations: a compacted file, a flushed
  // file and the memtable, with overwrites and deletes across them.
  void Fill() {
    for (int generation = 0; generation < 3; ++generation) {
      for (int p = 0; p < kPrefixes; ++p) {
        for (int k = generation; k < 12 + p % 5; k += 2) {
          const std::string key = PrefixOf(p) + std::string(k % 4, 'x') +
                                  std::to_string(k * 13 + p);
          if ((k + p + generation) % 7 == 0) {
            Delete(key);
          } else {
            Put(key, "v" + std::to_string(generation) + key);
          }
        }
      }
      Put("a" + std::to_string(generation), "short");
      Put("aaaa", "fence" + std::to_string(generation));
      Put("zzzz", "fence" + std::to_string(generation));
      if (generation == 0) {
        ASSERT_OK(db_->Flush(FlushOptions()));
        ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      } else if (generation == 1) {
        ASSERT_OK(db_->Flush(FlushOptions()));
      }
    }
  }

  // The model's keys in [from, to), in order.
  std::vector<std::string> ModelRange(const std::string& from,
                                      const std::string& to) const {
    std::vector<std::string> keys;
    for (auto it = model_.lower_bound(from);
         it != model_.end() && it->first < to; ++it) {
      keys.push_back(it->first);
    }
    return keys;
  }

  std::vector<std::string> AllKeysAskedAbout() const {
    std::vector<std::string> keys;
    for (const auto& entry : model_) keys.push_back(entry.first);
    for (int p = 0; p < kPrefixes + 2; ++p) {
      keys.push_back(PrefixOf(p) + "absent");
      keys.push_back(PrefixOf(p));
    }
    keys.push_back("a");
    keys.push_back("zz");
    return keys;
  }

  // Every read a prefix user runs, for each prefix of `prefix_length` bytes.
  void ExpectPrefixReads(size_t prefix_length) {
    testing::ExpectReadsMatchModel(db_.get(), model_, AllKeysAskedAbout());
    for (int p = 0; p < kPrefixes; ++p) {
      const std::string prefix = PrefixOf(p).substr(0, prefix_length);
      std::string after = prefix;
      after.back()++;
      SCOPED_TRACE("prefix " + prefix);
      const std::vector<std::string> expected = ModelRange(prefix, after);

      ReadOptions same_prefix;
      same_prefix.prefix_same_as_start = true;
      std::unique_ptr<Iterator> it(db_->NewIterator(same_prefix));
      std::vector<std::string> seen;
      for (it->Seek(prefix); it->Valid(); it->Next()) {
        seen.push_back(it->key().ToString());
        EXPECT_EQ(it->value().ToString(), model_.at(seen.back()));
      }
      EXPECT_OK(it->status());
      EXPECT_EQ(seen, expected) << "Seek with prefix_same_as_start";
      seen.clear();
      for (it->SeekForPrev(prefix + "\xff"); it->Valid(); it->Prev()) {
        seen.insert(seen.begin(), it->key().ToString());
      }
      EXPECT_OK(it->status());
      EXPECT_EQ(seen, expected) << "SeekForPrev with prefix_same_as_start";

      ReadOptions auto_mode;
      auto_mode.auto_prefix_mode = true;
      Slice upper(after);
      auto_mode.iterate_upper_bound = &upper;
      it.reset(db_->NewIterator(auto_mode));
      seen.clear();
      for (it->Seek(prefix); it->Valid(); it->Next()) {
        seen.push_back(it->key().ToString());
      }
      EXPECT_OK(it->status());
      EXPECT_EQ(seen, expected) << "auto_prefix_mode with an upper bound";

      // A total-order seek to a key absent from its prefix lands on the
      // next key, in whatever prefix that is.
      ReadOptions total;
      total.total_order_seek = true;
      it.reset(db_->NewIterator(total));
      const std::string probe = prefix + "~";
      it->Seek(probe);
      const auto next = model_.lower_bound(probe);
      if (next == model_.end()) {
        EXPECT_FALSE(it->Valid());
      } else {
        ASSERT_TRUE(it->Valid());
        EXPECT_EQ(it->key().ToString(), next->first);
      }
      EXPECT_OK(it->status());
    }
  }

  Options options_;
  testing::ScratchDb db_;
  Model model_;
};

TEST_P(PrefixReadsTest, PrefixSeeksMatchTheModel) {
  ASSERT_OK(db_.Open(options_));
  Fill();
  ExpectPrefixReads(4);
  // Everything in files, then in one compacted file.
  ASSERT_OK(db_->Flush(FlushOptions()));
  ExpectPrefixReads(4);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ExpectPrefixReads(4);
}

// Files written under a 4-byte extractor, read under a 3-byte one: RocksDB
// must not trust a per-file prefix structure built for the old extractor.
TEST_P(PrefixReadsTest, ReopenedWithAnotherExtractorReadsTheSame) {
  ASSERT_OK(db_.Open(options_));
  Fill();
  ASSERT_OK(db_->Flush(FlushOptions()));
  options_.prefix_extractor.reset(NewFixedPrefixTransform(3));
  ASSERT_OK(db_.Open(options_));
  ExpectPrefixReads(3);
  Put("pf0new", "after the reopen");
  ExpectPrefixReads(3);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ExpectPrefixReads(3);
}

#if ROCKSDB_MAJOR >= 9
// RocksDB 9.x's paranoid_memory_checks reads the memtable through its
// checked operations, prefix seeks included.
TEST_P(PrefixReadsTest, PrefixSeeksUnderParanoidMemoryChecks) {
  options_.paranoid_memory_checks = true;
  ASSERT_OK(db_.Open(options_));
  Fill();
  ExpectPrefixReads(4);
}
#endif

INSTANTIATE_TEST_SUITE_P(Formats, PrefixReadsTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
