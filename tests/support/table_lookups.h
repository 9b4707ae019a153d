// Point lookups straight through a TableReader, as a DB hands them to one
// file (Get, and MultiGet with one batch), each returning everything the
// caller could observe, so that tests and the fuzzer can compare the two.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/system_clock.h"
#include "table/get_context.h"
#include "table/multiget_context.h"
#include "table/standalone_table_compat.h"
#include "table/table_reader.h"

namespace rocksdb_cuckoo::testing {

using namespace ROCKSDB_NAMESPACE;

// An internal key; the default type is the one a lookup key carries.
inline std::string InternalKeyOf(const Slice& user_key, SequenceNumber seq,
                                 ValueType type = kValueTypeForSeek) {
  std::string key;
  AppendInternalKey(&key, ParsedInternalKey(user_key, seq, type));
  return key;
}

struct LookupResult {
  GetContext::GetState state;
  std::string value;
  std::vector<std::string> operands;  // merge operands, newest first
  bool pinned = false;
  Status status;
};

// Differences a caller could see between two answers to the same lookup,
// empty when there are none. Whether the value is pinned may differ.
inline std::string LookupDifference(const LookupResult& a,
                                    const LookupResult& b) {
  if (a.status.code() != b.status.code() ||
      a.status.subcode() != b.status.subcode()) {
    return "status " + a.status.ToString() + " vs " + b.status.ToString();
  }
  if (a.state != b.state) {
    return "state " + std::to_string(a.state) + " vs " +
           std::to_string(b.state);
  }
  if (a.value != b.value)
    return "value \"" + a.value + "\" vs \"" + b.value + "\"";
  if (a.operands != b.operands) return "merge operands";
  return std::string();
}

// One TableReader::Get of `user_key` at `snapshot`. `keep` (when not null)
// takes the value found, which may stay pinned to the file.
inline LookupResult GetFromTable(TableReader* reader,
                                 const MergeOperator* merge_operator,
                                 const Slice& user_key, SequenceNumber snapshot,
                                 const ReadOptions& read_options,
                                 PinnableSlice* keep = nullptr) {
  LookupResult r;
  PinnableSlice value;
  MergeContext merge_context;
  SequenceNumber max_covering_tombstone_seq = 0;
  GetContext ctx(BytewiseComparator(), merge_operator, nullptr, nullptr,
                 GetContext::kNotFound, user_key, &value, nullptr, nullptr,
                 &merge_context, /*do_merge=*/true, &max_covering_tombstone_seq,
                 SystemClock::Default().get());
  r.status = reader->Get(read_options, InternalKeyOf(user_key, snapshot), &ctx,
                         nullptr);
  r.state = ctx.State();
  r.value = value.ToString();
  r.pinned = value.IsPinned();
  for (const Slice& op : merge_context.GetOperands()) {
    r.operands.push_back(op.ToString());
  }
  if (keep != nullptr && r.state == GetContext::kFound) {
    *keep = std::move(value);
  }
  return r;
}

// One TableReader::MultiGet of up to MultiGetContext::MAX_BATCH_SIZE keys
// at `snapshot`; a result per key, in order.
inline std::vector<LookupResult> MultiGetFromTable(
    TableReader* reader, const MergeOperator* merge_operator,
    const std::vector<std::string>& user_keys, SequenceNumber snapshot,
    const ReadOptions& read_options) {
  const size_t n = user_keys.size();
  std::vector<PinnableSlice> values(n);
  std::vector<Status> statuses(n);
  std::vector<MergeContext> merge_contexts(n);
  std::vector<SequenceNumber> tombstone_seqs(n, 0);
  // KeyContext keeps a pointer to its key's Slice.
  const std::vector<Slice> keys(user_keys.begin(), user_keys.end());
  std::vector<KeyContext> contexts;
  contexts.reserve(n);
  for (size_t i = 0; i < n; i++) {
    AddKeyContext(&contexts, keys[i], &values[i], &statuses[i]);
  }
  autovector<KeyContext*, MultiGetContext::MAX_BATCH_SIZE> sorted;
  for (auto& c : contexts) sorted.push_back(&c);
  MultiGetContext mget(&sorted, 0, n, snapshot, read_options, nullptr, nullptr);
  std::vector<std::unique_ptr<GetContext>> get_contexts;
  for (size_t i = 0; i < n; i++) {
    get_contexts.emplace_back(
        new GetContext(BytewiseComparator(), merge_operator, nullptr, nullptr,
                       GetContext::kNotFound, *contexts[i].key, &values[i],
                       nullptr, nullptr, &merge_contexts[i], /*do_merge=*/true,
                       &tombstone_seqs[i], SystemClock::Default().get()));
    contexts[i].get_context = get_contexts[i].get();
  }
  MultiGetContext::Range range = mget.GetMultiGetRange();
  reader->MultiGet(read_options, &range, nullptr);
  std::vector<LookupResult> results(n);
  for (size_t i = 0; i < n; i++) {
    results[i].status = statuses[i];
    results[i].state = get_contexts[i]->State();
    results[i].value = values[i].ToString();
    results[i].pinned = values[i].IsPinned();
    for (const Slice& op : merge_contexts[i].GetOperands()) {
      results[i].operands.push_back(op.ToString());
    }
  }
  return results;
}

}  // namespace rocksdb_cuckoo::testing
