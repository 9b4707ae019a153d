// Writes the fuzzer's seed corpus: small, real CuckooHashTable files built by
// the real builder through the factory, one per layout the reader handles
// (key order, slot order, identity hashing, stash, range tombstones, every
// entry type, empty, each checksum). Generated, not kept in git, so seeds
// follow the format when it changes.
//
// Usage: cuckoo_fuzz_make_seeds OUTPUT_DIR

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/table_properties_collector.h"
#include "file/writable_file_writer.h"
#include "options/cf_options.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"
#include "table/cuckoo_hash_table.h"
#include "table/cuckoo_hash_table_format.h"
#include "table/sst_file_writer_collectors.h"
#include "table/standalone_table_compat.h"
#include "table/table_builder.h"
#include "util/coding.h"

namespace {

using namespace ROCKSDB_NAMESPACE;
using rocksdb_cuckoo::CuckooHashTableOptions;

struct Entry {
  std::string user_key;
  SequenceNumber seq;
  ValueType type;
  std::string value;  // the end key for a range deletion
};

std::string BigEndian64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; i--, v >>= 8) s[i] = static_cast<char>(v & 0xff);
  return s;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

// Builds one file from `entries` (sorted here) with the given options.
// external_seqno > 0: written like SstFileWriter does, with the properties
// that make the reader apply a global sequence number (file ingestion).
Status Build(const std::string& path, const CuckooHashTableOptions& table,
             std::vector<Entry> entries, SequenceNumber external_seqno = 0) {
  const InternalKeyComparator icomp(BytewiseComparator());
  std::vector<std::pair<std::string, std::string>> kvs;
  for (const Entry& e : entries) {
    std::string ikey;
    AppendInternalKey(&ikey, ParsedInternalKey(e.user_key, e.seq, e.type));
    kvs.emplace_back(std::move(ikey), e.value);
  }
  std::sort(kvs.begin(), kvs.end(), [&icomp](const auto& a, const auto& b) {
    return icomp.Compare(a.first, b.first) < 0;
  });
  Options options;
  options.table_factory = rocksdb_cuckoo::NewCuckooHashTableFactory(table);
  const ImmutableOptions ioptions(options);
  const MutableCFOptions moptions(options);
  rocksdb_cuckoo::StandaloneBuildContext context;
  if (external_seqno > 0) {
    // Written as 0 and set in place at ingestion, as RocksDB does.
    context.collectors.emplace_back(
        new SstFileWriterPropertiesCollectorFactory(2, 0));
  }

  std::unique_ptr<FSWritableFile> file;
  Status s = ioptions.fs->NewWritableFile(path, FileOptions(), &file, nullptr);
  if (!s.ok()) return s;
  WritableFileWriter writer(std::move(file), path, FileOptions());
  const TableBuilderOptions tbo =
      context.BuilderOptions(ioptions, moptions, icomp);
  std::unique_ptr<TableBuilder> builder(
      options.table_factory->NewTableBuilder(tbo, &writer));
  for (const auto& kv : kvs) builder->Add(kv.first, kv.second);
  s = builder->Finish();
  if (!s.ok()) return s;
  s = rocksdb_cuckoo::CloseWrittenFile(&writer);
  if (!s.ok() || external_seqno == 0) return s;
  // The property's value directly follows its name in the block (whose
  // "rocksdb." prefix the block may share with the key before).
  std::string contents = ReadFile(path);
  const std::string name =
      ExternalSstFilePropertyNames::kGlobalSeqno.substr(sizeof("rocksdb.") - 1);
  const size_t at = contents.rfind(name);
  if (at == std::string::npos || at + name.size() + 8 > contents.size()) {
    return Status::Corruption("global seqno property not found");
  }
  EncodeFixed64(&contents[at + name.size()], external_seqno);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  return out.good() ? Status::OK() : Status::IOError(path);
}

// The layout block of a file written by Build.
rocksdb_cuckoo::Layout LayoutOf(const std::string& contents) {
  rocksdb_cuckoo::Layout layout;
  layout.DecodeFromFile(contents).PermitUncheckedError();
  return layout;
}

// `n` fixed-size Puts: 8-byte keys (big-endian integers, so identity
// hashing spreads them) and 8-byte values; the slot-ordered shape.
std::vector<Entry> FixedSize(int n, uint64_t stride = 1) {
  std::vector<Entry> entries;
  for (int i = 0; i < n; i++) {
    entries.push_back({BigEndian64(1000 + i * stride), 100 + uint64_t(i),
                       kTypeValue, "v" + std::to_string(1000000 + i)});
  }
  return entries;
}

// The entries as a bottommost or ingested file holds them: at sequence 0,
// which lets slot entries leave their trailers out.
std::vector<Entry> AtSequenceZero(std::vector<Entry> entries) {
  for (Entry& e : entries) e.seq = 0;
  return entries;
}

// Variable sizes, several versions of some keys, every point entry type.
std::vector<Entry> Mixed(int n) {
  std::vector<Entry> entries;
  for (int i = 0; i < n; i++) {
    const std::string key = "key" + std::to_string(i * 7);
    const SequenceNumber seq = 1000 + i * 4;
    switch (i % 6) {
      case 0:
        entries.push_back(
            {key, seq, kTypeValue, std::string(i % 13, 'a' + i % 26)});
        entries.push_back({key, seq - 2, kTypeValue, "older"});
        break;
      case 1:
        entries.push_back({key, seq, kTypeDeletion, ""});
        entries.push_back({key, seq - 1, kTypeValue, "deleted"});
        break;
      case 2:
        entries.push_back({key, seq, kTypeMerge, "m2"});
        entries.push_back({key, seq - 1, kTypeMerge, "m1"});
        entries.push_back({key, seq - 2, kTypeValue, "base"});
        break;
      case 3:
        entries.push_back({key, seq, kTypeSingleDeletion, ""});
        break;
      case 4:
        entries.push_back({key, seq, kTypeMerge, "lonely"});
        break;
      default:
        entries.push_back({key, seq, kTypeValue, "value-" + key});
    }
  }
  return entries;
}

std::vector<Entry> WithRangeDeletions(std::vector<Entry> entries) {
  entries.push_back({"key1", 5000, kTypeRangeDeletion, "key3"});
  entries.push_back({"key2", 4000, kTypeRangeDeletion, "key5"});
  entries.push_back({"key70", 10, kTypeRangeDeletion, "key9"});
  entries.push_back({"a", 6000, kTypeRangeDeletion, "b"});
  return entries;
}

CuckooHashTableOptions With(ChecksumType checksum, bool identity = false,
                            bool slot_ordered = true) {
  CuckooHashTableOptions o;
  o.checksum = checksum;
  o.identity_as_first_hash = identity;
  o.slot_ordered = slot_ordered;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  struct Seed {
    std::string name;
    CuckooHashTableOptions options;
    std::vector<Entry> entries;
    bool want_stash = false;
    bool want_slot_order = false;
    SequenceNumber external_seqno = 0;
  };
  std::vector<Seed> seeds = {
      {"key_order_mixed_xxh3", With(kXXH3), Mixed(30)},
      {"key_order_mixed_crc32c", With(kCRC32c), Mixed(24)},
      {"key_order_mixed_none", With(kNoChecksum), Mixed(24)},
      {"slot_order_xxh3", With(kXXH3), FixedSize(40), false, true},
      {"slot_order_crc32c", With(kCRC32c), FixedSize(40), false, true},
      {"slot_order_none", With(kNoChecksum), FixedSize(40), false, true},
      {"slot_order_no_trailers_xxh3", With(kXXH3),
       AtSequenceZero(FixedSize(40)), false, true},
      {"slot_order_no_trailers_none", With(kNoChecksum),
       AtSequenceZero(FixedSize(40)), false, true},
      {"fixed_key_order_none", With(kNoChecksum, false, false), FixedSize(40)},
      {"identity_slot_order_none", With(kNoChecksum, true), FixedSize(48, 3),
       false, true},
      {"identity_slot_order_xxh3", With(kXXH3, true), FixedSize(48), false,
       true},
      {"identity_key_order_none", With(kNoChecksum, true), Mixed(18)},
      {"range_dels_none", With(kNoChecksum), WithRangeDeletions(Mixed(12))},
      {"range_dels_xxh3", With(kXXH3), WithRangeDeletions(FixedSize(10))},
      {"range_dels_only_none", With(kNoChecksum), WithRangeDeletions({})},
      {"empty_none", With(kNoChecksum), {}},
      {"empty_crc32c", With(kCRC32c), {}},
      {"single_entry_none", With(kNoChecksum), FixedSize(1), false, true},
      {"external_seqno_none", With(kNoChecksum), WithRangeDeletions(Mixed(8)),
       false, false, 7777},
      {"external_seqno_slot_order_xxh3", With(kXXH3),
       AtSequenceZero(FixedSize(20)), false, true, 8888},
  };
  // Stash: a nearly full table and no eviction chains leave keys homeless.
  // Search the key count for files that really have one.
  for (bool slot_order : {true, false}) {
    for (int n = 20; n < 400; n++) {
      CuckooHashTableOptions o = With(kNoChecksum, false, slot_order);
      o.hash_table_ratio = 0.99;
      o.max_search_depth = 1;
      const std::string path = dir + "/probe.sst";
      if (!Build(path, o, FixedSize(n)).ok()) continue;
      const std::string contents = ReadFile(path);
      std::remove(path.c_str());
      if (LayoutOf(contents).num_stash >= 2) {
        seeds.push_back({std::string("stash_") +
                             (slot_order ? "slot_order" : "key_order") +
                             "_none",
                         o, FixedSize(n), true, slot_order});
        break;
      }
    }
  }
  int failures = 0;
  for (const Seed& seed : seeds) {
    const std::string path = dir + "/" + seed.name + ".sst";
    Status s = Build(path, seed.options, seed.entries, seed.external_seqno);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", seed.name.c_str(), s.ToString().c_str());
      failures++;
      continue;
    }
    const std::string contents = ReadFile(path);
    const rocksdb_cuckoo::Layout layout = LayoutOf(contents);
    std::printf(
        "%-28s %6zu bytes  entries=%llu buckets=%llu stash=%llu "
        "range_dels=%llu slot_entry_size=%llu\n",
        seed.name.c_str(), contents.size(),
        static_cast<unsigned long long>(layout.num_entries),
        static_cast<unsigned long long>(layout.num_buckets),
        static_cast<unsigned long long>(layout.num_stash),
        static_cast<unsigned long long>(layout.num_range_dels),
        static_cast<unsigned long long>(layout.slot_entry_size));
    // Each seed must show the layout it is named after.
    if ((seed.want_stash && layout.num_stash == 0) ||
        (seed.want_slot_order && layout.slot_entry_size == 0)) {
      std::fprintf(stderr, "%s: not the intended layout\n", seed.name.c_str());
      failures++;
    }
  }
  if (seeds.size() < 20) {
    std::fprintf(stderr, "no key count gave a stash\n");
    failures++;
  }
  return failures == 0 ? 0 : 1;
}
