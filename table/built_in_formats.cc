#include "table/built_in_formats.h"

#include <string>

#include "table/table_reader_compat.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
// Defined in librocksdb; 7.8 declares only some of them in its headers.
extern const uint64_t kBlockBasedTableMagicNumber;
extern const uint64_t kPlainTableMagicNumber;
extern const uint64_t kLegacyPlainTableMagicNumber;
extern const uint64_t kCuckooTableMagicNumber;
}  // namespace ROCKSDB_NAMESPACE

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

Status ReadMagicNumber(RandomAccessFileReader* file,
                       const ReadOptions& read_options, uint64_t file_size,
                       uint64_t* magic) {
  if (file_size < sizeof(uint64_t)) {
    return Status::Corruption("table file too short for a magic number (" +
                              std::to_string(file_size) + " bytes)");
  }
  char scratch[sizeof(uint64_t)];
  Slice result;
  const IOStatus s =
      ReadFileRange(file, read_options, file_size - sizeof(uint64_t),
                    sizeof(uint64_t), &result, scratch);
  if (!s.ok()) return s;
  if (result.size() != sizeof(uint64_t)) {
    return Status::Corruption("table file: short read of the magic number");
  }
  *magic = DecodeFixed64(result.data());
  return Status::OK();
}

BuiltInFormat BuiltInFormatOf(uint64_t magic) {
  if (magic == kBlockBasedTableMagicNumber || IsLegacyBlockBasedMagic(magic)) {
    return BuiltInFormat::kBlockBasedTable;
  }
  if (magic == kPlainTableMagicNumber ||
      magic == kLegacyPlainTableMagicNumber) {
    return BuiltInFormat::kPlainTable;
  }
  if (magic == kCuckooTableMagicNumber) return BuiltInFormat::kCuckooTable;
  return BuiltInFormat::kNone;
}

const TableFactory* BuiltInFactoryFor(uint64_t magic) {
  // Shared by every CuckooHashTable factory and never destroyed: table
  // readers they made may outlive any one factory.
  static const TableFactory* const block_based = NewBlockBasedTableFactory();
  static const TableFactory* const plain = NewPlainTableFactory();
  static const TableFactory* const cuckoo = NewCuckooTableFactory();
  switch (BuiltInFormatOf(magic)) {
    case BuiltInFormat::kBlockBasedTable:
      return block_based;
    case BuiltInFormat::kPlainTable:
      return plain;
    case BuiltInFormat::kCuckooTable:
      return cuckoo;
    case BuiltInFormat::kNone:
      break;
  }
  return nullptr;
}

}  // namespace rocksdb_cuckoo
