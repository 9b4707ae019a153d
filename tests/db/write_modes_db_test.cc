// RocksDB's other write paths with the striped_hash memtable taking
// concurrent inserts: pipelined writes, two write queues, and unordered
// writes, where writers insert into the memtable without waiting for the
// writers before them, so one key's versions can arrive out of sequence
// order. The memtable must still keep each key's versions in sequence
// order: threads merge operands into the same few keys at once, and each
// key's merged value must list its operands in the order of the sequence
// numbers the write-ahead log gave them, from the memtable and again from
// the flushed table file.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/db.h"
#include "rocksdb/transaction_log.h"
#include "rocksdb/write_batch.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/scratch_db.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

constexpr int kThreads = 4;
// Few keys: writers often insert versions of the same key at once.
constexpr int kKeys = 4;
constexpr int kRounds = 1000;

std::string KeyOf(int i) { return "key" + std::to_string(i); }

enum class WriteMode { kPipelined, kTwoQueues, kUnordered };

class WriteModesTest : public ::testing::TestWithParam<WriteMode> {
 protected:
  void SetUp() override {
    options_.create_if_missing = true;
    options_.allow_concurrent_memtable_write = true;
    options_.enable_pipelined_write = GetParam() == WriteMode::kPipelined;
    options_.two_write_queues = GetParam() == WriteMode::kTwoQueues;
    options_.unordered_write = GetParam() == WriteMode::kUnordered;
    options_.memtable_factory = NewStripedHashMemTableFactory();
    options_.table_factory = NewCuckooHashTableFactory();
    options_.merge_operator = std::make_shared<testing::CommaAppendOperator>();
    ASSERT_OK(db_.Open(options_));
  }

  // Each key's operands, in sequence number order, as the log has them.
  std::map<std::string, std::string> MergedFromTheLog() {
    // A log record holds a write group's batches: its operations take
    // consecutive sequence numbers from the record's.
    struct Collector : public WriteBatch::Handler {
      std::vector<std::pair<std::string, std::string>> merges;
      Status MergeCF(uint32_t, const Slice& key, const Slice& value) override {
        merges.emplace_back(key.ToString(), value.ToString());
        return Status::OK();
      }
    };
    std::map<std::string, std::vector<std::pair<SequenceNumber, std::string>>>
        operands;
    std::unique_ptr<TransactionLogIterator> log;
    EXPECT_OK(db_->GetUpdatesSince(0, &log));
    for (; log != nullptr && log->Valid(); log->Next()) {
      BatchResult batch = log->GetBatch();
      Collector collector;
      EXPECT_OK(batch.writeBatchPtr->Iterate(&collector));
      SequenceNumber sequence = batch.sequence;
      for (auto& [key, value] : collector.merges) {
        operands[key].emplace_back(sequence++, std::move(value));
      }
    }
    std::map<std::string, std::string> merged;
    for (auto& [key, list] : operands) {
      std::sort(list.begin(), list.end());
      std::string joined;
      for (const auto& operand : list) {
        if (!joined.empty()) joined += ',';
        joined += operand.second;
      }
      merged[key] = joined;
    }
    return merged;
  }

  void ExpectMerged(const std::map<std::string, std::string>& expected) {
    for (const auto& [key, value] : expected) {
      std::string merged;
      ASSERT_OK(db_->Get(ReadOptions(), key, &merged));
      EXPECT_EQ(merged, value) << key;
    }
  }

  Options options_;
  testing::ScratchDb db_{"write_modes"};
};

TEST_P(WriteModesTest, ConcurrentWritersVersionsStayInSequenceOrder) {
  std::vector<std::thread> threads;
  std::vector<Status> failures(kThreads);
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; round++) {
        const Status s =
            db_->Merge(WriteOptions(), KeyOf(round % kKeys),
                       std::to_string(t) + ":" + std::to_string(round));
        if (!s.ok()) {
          failures[t] = s;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const Status& s : failures) ASSERT_OK(s);
  const std::map<std::string, std::string> expected = MergedFromTheLog();
  ASSERT_EQ(expected.size(), size_t{kKeys});
  for (const auto& [key, value] : expected) {
    EXPECT_EQ(std::count(value.begin(), value.end(), ','),
              kThreads * kRounds / kKeys - 1)
        << key;
  }
  {
    SCOPED_TRACE("in the memtable");
    ExpectMerged(expected);
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  {
    SCOPED_TRACE("in a table file");
    ExpectMerged(expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, WriteModesTest,
                         ::testing::Values(WriteMode::kPipelined,
                                           WriteMode::kTwoQueues,
                                           WriteMode::kUnordered),
                         [](const auto& info) {
                           switch (info.param) {
                             case WriteMode::kPipelined:
                               return "Pipelined";
                             case WriteMode::kTwoQueues:
                               return "TwoQueues";
                             case WriteMode::kUnordered:
                               return "Unordered";
                           }
                           return "";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
