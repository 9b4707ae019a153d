// The hash CuckooHashTable files are laid out by: every byte and the length
// count, and the identity key is the big-endian prefix.
#include "util/key_hash.h"

#include <gtest/gtest.h>

#include <string>

namespace rocksdb_cuckoo {
namespace {

TEST(KeyHashTest, IdentityKeyIsBigEndianPrefix) {
  const char key[] = {0, 0, 0, 0, 0, 0, 1, 2, 'x'};
  EXPECT_EQ(IdentityKey(key, 9), 0x0102u);
  EXPECT_EQ(IdentityKey(key, 8), 0x0102u);
  EXPECT_EQ(IdentityKey("\x01", 1), uint64_t{1} << 56);
  EXPECT_EQ(IdentityKey("", 0), 0u);
}

TEST(KeyHashTest, HashDependsOnEveryByteAndLength) {
  std::string base(40, 'a');
  for (size_t len = 0; len <= base.size(); len++) {
    const uint64_t h = HashKey(base.data(), len);
    EXPECT_NE(h, HashKey(base.data(), len + 1)) << len;
    for (size_t i = 0; i < len; i++) {
      std::string changed = base.substr(0, len);
      changed[i] ^= 1;
      ASSERT_NE(h, HashKey(changed.data(), len)) << len << " " << i;
    }
  }
}

}  // namespace
}  // namespace rocksdb_cuckoo
