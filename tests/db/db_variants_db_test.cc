// The other ways users open and use a DB, with both of the plugin's parts
// (striped_hash memtable, CuckooHashTable files): transactions (pessimistic,
// write-prepared and write-unprepared, and optimistic, whose conflict checks
// read the memtable's newest sequence number for a key), read-only and
// secondary instances, and
// GetMergeOperands. Each answer is checked from the memtable and again from
// a table file.
#include "rocksdb/db.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "memtable/striped_hash_memtable.h"
#include "rocksdb/utilities/optimistic_transaction_db.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/transaction_db.h"
#include "table/cuckoo_hash_table.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

class DbVariantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/db_variants_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    options_.create_if_missing = true;
    options_.memtable_factory = NewStripedHashMemTableFactory();
    options_.table_factory = NewCuckooHashTableFactory();
    options_.merge_operator = std::make_shared<testing::CommaAppendOperator>();
    // Optimistic transactions check conflicts against memtables kept after
    // their flush.
    options_.max_write_buffer_size_to_maintain = 64 << 20;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  Options options_;
};

std::string GetOrStatus(DB* db, const std::string& key) {
  std::string value;
  const Status s = db->Get(ReadOptions(), key, &value);
  return s.ok() ? value : s.ToString();
}

TEST_F(DbVariantsTest, PessimisticTransactionsConflictAndCommit) {
  TransactionDB* raw = nullptr;
  ASSERT_OK(TransactionDB::Open(options_, TransactionDBOptions(), dir_, &raw));
  std::unique_ptr<TransactionDB> db(raw);
  for (bool flushed : {false, true}) {
    SCOPED_TRACE(flushed ? "in a table file" : "in the memtable");
    const std::string key = flushed ? "k-flushed" : "k-memtable";
    ASSERT_OK(db->Put(WriteOptions(), key, "v0"));
    if (flushed) ASSERT_OK(db->Flush(FlushOptions()));
    std::unique_ptr<Transaction> first(db->BeginTransaction(WriteOptions()));
    std::string value;
    ASSERT_OK(first->GetForUpdate(ReadOptions(), key, &value));
    EXPECT_EQ(value, "v0");
    ASSERT_OK(first->Put(key, "v1"));
    // The key is locked by `first`: a second writer times out.
    TransactionOptions quick;
    quick.lock_timeout = 1;
    std::unique_ptr<Transaction> second(
        db->BeginTransaction(WriteOptions(), quick));
    EXPECT_TRUE(second->Put(key, "v2").IsTimedOut());
    ASSERT_OK(first->Commit());
    EXPECT_EQ(GetOrStatus(db.get(), key), "v1");
  }
}

// WRITE_PREPARED and WRITE_UNPREPARED transactions write to the memtable
// before they commit, in sub-batches wherever a key repeats in one batch
// (the memtable refuses a repeated key and sequence number, and RocksDB
// moves on to the next one), roll back with compensating writes, and are
// replayed from the log, prepare and commit markers, after a restart.
TEST_F(DbVariantsTest, WritePreparedAndUnpreparedTransactions) {
  for (TxnDBWritePolicy policy : {WRITE_PREPARED, WRITE_UNPREPARED}) {
    SCOPED_TRACE(policy == WRITE_PREPARED ? "WRITE_PREPARED"
                                          : "WRITE_UNPREPARED");
    std::filesystem::remove_all(dir_);
    TransactionDBOptions txn_db_options;
    txn_db_options.write_policy = policy;
    // WRITE_UNPREPARED: every write reaches the memtable at once.
    TransactionOptions eager;
    eager.write_batch_flush_threshold = 1;
    TransactionDB* raw = nullptr;
    ASSERT_OK(TransactionDB::Open(options_, txn_db_options, dir_, &raw));
    std::unique_ptr<TransactionDB> db(raw);

    std::unique_ptr<Transaction> repeats(
        db->BeginTransaction(WriteOptions(), eager));
    ASSERT_OK(repeats->SetName("repeats"));
    ASSERT_OK(repeats->Put("a", "1"));
    ASSERT_OK(repeats->Put("a", "2"));
    ASSERT_OK(repeats->Merge("m", "x"));
    ASSERT_OK(repeats->Merge("m", "y"));
    ASSERT_OK(repeats->Put("b", "3"));
    ASSERT_OK(repeats->Delete("b"));
    ASSERT_OK(repeats->Prepare());
    const Snapshot* before_commit = db->GetSnapshot();
    ASSERT_OK(repeats->Commit());

    std::unique_ptr<Transaction> undone(
        db->BeginTransaction(WriteOptions(), eager));
    ASSERT_OK(undone->SetName("undone"));
    ASSERT_OK(undone->Put("a", "undone"));
    ASSERT_OK(undone->Put("r", "undone"));
    ASSERT_OK(undone->Rollback());

    auto expect_committed = [&](const char* where) {
      SCOPED_TRACE(where);
      EXPECT_EQ(GetOrStatus(db.get(), "a"), "2");
      EXPECT_EQ(GetOrStatus(db.get(), "m"), "x,y");
      EXPECT_EQ(GetOrStatus(db.get(), "b"), Status::NotFound().ToString());
      EXPECT_EQ(GetOrStatus(db.get(), "r"), Status::NotFound().ToString());
    };
    expect_committed("in the memtable");
    ReadOptions at_snapshot;
    at_snapshot.snapshot = before_commit;
    std::string value;
    EXPECT_TRUE(db->Get(at_snapshot, "a", &value).IsNotFound());
    db->ReleaseSnapshot(before_commit);

    // (A transaction still prepared at close trips an assertion of RocksDB's
    // own in builds with assertions, so every one has ended here.)
    undone.reset();
    repeats.reset();
    db.reset();
    ASSERT_OK(TransactionDB::Open(options_, txn_db_options, dir_, &raw));
    db.reset(raw);
    expect_committed("after the restart, from the log");
    ASSERT_OK(db->Flush(FlushOptions()));
    expect_committed("in a table file");
  }
}

TEST_F(DbVariantsTest, OptimisticTransactionsDetectConflicts) {
  OptimisticTransactionDB* raw = nullptr;
  ASSERT_OK(OptimisticTransactionDB::Open(options_, dir_, &raw));
  std::unique_ptr<OptimisticTransactionDB> db(raw);
  for (bool flushed : {false, true}) {
    SCOPED_TRACE(flushed ? "write flushed" : "write in the memtable");
    const std::string key = flushed ? "k-flushed" : "k-memtable";
    ASSERT_OK(db->Put(WriteOptions(), key, "v0"));
    std::unique_ptr<Transaction> txn(db->BeginTransaction(WriteOptions()));
    std::string value;
    ASSERT_OK(txn->GetForUpdate(ReadOptions(), key, &value));
    ASSERT_OK(txn->Put(key, "from-txn"));
    // A write after the transaction read the key: its commit must fail.
    ASSERT_OK(db->Put(WriteOptions(), key, "outside"));
    if (flushed) ASSERT_OK(db->Flush(FlushOptions()));
    EXPECT_TRUE(txn->Commit().IsBusy());
    EXPECT_EQ(GetOrStatus(db.get(), key), "outside");

    // Without an intervening write the commit goes through.
    std::unique_ptr<Transaction> clean(db->BeginTransaction(WriteOptions()));
    ASSERT_OK(clean->GetForUpdate(ReadOptions(), key, &value));
    ASSERT_OK(clean->Put(key, "clean"));
    ASSERT_OK(clean->Commit());
    EXPECT_EQ(GetOrStatus(db.get(), key), "clean");
  }
}

TEST_F(DbVariantsTest, ReadOnlyAndSecondaryInstancesRead) {
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options_, dir_, &raw));
  std::unique_ptr<DB> primary(raw);
  ASSERT_OK(primary->Put(WriteOptions(), "in-table", "t"));
  ASSERT_OK(primary->Flush(FlushOptions()));
  ASSERT_OK(primary->Put(WriteOptions(), "in-log", "l"));

  // Read-only: the log is replayed into a memtable of its own.
  ASSERT_OK(OpenDBForReadOnly(options_, dir_, &raw));
  std::unique_ptr<DB> read_only(raw);
  EXPECT_EQ(GetOrStatus(read_only.get(), "in-table"), "t");
  EXPECT_EQ(GetOrStatus(read_only.get(), "in-log"), "l");
  EXPECT_TRUE(read_only->Put(WriteOptions(), "x", "y").IsNotSupported());
  read_only.reset();

  Options secondary_options = options_;
  secondary_options.max_open_files = -1;
  ASSERT_OK(
      OpenDBAsSecondary(secondary_options, dir_, dir_ + "-secondary", &raw));
  std::unique_ptr<DB> secondary(raw);
  EXPECT_EQ(GetOrStatus(secondary.get(), "in-table"), "t");
  EXPECT_EQ(GetOrStatus(secondary.get(), "in-log"), "l");
  // What the primary writes and flushes later, the secondary sees after
  // catching up.
  ASSERT_OK(primary->Put(WriteOptions(), "later", "z"));
  ASSERT_OK(primary->Flush(FlushOptions()));
  ASSERT_OK(secondary->TryCatchUpWithPrimary());
  EXPECT_EQ(GetOrStatus(secondary.get(), "later"), "z");
  secondary.reset();
  std::filesystem::remove_all(dir_ + "-secondary");
}

TEST_F(DbVariantsTest, GetMergeOperandsFromMemtableAndTable) {
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options_, dir_, &raw));
  std::unique_ptr<DB> db(raw);
  // One operand per place: two table files (a flush would merge an operand
  // into a base value in the same memtable) and the memtable.
  ASSERT_OK(db->Put(WriteOptions(), "key", "base"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Merge(WriteOptions(), "key", "a"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Merge(WriteOptions(), "key", "b"));
  std::vector<PinnableSlice> operands(4);
  GetMergeOperandsOptions merge_options;
  merge_options.expected_max_number_of_operands = 4;
  int count = 0;
  ASSERT_OK(db->GetMergeOperands(ReadOptions(), db->DefaultColumnFamily(),
                                 "key", operands.data(), &merge_options,
                                 &count));
  ASSERT_EQ(count, 3);
  EXPECT_EQ(operands[0].ToString(), "base");
  EXPECT_EQ(operands[1].ToString(), "a");
  EXPECT_EQ(operands[2].ToString(), "b");
  EXPECT_EQ(GetOrStatus(db.get(), "key"), "base,a,b");
}

}  // namespace
}  // namespace rocksdb_cuckoo
