// The sequence number an ingested file's entries read with, from its
// properties and what the DB knows of it; inconsistent properties are
// Corruption, never a silently wrong number.
#include "table/external_file_seqno.h"

#include <gtest/gtest.h>

#include "table/sst_file_writer_collectors.h"
#include "util/coding.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

std::string Fixed32(uint32_t v) {
  std::string s;
  PutFixed32(&s, v);
  return s;
}
std::string Fixed64(uint64_t v) {
  std::string s;
  PutFixed64(&s, v);
  return s;
}

// Properties of a file SstFileWriter wrote (external file version 2), with
// the global seqno property if `global` is given.
TableProperties External(uint32_t version, const std::string* global) {
  TableProperties p;
  p.user_collected_properties[ExternalSstFilePropertyNames::kVersion] =
      Fixed32(version);
  if (global != nullptr) {
    p.user_collected_properties[ExternalSstFilePropertyNames::kGlobalSeqno] =
        *global;
  }
  return p;
}

TEST(ExternalFileSeqnoTest, FilesOfTheDbKeepTheirOwnNumbers) {
  SequenceNumber seqno = 1;
  ASSERT_TRUE(ExternalFileSequenceNumber(TableProperties(), 5, &seqno).ok());
  EXPECT_EQ(seqno, kDisableGlobalSequenceNumber);
  ASSERT_TRUE(ExternalFileSequenceNumber(External(1, nullptr), 5, &seqno).ok());
  EXPECT_EQ(seqno, kDisableGlobalSequenceNumber);
}

TEST(ExternalFileSeqnoTest, WrittenPropertyOrTheDbsNumber) {
  SequenceNumber seqno = 0;
  const std::string written = Fixed64(42);
  ASSERT_TRUE(
      ExternalFileSequenceNumber(External(2, &written), 42, &seqno).ok());
  EXPECT_EQ(seqno, 42u);
  // write_global_seqno=false: the property stays 0, the DB's number rules.
  const std::string zero = Fixed64(0);
  ASSERT_TRUE(ExternalFileSequenceNumber(External(2, &zero), 7, &seqno).ok());
  EXPECT_EQ(seqno, 7u);
  // Read outside a DB (SstFileReader): the property as written.
  ASSERT_TRUE(ExternalFileSequenceNumber(External(2, &written),
                                         kMaxSequenceNumber, &seqno)
                  .ok());
  EXPECT_EQ(seqno, 42u);
}

TEST(ExternalFileSeqnoTest, InconsistentPropertiesAreCorruption) {
  SequenceNumber seqno = 0;
  const std::string written = Fixed64(42);
  // Property and DB disagree.
  EXPECT_TRUE(ExternalFileSequenceNumber(External(2, &written), 43, &seqno)
                  .IsCorruption());
  // A global seqno where no external version says there may be one.
  TableProperties stray;
  stray.user_collected_properties[ExternalSstFilePropertyNames::kGlobalSeqno] =
      written;
  EXPECT_TRUE(ExternalFileSequenceNumber(stray, 42, &seqno).IsCorruption());
  EXPECT_TRUE(ExternalFileSequenceNumber(External(1, &written), 42, &seqno)
                  .IsCorruption());
  // Malformed sizes and an out-of-range number.
  TableProperties bad_version = External(2, nullptr);
  bad_version
      .user_collected_properties[ExternalSstFilePropertyNames::kVersion] = "xy";
  EXPECT_TRUE(
      ExternalFileSequenceNumber(bad_version, 42, &seqno).IsCorruption());
  const std::string short_global = "1234";
  EXPECT_TRUE(ExternalFileSequenceNumber(External(2, &short_global), 42, &seqno)
                  .IsCorruption());
  const std::string huge = Fixed64(kMaxSequenceNumber + 1);
  EXPECT_TRUE(
      ExternalFileSequenceNumber(External(2, &huge), kMaxSequenceNumber, &seqno)
          .IsCorruption());
}

}  // namespace
}  // namespace rocksdb_cuckoo
