// The user keys inserted into a striped_hash memtable since its sorted view
// was last renewed (the first entry of each), so that renewing the view
// sorts only those and merges them in, instead of sorting the whole
// memtable again. New versions of keys the view holds are not logged: the
// view finds them from the heads they superseded.
//
// Off until a view is first built (a memtable that is only written and
// looked up never pays for it), and off again once it holds its limit of
// entries (a memtable written much between iterators): the view is then
// rebuilt from the index, which also restarts the log.
//
// The index records a key's first entry after linking it and before
// counting the key, so the keys counted when a renewal starts were all
// logged, unless the log was off meanwhile (Take says so). Records go to
// per-CPU shards: writers on different CPUs never share a lock or a cache
// line.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "memtable/hash_node.h"

namespace rocksdb_cuckoo {

class InsertLog {
 public:
  // One shard per configured CPU unless told otherwise.
  explicit InsertLog(size_t num_shards = 0);

  // Logs `node` if the log is on. The caller linked node into the index
  // with a sequentially consistent operation (see Restart). Safe from any
  // number of threads, and at the same time as the calls below.
  void Record(HashNode* node, int cpu);

  // Restart, Take and Stop: one at a time (the memtable calls them under
  // its view mutex), since the first Restart makes the shards that the
  // other two read without a lock.

  // Empties the log and turns it on, holding at most `limit` entries: a
  // shard that reaches it, or shards whose memory together passes twice
  // its size, turn the log off, and Take refuses more. (Each shard may hold
  // the whole limit, so that one writer gets all of it.) An insert that
  // found the log off had linked its entry before this call: a scan of the
  // index after it sees that entry.
  void Restart(size_t limit);

  // Moves the entries logged since the last Take or Restart to the end of
  // *out. False if the log was off at any time since Restart (some entries
  // may be missing) or they are more than the limit; the caller then
  // rebuilds from the index.
  bool Take(std::vector<HashNode*>* out);

  // Turns the log off and frees its memory.
  void Stop();

  // Memory held for entries (taken ones included: shards keep capacity).
  size_t MemoryUsage() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  struct alignas(64) Shard {
    std::mutex mu;
    std::vector<HashNode*> nodes;  // guarded by mu
  };
  // Empties every shard; `release` frees their memory too.
  // REQUIRES: shards_ set, no shard's mu held (it takes each in turn).
  void Clear(bool release);

  // Set by Restart only, cleared by Record (on overflow) and Stop.
  std::atomic<bool> on_{false};
  std::atomic<size_t> limit_{0};
  std::atomic<size_t> bytes_{0};
  size_t num_shards_ = 0;
  // Made by the first Restart before it turns on_ on, and kept: Record
  // reads it only after seeing on_.
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace rocksdb_cuckoo
