// SlotOrderBuffer holds a slot-ordered file's entries until Finish(): every
// entry must read back as added, by index and in order, across its blocks.
#include "table/slot_order_buffer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rocksdb_cuckoo {
namespace {

using ROCKSDB_NAMESPACE::Slice;

// Entry i of `size` bytes: a recognisable pattern that differs per entry.
std::string EntryOf(uint64_t i, size_t size) {
  std::string e(size, '\0');
  for (size_t b = 0; b < size; b++) e[b] = static_cast<char>(i * 131 + b * 7);
  return e;
}

class SlotOrderBufferTest : public ::testing::TestWithParam<size_t> {};

TEST_P(SlotOrderBufferTest, EntriesReadBackByIndexAndInOrder) {
  const size_t size = GetParam();
  // Enough entries for several 1 MiB blocks, and a partial last one.
  const uint64_t n = (uint64_t{3} << 20) / size + 17;
  SlotOrderBuffer buffer;
  std::string all;
  for (uint64_t i = 0; i < n; i++) {
    const std::string e = EntryOf(i, size);
    // Split into the three pieces as the builder hands them (header, key,
    // value).
    const size_t a = std::min<size_t>(2, size);
    const size_t b = std::min<size_t>(size - a, 9);
    buffer.Add(Slice(e.data(), a), Slice(e.data() + a, b),
               Slice(e.data() + a + b, size - a - b));
    all += e;
  }
  ASSERT_EQ(buffer.bytes(), n * size);
  for (uint64_t i : {uint64_t{0}, uint64_t{1}, n / 2, n - 1}) {
    EXPECT_EQ(std::string(buffer.Entry(i), size), EntryOf(i, size)) << i;
  }
  for (uint64_t i = 0; i < n; i += 997) {
    ASSERT_EQ(std::string(buffer.Entry(i), size), EntryOf(i, size)) << i;
  }
  std::string written;
  std::vector<size_t> pieces;
  buffer.WriteInOrder([&](const Slice& bytes) {
    written.append(bytes.data(), bytes.size());
    pieces.push_back(bytes.size());
  });
  EXPECT_EQ(written, all);
  EXPECT_GT(pieces.size(), 1u) << "held in several blocks";

  buffer.Clear();
  EXPECT_EQ(buffer.bytes(), 0u);
  buffer.Add(Slice("xy"), Slice("z"), Slice());
  EXPECT_EQ(std::string(buffer.Entry(0), 3), "xyz");
}

INSTANTIATE_TEST_SUITE_P(EntrySizes, SlotOrderBufferTest,
                         ::testing::Values(1, 26, 126, 127, 512));

}  // namespace
}  // namespace rocksdb_cuckoo
