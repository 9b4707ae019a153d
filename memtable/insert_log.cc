#include "memtable/insert_log.h"

#include <unistd.h>

#include <algorithm>

namespace rocksdb_cuckoo {

namespace {

// The shards' memory may reach twice the limit's entries (a vector doubles).
constexpr size_t kMemoryPerLimitEntry = 2 * sizeof(HashNode*);

}  // namespace

InsertLog::InsertLog(size_t num_shards) : num_shards_(num_shards) {
  if (num_shards_ == 0) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    num_shards_ = static_cast<size_t>(std::clamp(cpus, 1L, 1024L));
  }
}

void InsertLog::Record(HashNode* node, int cpu) {
  // Sequentially consistent, as is the link before it and Restart's store:
  // an insert either sees the log on or linked before Restart (so the
  // rebuild's scan of the index finds it).
  if (!on_.load(std::memory_order_seq_cst)) return;
  Shard& shard = shards_[static_cast<size_t>(cpu) % num_shards_];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.nodes.size() >= limit_.load(std::memory_order_relaxed)) {
    on_.store(false, std::memory_order_relaxed);
    return;
  }
  const size_t capacity = shard.nodes.capacity();
  shard.nodes.push_back(node);
  if (shard.nodes.capacity() != capacity) {
    const size_t grown =
        (shard.nodes.capacity() - capacity) * sizeof(HashNode*);
    // Shards may each hold the limit, but not all together (with room for
    // the vectors' growth): the memory stays bounded by the limit.
    if (bytes_.fetch_add(grown, std::memory_order_relaxed) + grown >
        kMemoryPerLimitEntry * limit_.load(std::memory_order_relaxed)) {
      on_.store(false, std::memory_order_relaxed);
    }
  }
}

void InsertLog::Restart(size_t limit) {
  if (shards_ == nullptr) {
    // Written before on_ turns on; Record reads it only after seeing on_.
    shards_ = std::make_unique<Shard[]>(num_shards_);
  }
  Clear(/*release=*/false);
  limit_.store(limit, std::memory_order_relaxed);
  on_.store(true, std::memory_order_seq_cst);
  // Pairs with the inserts' sequentially consistent link and load of on_:
  // the caller's scan of the index after this sees every entry whose insert
  // found the log off.
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool InsertLog::Take(std::vector<HashNode*>* out) {
  if (shards_ == nullptr) return false;
  const size_t before = out->size();
  for (size_t i = 0; i < num_shards_; ++i) {
    Shard& shard = shards_[i];
    std::lock_guard<std::mutex> lock(shard.mu);
    out->insert(out->end(), shard.nodes.begin(), shard.nodes.end());
    shard.nodes.clear();
  }
  // Only Restart turns the log on: off now means off at some point since.
  return on_.load(std::memory_order_seq_cst) &&
         out->size() - before <= limit_.load(std::memory_order_relaxed);
}

void InsertLog::Stop() {
  on_.store(false, std::memory_order_seq_cst);
  if (shards_ != nullptr) Clear(/*release=*/true);
}

void InsertLog::Clear(bool release) {
  for (size_t i = 0; i < num_shards_; ++i) {
    Shard& shard = shards_[i];
    std::lock_guard<std::mutex> lock(shard.mu);
    shard.nodes.clear();
    if (release) {
      bytes_.fetch_sub(shard.nodes.capacity() * sizeof(HashNode*),
                       std::memory_order_relaxed);
      std::vector<HashNode*>().swap(shard.nodes);
    }
  }
}

}  // namespace rocksdb_cuckoo
