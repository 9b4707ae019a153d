#include "table/cuckoo_hash_table_builder.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "db/dbformat.h"
#include "file/writable_file_writer.h"
#include "rocksdb/comparator.h"
#include "rocksdb/merge_operator.h"
#include "table/cuckoo_hash_table_checks.h"
#include "table/cuckoo_placement.h"
#include "table/key_location.h"
#include "table/meta_blocks.h"
#include "util/prefetch_range.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

// A stash longer than this makes misses scan too much: grow the bucket array
// (by 1/16 each time) and place again, at most kMaxGrowRounds times.
constexpr size_t kMaxStashBeforeGrowing = 32;
constexpr int kMaxGrowRounds = 8;
// Slot ordering keeps the data region in memory until Finish(); beyond this
// a file is written in key order instead.
constexpr uint64_t kMaxSlotOrderedBytes = uint64_t{1} << 30;
// Every empty slot of a slot-ordered file takes an entry's size (a tenth of
// the slots at load 0.9, more after rounding up the bucket count): for
// entries larger than this, that waste outweighs the one cache line a
// lookup saves, so they are written in key order.
constexpr uint64_t kMaxSlotEntryBytes = 512;
// The seed is stored in the file, so it can change without a format bump.
constexpr uint64_t kHashSeed = 0;
// Data goes to the file in pieces just past this: more than the file
// writer's buffer holds by default, so it writes them as they are instead
// of copying them again, and each costs one call, not one per entry.
constexpr uint64_t kWriteChunkBytes = uint64_t{1} << 20;

std::string ToString(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.4f", v);
  return buf;
}

}  // namespace

CuckooHashTableBuilder::CuckooHashTableBuilder(
    const TableBuilderOptions& tbo, const CuckooHashTableOptions& options,
    WritableFileWriter* file)
    : ioptions_(tbo.ioptions),
      options_(options),
      file_(file),
      slot_ordered_(options.slot_ordered),
      slots_per_key_(1 / options.hash_table_ratio),
      region_checksum_(new ChecksumStream(options.checksum)),
      chunk_checksums_(options.checksum, kChecksumChunkSize) {
  properties_.num_data_blocks = 1;
  properties_.format_version = kFormatVersion;
  properties_.column_family_id = tbo.column_family_id;
  properties_.column_family_name = tbo.column_family_name;
  properties_.db_id = tbo.db_id;
  properties_.db_session_id = tbo.db_session_id;
  properties_.db_host_id = ioptions_.db_host_id;
  if (!ReifyDbHostIdProperty(ioptions_.env, &properties_.db_host_id).ok()) {
    properties_.db_host_id.clear();
  }
  properties_.orig_file_number = tbo.cur_file_num;
  properties_.comparator_name = ioptions_.user_comparator->Name();
  properties_.merge_operator_name = ioptions_.merge_operator != nullptr
                                        ? ioptions_.merge_operator->Name()
                                        : "nullptr";
  properties_.prefix_extractor_name =
      tbo.moptions.prefix_extractor != nullptr
          ? tbo.moptions.prefix_extractor->AsString()
          : "nullptr";
  properties_.compression_name = "NoCompression";
  properties_.oldest_key_time = tbo.oldest_key_time;
  properties_.file_creation_time = tbo.file_creation_time;

  SetVersionSpecificProperties(tbo, &properties_);
  std::string collector_names;
  CreatePropertyCollectors(tbo, &collectors_, &collector_names);
  properties_.property_collectors_names = "[" + collector_names + "]";

  layout_.checksum = options_.checksum;
  layout_.identity_as_first_hash = options_.identity_as_first_hash;
  layout_.hash_seed = kHashSeed;
  status_ = CheckComparator(ioptions_.user_comparator);
  if (status_.ok()) status_ = CheckOptions(options_);
  if (status_.ok()) status_ = PrepareWriteOptions(tbo, &io_options_);
  StartBulkRegion();  // the data region
}

void CuckooHashTableBuilder::Append(const Slice& bytes) {
  if (!io_status_.ok()) return;
  io_status_ = AppendToFile(file_, io_options_, bytes);
  if (!io_status_.ok()) {
    status_ = io_status_;
    return;
  }
  // Each byte is hashed once, the way a reader will check its region.
  if (bulk_region_) {
    chunk_checksums_.Update(bytes.data(), bytes.size());
  } else {
    region_checksum_->Update(bytes.data(), bytes.size());
  }
  offset_ += bytes.size();
}

void CuckooHashTableBuilder::StartBulkRegion() {
  bulk_region_ = layout_.chunked();
}

uint64_t CuckooHashTableBuilder::EndRegion() {
  uint64_t checksum;
  if (bulk_region_) {
    const size_t start = chunk_sums_.size();
    chunk_checksums_.Finish(&chunk_sums_);
    checksum = ComputeChecksum(options_.checksum, chunk_sums_.data() + start,
                               chunk_sums_.size() - start);
  } else {
    checksum = region_checksum_->Digest();
    region_checksum_.reset(new ChecksumStream(options_.checksum));
  }
  bulk_region_ = false;
  return checksum;
}

// Counts exactly as BlockBasedTable does, range tombstones included, because
// RocksDB reads these numbers back: it divides by raw_key_size +
// raw_value_size whenever num_entries exceeds num_deletions (so a file of
// tombstones alone must have nonzero raw sizes), and 9.x checks a
// compaction's input count against num_entries - num_range_deletions.
void CuckooHashTableBuilder::CountInProperties(ValueType type, const Slice& key,
                                               const Slice& value) {
  properties_.num_entries++;
  properties_.raw_key_size += key.size();
  properties_.raw_value_size += value.size();
  if (type == kTypeDeletion || type == kTypeSingleDeletion ||
      type == kTypeDeletionWithTimestamp) {
    properties_.num_deletions++;
  } else if (type == kTypeRangeDeletion) {
    properties_.num_deletions++;
    properties_.num_range_deletions++;
  } else if (type == kTypeMerge) {
    properties_.num_merge_operands++;
  }
}

void CuckooHashTableBuilder::Add(const Slice& key, const Slice& value) {
  if (!status_.ok() || closed_) return;
  ParsedInternalKey parsed;
  status_ = ParseInternalKey(key, &parsed, /*log_err_key=*/false);
  if (!status_.ok()) return;
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX ||
      data_bytes_ > kMaxEntryOffset) {
    status_ = Status::NotSupported(
        "CuckooHashTable: entry or file too large (keys and values < 4 GiB, "
        "data < 256 TiB)");
    return;
  }
  if (parsed.type == kTypeRangeDeletion) {
    AddRangeTombstone(key, value);
  } else {
    AddEntry(parsed.user_key, key, value);
  }
  if (!status_.ok()) return;
  CountInProperties(parsed.type, key, value);
  CountSequence(parsed.sequence, &properties_);
  NotifyCollectTableCollectorsOnAdd(key, value, data_bytes_, collectors_,
                                    ioptions_.logger);
}

bool CuckooHashTableBuilder::NeedCompact() const {
  for (const auto& collector : collectors_) {
    if (collector->NeedCompact()) return true;
  }
  return false;
}

void CuckooHashTableBuilder::SetTimeProperties(
    std::string encoded_seqno_to_time_mapping, uint64_t oldest_ancestor_time) {
  properties_.seqno_to_time_mapping = std::move(encoded_seqno_to_time_mapping);
  properties_.creation_time = oldest_ancestor_time;
}

void CuckooHashTableBuilder::AddRangeTombstone(const Slice& key,
                                               const Slice& value) {
  // Flushes add tombstones after the point entries, out of key order, so
  // they go to a region of their own (RocksDB fragments them on open).
  EncodeEntryHeader(static_cast<uint32_t>(key.size()),
                    static_cast<uint32_t>(value.size()), &range_dels_);
  range_dels_.append(key.data(), key.size());
  range_dels_.append(value.data(), value.size());
}

void CuckooHashTableBuilder::AddEntry(const Slice& user_key, const Slice& key,
                                      const Slice& value) {
  const bool new_user_key =
      entry_offsets_.empty() || user_key != Slice(last_user_key_);
  scratch_.clear();
  EncodeEntryHeader(static_cast<uint32_t>(key.size()),
                    static_cast<uint32_t>(value.size()), &scratch_);
  const uint64_t entry_size = scratch_.size() + key.size() + value.size();
  if (slot_ordered_ &&
      (!new_user_key ||
       (entry_offsets_.size() > 0 &&
        (entry_size != slot_entry_size_ || key.size() != slot_key_size_)) ||
       entry_size > kMaxSlotEntryBytes ||
       pending_.bytes() + entry_size > kMaxSlotOrderedBytes)) {
    StopSlotOrdering();
  }
  slot_entry_size_ = entry_size;
  slot_key_size_ = key.size();
  slot_value_size_ = value.size();
  plain_trailers_ = plain_trailers_ && ExtractInternalKeyFooter(key) ==
                                           PackSequenceAndType(0, kTypeValue);
  if (new_user_key && !StartUserKey(user_key)) return;
  entry_offsets_.push_back(data_bytes_);
  data_bytes_ += entry_size;
  if (slot_ordered_) {
    pending_.Add(scratch_, key, value);
  } else {
    staged_.append(scratch_);
    staged_.append(key.data(), key.size());
    staged_.append(value.data(), value.size());
    if (staged_.size() > kWriteChunkBytes) WriteStaged();
  }
}

void CuckooHashTableBuilder::WriteStaged() {
  if (staged_.empty()) return;
  Append(staged_);
  staged_.clear();
}

bool CuckooHashTableBuilder::StartUserKey(const Slice& user_key) {
  if (group_offsets_.size() == UINT32_MAX - 1) {
    status_ = Status::NotSupported(
        "CuckooHashTable: more than 2^32-2 user keys in one file");
    return false;
  }
  group_offsets_.push_back(data_bytes_);
  key_hashes_.push_back(HashKey(user_key.data(), user_key.size(), kHashSeed));
  if (options_.identity_as_first_hash) {
    identity_keys_.push_back(IdentityKey(user_key.data(), user_key.size()));
  }
  last_user_key_.assign(user_key.data(), user_key.size());
  return true;
}

void CuckooHashTableBuilder::StopSlotOrdering() {
  // pending_ is the data region so far, in key order, from file offset 0:
  // writing it out keeps every recorded offset valid.
  slot_ordered_ = false;
  pending_.WriteInOrder([this](const Slice& bytes) { Append(bytes); });
  pending_.Clear();
}

uint64_t CuckooHashTableBuilder::EstimatedFileSize() const {
  // Compactions cut their output files by it, asking after every entry.
  const uint64_t keys = group_offsets_.size();
  const uint64_t order_index = entry_offsets_.size() * 4;
  // 1/ratio slots per key, each with its share of the hash index.
  if (slot_ordered_ && keys > 0) {
    // Every slot an entry's size without varints (and trailers, while all
    // are plain), and its fingerprint.
    const uint64_t slot = slot_key_size_ + slot_value_size_ -
                          (plain_trailers_ ? 8 : 0) +
                          kFingerprintsSize / kSlotsPerBucket;
    return order_index + static_cast<uint64_t>(keys * slots_per_key_ * slot);
  }
  return data_bytes_ + order_index +
         static_cast<uint64_t>(keys * slots_per_key_ *
                               (kBucketSize / kSlotsPerBucket));
}

void CuckooHashTableBuilder::WriteOrderIndex() {
  WriteStaged();
  layout_.data_size = offset_;
  layout_.region_checksum[0] = EndRegion();
  StartBulkRegion();
  layout_.order_offset = offset_;
  layout_.order_width = offset_ <= UINT32_MAX ? 4 : 8;
  std::string chunk;
  for (size_t i = 0; i < entry_offsets_.size(); i++) {
    if (layout_.order_width == 4) {
      PutFixed32(&chunk, static_cast<uint32_t>(entry_offsets_[i]));
    } else {
      PutFixed64(&chunk, entry_offsets_[i]);
    }
    if (chunk.size() >= 1 << 16 || i + 1 == entry_offsets_.size()) {
      Append(chunk);
      chunk.clear();
    }
  }
  layout_.region_checksum[1] = EndRegion();
  // Buckets start on a cache-line boundary (the file is mapped or loaded at
  // an aligned address), so one probe is one cache line.
  const uint64_t pad = (kBucketSize - offset_ % kBucketSize) % kBucketSize;
  if (pad > 0) {
    Append(std::string(pad, '\0'));
    EndRegion();  // padding is checked to be zeros instead
  }
}

void CuckooHashTableBuilder::PlaceUserKeys() {
  const uint64_t num_keys = group_offsets_.size();
  const double capacity = kSlotsPerBucket * options_.hash_table_ratio;
  uint64_t num_buckets = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(num_keys / capacity)));
  std::vector<BucketChoice> choices(num_keys);
  for (int round = 0;; round++) {
    if (num_buckets > UINT32_MAX) {
      status_ = Status::NotSupported("CuckooHashTable: too many buckets");
      return;
    }
    for (uint64_t k = 0; k < num_keys; k++) {
      const KeyLocation kh =
          LocateKey(key_hashes_[k],
                    options_.identity_as_first_hash ? identity_keys_[k] : 0,
                    options_.identity_as_first_hash, num_buckets);
      choices[k] = {static_cast<uint32_t>(kh.bucket1),
                    static_cast<uint32_t>(kh.bucket2),
                    {kh.slot[0], kh.slot[1]}};
    }
    // Preferred slots serve only a file whose entries sit in their slots.
    placement_ = PlaceKeys(choices, static_cast<uint32_t>(num_buckets),
                           options_.max_search_depth, slot_ordered_);
    if (placement_.stash.size() <= kMaxStashBeforeGrowing ||
        round == kMaxGrowRounds) {
      break;
    }
    num_buckets += num_buckets / 16 + 1;
  }
  layout_.num_buckets = num_buckets;
}

void CuckooHashTableBuilder::WriteSlotOrderedData() {
  // Entry of slot i (stash key j: slot num_slots + j) at i * entry size;
  // empty slots are zeros. A reader can then locate a bucket's entries from
  // the hash alone and load them together with the bucket. pending_ holds
  // the entries with their varints, all of one size, which slot entries
  // drop along with the trailer when every trailer is the same.
  const uint64_t held = slot_entry_size_;
  const uint64_t value_size = slot_value_size_;
  const uint64_t header = held - slot_key_size_ - value_size;
  // An entry of no bytes at all could not mark the layout as slot ordered.
  const bool drop_trailers =
      plain_trailers_ && slot_key_size_ - 8 + value_size > 0;
  const uint64_t key_size = slot_key_size_ - (drop_trailers ? 8 : 0);
  const uint64_t size = key_size + value_size;
  const uint64_t num_slots = layout_.num_buckets * kSlotsPerBucket;
  // Gathered into the fewest whole entries past kWriteChunkBytes at a time.
  const uint64_t per_chunk = kWriteChunkBytes / size + 1;
  std::unique_ptr<char[]> chunk(new char[per_chunk * size]);
  char* at = chunk.get();
  // Each key's slot, by key, for the offsets below (Finish() keeps slots
  // below 2^32 here). At 4 bytes a key this array stays in cache while
  // slots scatter into it; two 8-byte offset arrays written here instead
  // took as long as the gather itself.
  std::vector<uint32_t> slot_of_key(group_offsets_.size());
  auto place = [&](uint32_t key, uint64_t slot) {
    if (key == Placement::kEmpty) {
      memset(at, 0, size);
    } else {
      const char* entry = pending_.Entry(key) + header;
      memcpy(at, entry, key_size);
      memcpy(at + key_size, entry + slot_key_size_, value_size);
      slot_of_key[key] = static_cast<uint32_t>(slot);
    }
    at += size;
    if (at == chunk.get() + per_chunk * size) {
      Append(Slice(chunk.get(), at - chunk.get()));
      at = chunk.get();
    }
  };
  // Slots visit the held entries in hash order, each a cache miss: fetch
  // the entries of the slots a few ahead so those misses overlap.
  constexpr uint64_t kPrefetchDistance = 32;
  for (uint64_t slot = 0; slot < num_slots; slot++) {
    if (slot + kPrefetchDistance < num_slots) {
      const uint32_t ahead = placement_.slots[slot + kPrefetchDistance];
      if (ahead != Placement::kEmpty)
        PrefetchRange(pending_.Entry(ahead), held);
    }
    place(placement_.slots[slot], slot);
  }
  for (uint64_t j = 0; j < placement_.stash.size(); j++) {
    place(placement_.stash[j], num_slots + j);
  }
  Append(Slice(chunk.get(), at - chunk.get()));
  pending_.Clear();
  // One entry per user key, so entry and user-key offsets are the same.
  for (uint64_t key = 0; key < slot_of_key.size(); key++) {
    group_offsets_[key] = entry_offsets_[key] = slot_of_key[key] * size;
  }
  layout_.slot_entry_size = size;
  layout_.slot_key_size = static_cast<uint32_t>(key_size);
  layout_.keys_without_trailers = drop_trailers;
}

void CuckooHashTableBuilder::WriteHashIndex() {
  layout_.buckets_offset = offset_;
  const uint64_t num_buckets = layout_.num_buckets;
  const Placement& placement = placement_;
  const uint64_t num_keys = group_offsets_.size();
  auto fingerprint = [&](uint32_t key) {
    return FingerprintOf(key_hashes_[key]);
  };
  // Calls seat(bucket, slot, key) for every key in a bucket.
  auto for_each_seated = [&](auto seat) {
    for (uint64_t b = 0; b < num_buckets; b++) {
      for (uint32_t s = 0; s < kSlotsPerBucket; s++) {
        const uint32_t key = placement.slots[b * kSlotsPerBucket + s];
        if (key != Placement::kEmpty) seat(b, s, key);
      }
    }
  };
  StartBulkRegion();
  if (layout_.fixed_slots()) {
    // Each bucket's fingerprints alone: a slot's index names its entry.
    std::vector<Fingerprints> fingerprints(num_buckets);  // zeros: empty
    for_each_seated([&](uint64_t b, uint32_t s, uint32_t key) {
      fingerprints[b].fingerprint[s] = fingerprint(key);
    });
    Append(Slice(reinterpret_cast<const char*>(fingerprints.data()),
                 num_buckets * kFingerprintsSize));
  } else {
    std::vector<Bucket> buckets(num_buckets);
    memset(static_cast<void*>(buckets.data()), 0, num_buckets * kBucketSize);
    for_each_seated([&](uint64_t b, uint32_t s, uint32_t key) {
      buckets[b].Set(s, fingerprint(key), group_offsets_[key]);
    });
    Append(Slice(reinterpret_cast<const char*>(buckets.data()),
                 num_buckets * kBucketSize));
  }
  layout_.region_checksum[2] = EndRegion();

  layout_.stash_offset = offset_;
  std::string stash;
  for (uint32_t key : placement.stash) {
    PutFixed64(&stash, EncodeStashSlot(fingerprint(key), group_offsets_[key]));
  }
  Append(stash);
  layout_.num_stash = placement.stash.size();
  layout_.region_checksum[3] = EndRegion();

  layout_.range_del_offset = offset_;
  Append(range_dels_);
  layout_.range_del_size = range_dels_.size();
  layout_.num_range_dels = properties_.num_range_deletions;
  layout_.region_checksum[4] = EndRegion();

  // Vouched for, a region's part at a time, by the bulk regions' checksums.
  Append(chunk_sums_);
  EndRegion();

  auto& user = properties_.user_collected_properties;
  const uint64_t slots = num_buckets * kSlotsPerBucket;
  user["rocksdb.cuckoo.format_version"] = std::to_string(kFormatVersion);
  user["rocksdb.cuckoo.num_user_keys"] = std::to_string(num_keys);
  user["rocksdb.cuckoo.num_buckets"] = std::to_string(num_buckets);
  user["rocksdb.cuckoo.slots_per_bucket"] = std::to_string(kSlotsPerBucket);
  user["rocksdb.cuckoo.utilization"] =
      ToString(static_cast<double>(num_keys - placement.stash.size()) / slots);
  user["rocksdb.cuckoo.hash_table_ratio"] = ToString(options_.hash_table_ratio);
  user["rocksdb.cuckoo.identity_as_first_hash"] =
      options_.identity_as_first_hash ? "true" : "false";
  user["rocksdb.cuckoo.keys_in_second_bucket"] =
      std::to_string(placement.in_second_bucket);
  user["rocksdb.cuckoo.stash_size"] = std::to_string(placement.stash.size());
  user["rocksdb.cuckoo.checksum"] = ChecksumName(options_.checksum);
  user["rocksdb.cuckoo.data_order"] =
      layout_.slot_entry_size > 0 ? "slot" : "key";
}

void CuckooHashTableBuilder::WriteMetaBlocks() {
  layout_.meta_offset = offset_;
  properties_.data_size = layout_.data_size;
  properties_.index_size = layout_.range_del_offset - layout_.data_size;

  PropertyBlockBuilder property_block;
  property_block.AddTableProperty(properties_);
  AddCollectedProperties(collectors_, ioptions_.logger, &property_block,
                         &properties_);
  const BlockHandle properties_handle(offset_, 0);
  Append(property_block.Finish());
  MetaIndexBuilder metaindex;
  metaindex.Add(kPropertiesBlockName,
                BlockHandle(properties_handle.offset(),
                            offset_ - properties_handle.offset()));
  const uint64_t metaindex_offset = offset_;
  layout_.properties_size = metaindex_offset - layout_.meta_offset;
  Append(metaindex.Finish());
  layout_.meta_size = offset_ - layout_.meta_offset;
  layout_.region_checksum[5] = EndRegion();
}

Status CuckooHashTableBuilder::Finish() {
  if (closed_)
    return Status::InvalidArgument("CuckooHashTable: builder closed");
  closed_ = true;
  if (!status_.ok()) return status_;

  layout_.num_entries = entry_offsets_.size();
  layout_.num_user_keys = group_offsets_.size();
  PlaceUserKeys();
  if (status_.ok() && slot_ordered_) {
    // Only a tiny hash_table_ratio gets this many slots: key order then
    // also spares the file that many empty entries.
    const uint64_t num_slots =
        layout_.num_buckets * kSlotsPerBucket + placement_.stash.size();
    if (layout_.num_entries > 0 && num_slots <= UINT32_MAX) {
      WriteSlotOrderedData();
    } else {
      StopSlotOrdering();
    }
  }
  if (status_.ok()) WriteOrderIndex();
  if (status_.ok()) WriteHashIndex();
  if (status_.ok()) WriteMetaBlocks();
  if (!status_.ok()) return status_;

  std::string tail;
  layout_.EncodeTo(&tail);
  AppendRocksDBFooter(layout_, &tail);
  Append(tail);
  return status_;
}

std::string CuckooHashTableBuilder::GetFileChecksum() const {
  return file_ != nullptr ? file_->GetFileChecksum() : kUnknownFileChecksum;
}

const char* CuckooHashTableBuilder::GetFileChecksumFuncName() const {
  return file_ != nullptr ? file_->GetFileChecksumFuncName()
                          : kUnknownFileChecksumFuncName;
}

}  // namespace rocksdb_cuckoo
