// Helpers shared by the DB-level tests.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "rocksdb/merge_operator.h"

namespace rocksdb_cuckoo::testing {

// A file's whole contents ("" if it cannot be read).
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

// Replaces a file's contents; false if they could not be written.
inline bool WriteWholeFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return out.good();
}

// Joins merge operands with ','; merge operands must survive in the files.
class CommaAppendOperator : public ROCKSDB_NAMESPACE::AssociativeMergeOperator {
 public:
  static const char* kClassName() { return "CommaAppendOperator"; }
  const char* Name() const override { return kClassName(); }
  bool Merge(const ROCKSDB_NAMESPACE::Slice& /*key*/,
             const ROCKSDB_NAMESPACE::Slice* existing_value,
             const ROCKSDB_NAMESPACE::Slice& value, std::string* new_value,
             ROCKSDB_NAMESPACE::Logger* /*logger*/) const override {
    new_value->clear();
    if (existing_value != nullptr) {
      new_value->assign(existing_value->data(), existing_value->size());
      new_value->push_back(',');
    }
    new_value->append(value.data(), value.size());
    return true;
  }
};

// "key" and i zero-padded to `digits`: such keys sort as their numbers.
inline std::string NumberedKey(int i, int digits) {
  std::string number = std::to_string(i);
  if (number.size() < static_cast<size_t>(digits)) {
    number.insert(0, static_cast<size_t>(digits) - number.size(), '0');
  }
  return "key" + number;
}

// A key or value for a failure message: printable bytes as they are, the
// rest as \xNN, cut after `limit` bytes.
inline std::string Printable(const std::string& s, size_t limit = 48) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > limit) out += "...(" + std::to_string(s.size()) + " bytes)";
  return "\"" + out + "\"";
}

// Whether a file name is a table file's (RocksDB names them <number>.sst).
inline bool IsTableFile(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0;
}

// The last 8 bytes of every file CuckooHashTable writes, of every file
// BlockBasedTable writes, and a file's.
constexpr uint64_t kCuckooHashTableMagic = 0x73686f6f6b637563ull;
constexpr uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
inline uint64_t FileMagic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(-8, std::ios::end);
  unsigned char b[8] = {};
  in.read(reinterpret_cast<char*>(b), 8);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

}  // namespace rocksdb_cuckoo::testing
