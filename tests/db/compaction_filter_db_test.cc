// A compaction filter (as TTL DBs and most applications that expire or
// rewrite data use one) sees the entries our table files hand to a
// compaction and shapes the files it writes: removed keys are gone, changed
// values are the new ones, and "remove and skip until" makes the compaction
// seek its input files past a range. Checked against a model, on each
// format, after the compaction and after a reopen.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "rocksdb/compaction_filter.h"
#include "rocksdb/db.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/model_reads.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"
#include "tests/support/table_formats.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;
using testing::Model;
using testing::TableFormat;

constexpr int kKeys = 3000;
// The filter removes keys [kSkipFrom, kSkipTo) with one decision, so the
// compaction seeks its input past them.
constexpr int kSkipFrom = 1200;
constexpr int kSkipTo = 1700;

std::string KeyOf(int i) { return testing::NumberedKey(i, 6); }
int NumberOf(const Slice& key) { return std::stoi(key.ToString().substr(3)); }

// By key number: multiples of 5 are removed, those one above changed, the
// skipped range removed unseen, the rest kept.
class RulesFilter : public CompactionFilter {
 public:
  Decision FilterV2(int /*level*/, const Slice& key, ValueType type,
                    const Slice& existing_value, std::string* new_value,
                    std::string* skip_until) const override {
    if (type != ValueType::kValue) return Decision::kKeep;
    const int n = NumberOf(key);
    calls_.fetch_add(1, std::memory_order_relaxed);
    if (n >= kSkipFrom && n < kSkipTo) {
      if (n != kSkipFrom) skipped_seen_.fetch_add(1);
      *skip_until = KeyOf(kSkipTo);
      return Decision::kRemoveAndSkipUntil;
    }
    if (n % 5 == 0) return Decision::kRemove;
    if (n % 5 == 1) {
      *new_value = "changed-" + existing_value.ToString();
      return Decision::kChangeValue;
    }
    return Decision::kKeep;
  }
  const char* Name() const override { return "RulesFilter"; }

  // What the model expects of a key whose newest value is `value`.
  static bool Apply(int n, std::string* value) {
    if (n >= kSkipFrom && n < kSkipTo) return false;
    if (n % 5 == 0) return false;
    if (n % 5 == 1) *value = "changed-" + *value;
    return true;
  }

  int calls() const { return calls_.load(); }
  // Keys inside the skipped range the filter was still asked about.
  int skipped_seen() const { return skipped_seen_.load(); }

 private:
  mutable std::atomic<int> calls_{0};
  mutable std::atomic<int> skipped_seen_{0};
};

class CompactionFilterTest : public ::testing::TestWithParam<TableFormat> {
 protected:
  CompactionFilterTest() {
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;
    options_.compaction_filter = &filter_;
    testing::UseTableFormat(GetParam(), &options_);
  }

  RulesFilter filter_;
  Options options_;
  testing::ScratchDb db_{"compaction_filter"};
};

TEST_P(CompactionFilterTest, DecisionsShapeTheCompactedFiles) {
  ASSERT_OK(db_.Open(options_));
  // Three files: every key, then new values for every third key, then
  // deletes of every seventh; the filter sees only each key's newest value.
  Model written;
  for (int i = 0; i < kKeys; i++) {
    written[KeyOf(i)] = "v1-" + std::to_string(i);
    ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), written[KeyOf(i)]));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 0; i < kKeys; i += 3) {
    written[KeyOf(i)] = "v2-" + std::to_string(i);
    ASSERT_OK(db_->Put(WriteOptions(), KeyOf(i), written[KeyOf(i)]));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 0; i < kKeys; i += 7) {
    written.erase(KeyOf(i));
    ASSERT_OK(db_->Delete(WriteOptions(), KeyOf(i)));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));

  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  Model expected;
  for (const auto& [key, value] : written) {
    std::string kept = value;
    if (RulesFilter::Apply(NumberOf(key), &kept)) expected[key] = kept;
  }
  EXPECT_GT(filter_.calls(), 0);
  // The skip was a seek: the filter saw none of the range after its first
  // key.
  EXPECT_EQ(filter_.skipped_seen(), 0);

  std::vector<std::string> keys;
  for (int i = 0; i < kKeys + 5; i++) keys.push_back(KeyOf(i));
  testing::ExpectReadsMatchModel(db_.get(), expected, keys);
  ASSERT_OK(db_.Open(options_));
  testing::ExpectReadsMatchModel(db_.get(), expected, keys);
}

INSTANTIATE_TEST_SUITE_P(Formats, CompactionFilterTest, testing::kTableFormats,
                         testing::TableFormatName);

}  // namespace
}  // namespace rocksdb_cuckoo
