// Comparators for the tests: ones the parts must refuse, and one they
// accept but do not recognize.
#pragma once

#include <strings.h>

#include <algorithm>
#include <string>

#include "rocksdb/comparator.h"

namespace rocksdb_cuckoo::testing {

// Keys that differ only in case are equal: the bytes do not decide (and it
// keeps Comparator's default, that different bytes may compare equal).
class CaseInsensitiveComparator : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "CaseInsensitive"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    const int c = strncasecmp(a.data(), b.data(), std::min(a.size(), b.size()));
    if (c != 0) return c;
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  void FindShortestSeparator(std::string*,
                             const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// Bytewise keys that end in an 8-byte user-defined timestamp (RocksDB 7.8.3
// has no public comparator for them).
class WithTimestampsComparator : public ROCKSDB_NAMESPACE::Comparator {
 public:
  WithTimestampsComparator() : Comparator(/*ts_sz=*/8) {}
  const char* Name() const override { return "WithTimestamps"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    return a.compare(b);
  }
  void FindShortestSeparator(std::string*,
                             const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// A comparator the memtable does not recognize, so its sort takes the
// comparator-only path. Keys are equal only when their bytes are, or the
// factory would make a skip list instead.
class LengthFirstComparator : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "test.LengthFirst"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a.compare(b);
  }
  bool CanKeysWithDifferentByteContentsBeEqual() const override {
    return false;
  }
  void FindShortestSeparator(std::string*,
                             const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

}  // namespace rocksdb_cuckoo::testing
