// The factory on its own: its name, the options it keeps and prints (db_bench
// and RocksDB's LOG show these), and what a DB's option validation hears from
// it: bad values set in C++ and comparators that hash badly are refused,
// naming the problem.
#include "table/cuckoo_hash_table_factory.h"

#include <gtest/gtest.h>

#include <string>

#include "rocksdb/options.h"
#include "tests/support/test_comparators.h"

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Status;

TEST(CuckooHashTableFactoryTest, NameAndTheOptionsItKeeps) {
  CuckooHashTableOptions options;
  options.hash_table_ratio = 0.5;
  options.identity_as_first_hash = true;
  const CuckooHashTableFactory factory(options);
  EXPECT_STREQ(factory.Name(), "CuckooHashTable");
  EXPECT_EQ(factory.options().hash_table_ratio, 0.5);
  EXPECT_TRUE(factory.options().identity_as_first_hash);
  EXPECT_TRUE(factory.IsDeleteRangeSupported());
}

TEST(CuckooHashTableFactoryTest, PrintsEveryOption) {
  CuckooHashTableOptions options;
  options.max_search_depth = 77;
  options.checksum = ROCKSDB_NAMESPACE::kCRC32c;
  const std::string printed =
      CuckooHashTableFactory(options).GetPrintableOptions();
  for (const char* line : {"hash_table_ratio: 0.9", "identity_as_first_hash: 0",
                           "max_search_depth: 77", "slot_ordered: 1",
                           "checksum: kCRC32c", "load_in_background: 1"}) {
    EXPECT_NE(printed.find(line), std::string::npos) << line << "\n" << printed;
  }
}

TEST(CuckooHashTableFactoryTest, ValidationRefusesBadValuesAndComparators) {
  const DBOptions db_options;
  ColumnFamilyOptions cf_options;
  EXPECT_TRUE(
      CuckooHashTableFactory().ValidateOptions(db_options, cf_options).ok());

  CuckooHashTableOptions out_of_range;
  out_of_range.hash_table_ratio = 1.5;  // set in C++, never parsed
  const Status bad_value = CuckooHashTableFactory(out_of_range)
                               .ValidateOptions(db_options, cf_options);
  EXPECT_TRUE(bad_value.IsInvalidArgument()) << bad_value.ToString();
  EXPECT_NE(bad_value.ToString().find("hash_table_ratio"), std::string::npos);

  testing::CaseInsensitiveComparator case_insensitive;
  cf_options.comparator = &case_insensitive;
  const Status bad_comparator =
      CuckooHashTableFactory().ValidateOptions(db_options, cf_options);
  EXPECT_TRUE(bad_comparator.IsNotSupported()) << bad_comparator.ToString();
  EXPECT_NE(bad_comparator.ToString().find("CaseInsensitive"),
            std::string::npos);
}

}  // namespace
}  // namespace rocksdb_cuckoo
