// Damaged CuckooHashTable files: a byte flipped or the file truncated at many
// offsets must give a non-OK status (Corruption once the file is open) or
// exactly the original data; never a crash, a hang or a wrong value. Files
// are read through rocksdb::SstFileReader (mmap on and off) and, for a subset
// of offsets, through a DB reopened with paranoid checks.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "table/cuckoo_hash_table_format.h"
#include "tests/support/db_open.h"
#include "tests/support/db_test_helpers.h"

namespace {

using rocksdb_cuckoo::testing::CommaAppendOperator;
using rocksdb_cuckoo::testing::Printable;
using rocksdb_cuckoo::testing::ReadWholeFile;
using rocksdb_cuckoo::testing::WriteWholeFile;

using ROCKSDB_NAMESPACE::CompactRangeOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::LiveFileMetaData;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::SstFileReader;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteOptions;

constexpr const char* kTableName = "CuckooHashTable";

using KVs = std::vector<std::pair<std::string, std::string>>;

std::string ToHex(int byte) {
  char buf[3];
  std::snprintf(buf, sizeof(buf), "%02x", byte & 0xff);
  return buf;
}

std::string UniqueTempDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  std::string base = ::testing::TempDir();
  if (base.empty() || base.back() != '/') base.push_back('/');
  return base + "cuckoo_corruption_" + std::to_string(getpid()) + "_" +
         std::to_string(counter.fetch_add(1)) + "_" + tag;
}

// A crash loses gtest's SCOPED_TRACE, so the damage being checked is kept
// here, preformatted, and written out by a fatal-signal handler.
char g_crash_context[160] = "";

extern "C" void PrintCrashContext(int sig) {
  const ssize_t ignored = write(2, g_crash_context, strlen(g_crash_context));
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallCrashContextHandler() {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
    signal(sig, PrintCrashContext);
  }
}

void SetCrashContext(const char* how, uint64_t offset, uint64_t size,
                     const char* reader) {
  std::snprintf(g_crash_context, sizeof(g_crash_context),
                "\n*** crashed on: %s at offset %llu of %llu, %s\n", how,
                static_cast<unsigned long long>(offset),
                static_cast<unsigned long long>(size), reader);
}

// How one damaged file fared.
enum class Outcome { kRejectedAtOpen, kDetectedOnRead, kIntact };

struct CorruptionParam {
  const char* checksum;
  bool identity;
  // One key size, one value size, one Put per key: a bottommost file in
  // slot order whose keys are stored without trailers.
  bool slot_shaped;
};

std::string NameOf(const CorruptionParam& p) {
  return std::string(p.checksum) + (p.identity ? "_identity" : "") +
         (p.slot_shaped ? "_slots" : "");
}

void PrintTo(const CorruptionParam& p, std::ostream* os) { *os << NameOf(p); }

class CorruptionTest : public ::testing::TestWithParam<CorruptionParam> {
 protected:
  void SetUp() override {
    static std::once_flag once;
    std::call_once(once, [] {
      register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
      InstallCrashContextHandler();
    });
    const CorruptionParam& p = GetParam();
    root_ = UniqueTempDir(NameOf(p));
    ASSERT_TRUE(std::filesystem::create_directories(root_));
    db_path_ = root_ + "/db";
    scratch_path_ = root_ + "/scratch.sst";

    // Only the options string names the table format; refuse a silent
    // fallback to BlockBasedTable.
    ConfigOptions config;
    config.ignore_unknown_options = false;
    config.ignore_unsupported_options = false;
    const std::string opts =
        std::string(
            "create_if_missing=true;disable_auto_compactions=true;"
            "paranoid_checks=true;keep_log_file_num=2;"
            "table_factory={id=") +
        kTableName + ";checksum=" + p.checksum +
        ";identity_as_first_hash=" + (p.identity ? "true" : "false") + "}";
    Status s = GetOptionsFromString(config, Options(), opts, &options_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_NE(options_.table_factory, nullptr);
    ASSERT_STREQ(options_.table_factory->Name(), kTableName);
    options_.merge_operator = std::make_shared<CommaAppendOperator>();

    if (p.slot_shaped) {
      ASSERT_NO_FATAL_FAILURE(BuildSlotShapedDb());
    } else {
      ASSERT_NO_FATAL_FAILURE(BuildDb());
    }
    pristine_ = ReadWholeFile(sst_path_);
    ASSERT_GT(pristine_.size(), 1000u);
    rocksdb_cuckoo::Layout layout;
    ASSERT_TRUE(layout.DecodeFromFile(pristine_).ok());
    ASSERT_EQ(layout.fixed_slots() && layout.keys_without_trailers,
              p.slot_shaped);

    // The undamaged file must read back as exactly the expected data.
    baseline_.assign(expected_.begin(), expected_.end());
    for (bool mmap : {false, true}) {
      ASSERT_TRUE(WriteWholeFile(scratch_path_, pristine_));
      Outcome outcome;
      ASSERT_NO_FATAL_FAILURE(CheckSstFileReader(mmap, &outcome));
      ASSERT_EQ(outcome, Outcome::kIntact) << "mmap=" << mmap;
    }
    Outcome outcome;
    ASSERT_NO_FATAL_FAILURE(CheckDb(&outcome));
    ASSERT_EQ(outcome, Outcome::kIntact);
  }

  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

  // Several hundred keys of mixed shapes, older versions kept by a snapshot,
  // merge operands, deletions, one long recognisable value ("needle");
  // compacted into a single SST file.
  void BuildDb() {
    std::mt19937_64 rnd(0xC0FFEE);
    auto uniform = [&rnd](uint64_t n) {
      return std::uniform_int_distribution<uint64_t>(0, n - 1)(rnd);
    };
    auto value = [&](size_t len) {
      std::string v(len, '\0');
      for (char& c : v) c = static_cast<char>('a' + uniform(26));
      return v;
    };
    std::set<std::string> key_set;
    for (int i = 0; i < 600; ++i) {
      std::string key;
      if (i % 4 == 0) {
        for (int shift = 56; shift >= 0; shift -= 8) {
          key.push_back(static_cast<char>(
              (static_cast<uint64_t>(i) * 977 >> shift) & 0xff));
        }
      } else {
        key = "key" + std::to_string(i);
        key += std::string(uniform(30), static_cast<char>(uniform(256)));
      }
      key_set.insert(key);
    }
    keys_.assign(key_set.begin(), key_set.end());

    DB* raw = nullptr;
    Status s = rocksdb_cuckoo::OpenDB(options_, db_path_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    const WriteOptions wo;
    for (size_t i = 0; i < keys_.size(); ++i) {
      const size_t len =
          i % 50 == 0 ? 2000 + uniform(2000) : (i % 9 == 0 ? 0 : uniform(60));
      expected_[keys_[i]] = value(len);
      ASSERT_TRUE(db->Put(wo, keys_[i], expected_[keys_[i]]).ok());
    }
    needle_key_ = keys_[keys_.size() / 2];
    expected_[needle_key_] = "NEEDLE" + value(3000);
    ASSERT_TRUE(db->Put(wo, needle_key_, expected_[needle_key_]).ok());
    ASSERT_TRUE(db->Flush(FlushOptions()).ok());

    const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
    for (size_t i = 0; i < keys_.size(); ++i) {
      const std::string& k = keys_[i];
      if (k == needle_key_) continue;
      if (i % 7 == 1) {
        const std::string operand = value(uniform(8));
        ASSERT_TRUE(db->Merge(wo, k, operand).ok());
        expected_[k] += "," + operand;
      } else if (i % 11 == 2) {
        ASSERT_TRUE(db->Delete(wo, k).ok());
        expected_.erase(k);
      } else if (i % 5 == 3) {
        expected_[k] = value(uniform(100));
        ASSERT_TRUE(db->Put(wo, k, expected_[k]).ok());
      }
    }
    ASSERT_TRUE(db->Flush(FlushOptions()).ok());
    ASSERT_NO_FATAL_FAILURE(CompactIntoOneFile(db.get()));
    db->ReleaseSnapshot(snapshot);
    ASSERT_NO_FATAL_FAILURE(FindTheFile(db.get()));
  }

  // 600 keys of 16 bytes, values of kSlotValueSize bytes, the needle among
  // them; compacted without snapshots, so their sequence numbers become 0.
  static constexpr size_t kSlotValueSize = 40;
  void BuildSlotShapedDb() {
    std::mt19937_64 rnd(0x5107);
    DB* raw = nullptr;
    Status s = rocksdb_cuckoo::OpenDB(options_, db_path_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < 600; ++i) {
      std::string key(16, '\0');
      for (char& c : key) c = static_cast<char>(rnd());
      std::string value(kSlotValueSize, '\0');
      for (char& c : value) c = static_cast<char>('a' + rnd() % 26);
      keys_.push_back(key);
      expected_[key] = value;
    }
    std::sort(keys_.begin(), keys_.end());
    needle_key_ = keys_[keys_.size() / 2];
    expected_[needle_key_] = "NEEDLE" + expected_[needle_key_].substr(6);
    for (const auto& [key, value] : expected_) {
      ASSERT_TRUE(db->Put(WriteOptions(), key, value).ok());
    }
    ASSERT_TRUE(db->Flush(FlushOptions()).ok());
    ASSERT_NO_FATAL_FAILURE(CompactIntoOneFile(db.get()));
    ASSERT_NO_FATAL_FAILURE(FindTheFile(db.get()));
  }

  static void CompactIntoOneFile(DB* db) {
    CompactRangeOptions cro;
    cro.bottommost_level_compaction =
        ROCKSDB_NAMESPACE::BottommostLevelCompaction::kForce;
    const Status s = db->CompactRange(cro, nullptr, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  void FindTheFile(DB* db) {
    std::vector<LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    ASSERT_EQ(files.size(), 1u) << "expected one compacted SST file";
    sst_path_ = files[0].db_path + "/" + files[0].name;
    ASSERT_TRUE(db->Close().ok());
  }

  // Entries an iterator yields before an error must still be right; the step
  // limit turns a looping iterator into a failure instead of a hang.
  void CheckScan(Iterator* it, bool forward, bool* detected) {
    size_t n = 0;
    if (forward) {
      it->SeekToFirst();
    } else {
      it->SeekToLast();
    }
    for (; it->Valid(); ++n) {
      ASSERT_LT(n, baseline_.size()) << "iterator yields too many entries";
      const auto& want = forward ? baseline_[n] : baseline_.rbegin()[n];
      ASSERT_EQ(it->key().ToString(), want.first)
          << (forward ? "forward" : "backward") << " entry " << n;
      ASSERT_EQ(it->value().ToString(), want.second)
          << "value of " << Printable(want.first);
      if (forward) {
        it->Next();
      } else {
        it->Prev();
      }
    }
    if (it->status().ok()) {
      ASSERT_EQ(n, baseline_.size()) << "scan ended early without an error";
    } else {
      ASSERT_TRUE(it->status().IsCorruption()) << it->status().ToString();
      *detected = true;
    }
  }

  // Seek/SeekForPrev to stored keys must land on them with the right value.
  void CheckSeeks(Iterator* it, size_t stride, bool* detected) {
    for (size_t i = 0; i < baseline_.size(); i += stride) {
      const auto& want = baseline_[i];
      if (i % 2 == 0) {
        it->Seek(want.first);
      } else {
        it->SeekForPrev(want.first);
      }
      if (!it->Valid()) {
        ASSERT_FALSE(it->status().ok())
            << "seek to " << Printable(want.first) << " found nothing";
        ASSERT_TRUE(it->status().IsCorruption()) << it->status().ToString();
        *detected = true;
        continue;
      }
      ASSERT_EQ(it->key().ToString(), want.first);
      ASSERT_EQ(it->value().ToString(), want.second)
          << "value of " << Printable(want.first);
    }
  }

  void CheckSstFileReader(bool mmap, Outcome* outcome) {
    Options options = options_;
    options.allow_mmap_reads = mmap;
    SstFileReader reader(options);
    Status s = reader.Open(scratch_path_);
    if (!s.ok()) {
      *outcome = Outcome::kRejectedAtOpen;
      return;
    }
    bool detected = false;
    {
      std::unique_ptr<Iterator> it(reader.NewIterator(ReadOptions()));
      ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), true, &detected));
      ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), false, &detected));
      ASSERT_NO_FATAL_FAILURE(CheckSeeks(it.get(), 3, &detected));
    }
    s = reader.VerifyChecksum();
    if (!s.ok()) {
      ASSERT_TRUE(s.IsCorruption()) << s.ToString();
      detected = true;
    }
    *outcome = detected ? Outcome::kDetectedOnRead : Outcome::kIntact;
  }

  // Reopens the DB over its (possibly damaged) SST file and reads it all.
  void CheckDb(Outcome* outcome) {
    Options options = options_;
    options.create_if_missing = false;
    DB* raw = nullptr;
    Status s = rocksdb_cuckoo::OpenDB(options, db_path_, &raw);
    if (!s.ok()) {
      *outcome = Outcome::kRejectedAtOpen;
      return;
    }
    std::unique_ptr<DB> db(raw);
    bool detected = false;
    auto check_point_read = [&](const std::string& key, const Status& st,
                                const Slice& v) {
      auto want = expected_.find(key);
      if (st.ok()) {
        ASSERT_NE(want, expected_.end()) << "deleted key " << Printable(key);
        ASSERT_EQ(v.ToString(), want->second) << "value of " << Printable(key);
      } else if (st.IsNotFound()) {
        ASSERT_EQ(want, expected_.end()) << "lost key " << Printable(key);
      } else {
        ASSERT_TRUE(st.IsCorruption()) << st.ToString();
        detected = true;
      }
    };
    std::vector<std::string> lookups = keys_;
    lookups.push_back("absent");
    lookups.push_back("");
    for (const std::string& key : lookups) {
      PinnableSlice v;
      Status st = db->Get(ReadOptions(), db->DefaultColumnFamily(), key, &v);
      ASSERT_NO_FATAL_FAILURE(check_point_read(key, st, v));
    }
    std::vector<Slice> slices(lookups.begin(), lookups.end());
    std::vector<PinnableSlice> values(slices.size());
    std::vector<Status> statuses(slices.size());
    db->MultiGet(ReadOptions(), db->DefaultColumnFamily(), slices.size(),
                 slices.data(), values.data(), statuses.data());
    for (size_t i = 0; i < slices.size(); ++i) {
      ASSERT_NO_FATAL_FAILURE(
          check_point_read(lookups[i], statuses[i], values[i]));
    }
    {
      std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
      ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), true, &detected));
      ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), false, &detected));
    }
    ASSERT_TRUE(db->Close().ok());
    *outcome = detected ? Outcome::kDetectedOnRead : Outcome::kIntact;
  }

  // Every byte of the first 64 and the last 200, a stride over the rest,
  // and a few random offsets.
  std::vector<uint64_t> Offsets() const {
    const uint64_t size = pristine_.size();
    std::set<uint64_t> offsets;
    for (uint64_t i = 0; i < std::min<uint64_t>(64, size); ++i) {
      offsets.insert(i);
    }
    for (uint64_t i = size > 200 ? size - 200 : 0; i < size; ++i) {
      offsets.insert(i);
    }
    const uint64_t stride = std::max<uint64_t>(1, size / 400) | 1;
    for (uint64_t i = 64; i < size; i += stride) offsets.insert(i);
    std::mt19937_64 rnd(size);
    for (int i = 0; i < 16; ++i) offsets.insert(rnd() % size);
    return {offsets.begin(), offsets.end()};
  }

  struct Tally {
    int rejected = 0;
    int detected = 0;
    int intact = 0;
    std::set<uint64_t> intact_offsets;
    void Add(Outcome o, uint64_t offset) {
      if (o == Outcome::kRejectedAtOpen) ++rejected;
      if (o == Outcome::kDetectedOnRead) ++detected;
      if (o == Outcome::kIntact) {
        ++intact;
        intact_offsets.insert(offset);
      }
    }
    std::string ToString() const {
      std::string s = "rejected at open " + std::to_string(rejected) +
                      ", detected on read " + std::to_string(detected) +
                      ", read back intact " + std::to_string(intact);
      const char* sep = " at offsets ";
      for (uint64_t offset : intact_offsets) {
        s += sep + std::to_string(offset);
        sep = ",";
      }
      return s;
    }
  };

  // Applies `damage` at every offset and checks the damaged file through
  // SstFileReader (mmap off and on) and, every `db_every` offsets, a DB.
  template <typename Damage>
  void RunDamage(Damage damage, Tally* tally) {
    const std::vector<uint64_t> offsets = Offsets();
    for (size_t i = 0; i < offsets.size(); ++i) {
      const uint64_t offset = offsets[i];
      std::string how;
      const std::string damaged = damage(offset, &how);
      SCOPED_TRACE(how + " at offset " + std::to_string(offset) + " of " +
                   std::to_string(pristine_.size()));
      ASSERT_TRUE(WriteWholeFile(scratch_path_, damaged));
      for (bool mmap : {false, true}) {
        SCOPED_TRACE(mmap ? "SstFileReader, mmap" : "SstFileReader, pread");
        SetCrashContext(how.c_str(), offset, pristine_.size(),
                        mmap ? "SstFileReader, mmap" : "SstFileReader, pread");
        Outcome outcome;
        ASSERT_NO_FATAL_FAILURE(CheckSstFileReader(mmap, &outcome));
        tally->Add(outcome, offset);
      }
      if (i % kDbEvery == 0 || offset + 8 >= pristine_.size()) {
        SCOPED_TRACE("DB reopen");
        SetCrashContext(how.c_str(), offset, pristine_.size(), "DB reopen");
        ASSERT_TRUE(WriteWholeFile(sst_path_, damaged));
        Outcome outcome;
        ASSERT_NO_FATAL_FAILURE(CheckDb(&outcome));
        tally->Add(outcome, offset);
        // Cheap restore: the pristine bytes go back under the same name.
        ASSERT_TRUE(WriteWholeFile(sst_path_, pristine_));
      }
    }
  }

#ifdef CUCKOO_SANITIZED
  static constexpr size_t kDbEvery = 16;
#else
  static constexpr size_t kDbEvery = 6;
#endif

  Options options_;
  std::string root_, db_path_, sst_path_, scratch_path_;
  std::vector<std::string> keys_;
  std::map<std::string, std::string> expected_;  // latest view of the DB
  KVs baseline_;                                 // expected_, in order
  std::string needle_key_;
  std::string pristine_;
};

TEST_P(CorruptionTest, FlippedBytesNeverYieldWrongData) {
  std::mt19937_64 rnd(7);
  Tally tally;
  ASSERT_NO_FATAL_FAILURE(RunDamage(
      [&](uint64_t offset, std::string* how) {
        const int mask = static_cast<int>(1 + rnd() % 255);
        std::string d = pristine_;
        d[offset] = static_cast<char>(d[offset] ^ mask);
        *how = "xor 0x" + ToHex(mask);
        return d;
      },
      &tally));
  std::cout << "[ flips    ] " << tally.ToString() << "\n";
  // Every byte is covered by a checksum or checked against the checksummed
  // layout (footer, padding), so no flip may go unnoticed.
  EXPECT_EQ(tally.intact, 0) << tally.ToString();
  EXPECT_GT(tally.rejected, 0);
}

TEST_P(CorruptionTest, TruncatedFilesNeverYieldWrongData) {
  Tally tally;
  ASSERT_NO_FATAL_FAILURE(RunDamage(
      [&](uint64_t offset, std::string* how) {
        *how = "truncate";
        return pristine_.substr(0, offset);
      },
      &tally));
  std::cout << "[ truncate ] " << tally.ToString() << "\n";
  // The layout and footer sit at the end: no truncation can go unnoticed.
  EXPECT_EQ(tally.intact, 0) << tally.ToString();
}

TEST_P(CorruptionTest, VerifyChecksumReportsFlippedDataByte) {
  const size_t pos = pristine_.find("NEEDLE");
  ASSERT_NE(pos, std::string::npos) << "value bytes not found in the file";
  ASSERT_EQ(pristine_.find("NEEDLE", pos + 1), std::string::npos);

  for (bool mmap : {false, true}) {
    SCOPED_TRACE(mmap ? "mmap" : "pread");
    Options options = options_;
    options.allow_mmap_reads = mmap;
    {
      ASSERT_TRUE(WriteWholeFile(scratch_path_, pristine_));
      SstFileReader reader(options);
      ASSERT_TRUE(reader.Open(scratch_path_).ok());
      Status s = reader.VerifyChecksum();
      EXPECT_TRUE(s.ok()) << s.ToString();
      ASSERT_NE(reader.GetTableProperties(), nullptr);
      EXPECT_GE(reader.GetTableProperties()->num_entries, keys_.size());
    }
    const size_t needle_size = expected_[needle_key_].size();
    for (size_t delta : {size_t{0}, needle_size / 2, needle_size - 1}) {
      std::string damaged = pristine_;
      damaged[pos + delta] ^= 0x20;
      ASSERT_TRUE(WriteWholeFile(scratch_path_, damaged));
      SstFileReader reader(options);
      Status s = reader.Open(scratch_path_);
      if (s.ok()) s = reader.VerifyChecksum();
      EXPECT_TRUE(s.IsCorruption())
          << "flip at offset " << pos + delta << ": " << s.ToString();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cuckoo, CorruptionTest,
    ::testing::Values(CorruptionParam{"kXXH3", false, false},
                      CorruptionParam{"kCRC32c", true, false},
                      CorruptionParam{"kXXH3", false, true}),
    [](const ::testing::TestParamInfo<CorruptionParam>& info) {
      return NameOf(info.param);
    });

}  // namespace
