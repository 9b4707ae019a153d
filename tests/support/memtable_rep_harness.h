// Drives a MemTableRep directly, the way MemTable does (Allocate, encode the
// entry, Insert*), and keeps what a test needs to check it: encoded entries,
// lookups, and a reference order from the same comparator RocksDB uses.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/lookup_key.h"
#include "db/memtable.h"
#include "memory/concurrent_arena.h"
#include "memtable/memtable_rep_compat.h"
#include "memtable/striped_hash_memtable.h"
#include "memtable/striped_hash_rep.h"
#include "rocksdb/comparator.h"
#include "rocksdb/memtablerep.h"
#include "util/coding.h"

namespace rocksdb_cuckoo::testing {

using namespace ROCKSDB_NAMESPACE;

// One memtable entry, as MemTable::Add lays it out.
struct Entry {
  std::string user_key;
  SequenceNumber seq;
  ValueType type;
  std::string value;

  // varint32 internal-key length, internal key: what the rep's comparator,
  // Contains and the iterators' key() speak.
  std::string MemtableKey() const {
    std::string out;
    std::string ikey = InternalKey();
    PutVarint32(&out, static_cast<uint32_t>(ikey.size()));
    out += ikey;
    return out;
  }
  std::string InternalKey() const {
    std::string ikey;
    AppendInternalKey(&ikey, ParsedInternalKey(user_key, seq, type));
    return ikey;
  }
  std::string Encoded() const {
    std::string out = MemtableKey();
    PutVarint32(&out, static_cast<uint32_t>(value.size()));
    out += value;
    return out;
  }
};

// Decodes what an iterator or Get hands back.
inline Entry DecodeEntry(const char* encoded) {
  uint32_t ikey_len = 0;
  const char* p = GetVarint32Ptr(encoded, encoded + 5, &ikey_len);
  ParsedInternalKey parsed;
  ParseInternalKey(Slice(p, ikey_len), &parsed, false).PermitUncheckedError();
  uint32_t value_len = 0;
  const char* v = GetVarint32Ptr(p + ikey_len, p + ikey_len + 5, &value_len);
  return Entry{parsed.user_key.ToString(), parsed.sequence, parsed.type,
               std::string(v, value_len)};
}

// The entries' memtable keys sorted by `comparator`: the order an iterator
// over them must produce.
inline std::vector<std::string> SortedByComparator(
    const MemTableRep::KeyComparator& comparator,
    const std::vector<Entry>& entries) {
  std::vector<std::string> keys;
  for (const Entry& e : entries) keys.push_back(e.MemtableKey());
  std::sort(keys.begin(), keys.end(),
            [&comparator](const std::string& a, const std::string& b) {
              return comparator(a.data(), b.data()) < 0;
            });
  return keys;
}

class RepHarness {
 public:
  explicit RepHarness(
      const StripedHashMemTableOptions& options = StripedHashMemTableOptions(),
      const Comparator* user_comparator = BytewiseComparator(),
      const SliceTransform* prefix_extractor = nullptr)
      : factory_(NewStripedHashMemTableFactory(options)),
        key_comparator_(InternalKeyComparator(user_comparator)),
        rep_(factory_->CreateMemTableRep(key_comparator_, &arena_,
                                         prefix_extractor, nullptr)) {}

  MemTableRep* rep() { return rep_.get(); }
  // What the factory makes.
  StripedHashRep* striped_rep() {
    return static_cast<StripedHashRep*>(rep_.get());
  }
  StripedHashMemTableFactory* factory() { return factory_.get(); }
  const ConcurrentArena& arena() const { return arena_; }
  const MemTableRep::KeyComparator& comparator() const {
    return key_comparator_;
  }

  // Allocates and fills the entry like MemTable::Add; returns the handle.
  KeyHandle Prepare(const Entry& entry) {
    const std::string encoded = entry.Encoded();
    char* buf = nullptr;
    KeyHandle handle = rep_->Allocate(encoded.size(), &buf);
    memcpy(buf, encoded.data(), encoded.size());
    return handle;
  }
  bool Insert(const Entry& entry) { return rep_->InsertKey(Prepare(entry)); }
  bool InsertConcurrently(const Entry& entry) {
    return rep_->InsertKeyConcurrently(Prepare(entry));
  }

  // Everything Get hands to its callback, in order, until `stop_after`
  // entries (the callback then returns false).
  std::vector<Entry> Get(const std::string& user_key, SequenceNumber seq,
                         size_t stop_after = SIZE_MAX) {
    struct State {
      std::vector<Entry> seen;
      size_t stop_after;
    } state{{}, stop_after};
    LookupKey lookup(user_key, seq);
    rep_->Get(lookup, &state, [](void* arg, const char* entry) {
      auto* s = static_cast<State*>(arg);
      s->seen.push_back(DecodeEntry(entry));
      return s->seen.size() < s->stop_after;
    });
    return state.seen;
  }

  // One key of a MultiGet batch: Get's arguments.
  struct Lookup {
    std::string user_key;
    SequenceNumber seq;
    size_t stop_after = SIZE_MAX;
  };
  // `lookups` as one StripedHashRep::MultiGetEntries batch: what each
  // lookup's callback was handed, in order, stopping as Get does. *status
  // gets what the batch returned.
  std::vector<std::vector<Entry>> MultiGet(
      const std::vector<Lookup>& lookups, Status* status,
      bool detect_key_out_of_order = false,
      const EntryValidator& validate_entry = nullptr,
      bool allow_data_in_errors = false) {
    struct State {
      std::vector<Entry> seen;
      size_t stop_after;
    };
    std::vector<std::unique_ptr<LookupKey>> lookup_keys;
    std::vector<const char*> keys;
    std::vector<State> states;
    for (const Lookup& lookup : lookups) {
      lookup_keys.push_back(
          std::make_unique<LookupKey>(lookup.user_key, lookup.seq));
      keys.push_back(lookup_keys.back()->memtable_key().data());
      states.push_back({{}, lookup.stop_after});
    }
    std::vector<void*> args;
    for (State& state : states) args.push_back(&state);
    *status = striped_rep()->MultiGetEntries(
        keys.size(), keys.data(), args.data(),
        [](void* arg, const char* entry) {
          auto* s = static_cast<State*>(arg);
          s->seen.push_back(DecodeEntry(entry));
          return s->seen.size() < s->stop_after;
        },
        allow_data_in_errors, detect_key_out_of_order, validate_entry);
    std::vector<std::vector<Entry>> seen;
    for (State& state : states) seen.push_back(std::move(state.seen));
    return seen;
  }

  // Memtable keys sorted by the rep's own comparator: the order an iterator
  // must produce.
  std::vector<std::string> SortedMemtableKeys(
      const std::vector<Entry>& entries) const {
    return SortedByComparator(key_comparator_, entries);
  }

 private:
  std::shared_ptr<StripedHashMemTableFactory> factory_;
  MemTable::KeyComparator key_comparator_;
  ConcurrentArena arena_;
  std::unique_ptr<MemTableRep> rep_;
};

// The memtable key at an iterator position (prefix + internal key).
inline std::string MemtableKeyAt(const char* entry) {
  uint32_t ikey_len = 0;
  const char* p = GetVarint32Ptr(entry, entry + 5, &ikey_len);
  return std::string(entry, static_cast<size_t>(p - entry) + ikey_len);
}

}  // namespace rocksdb_cuckoo::testing
