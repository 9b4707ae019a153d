#include "table/pinned_file_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "file/random_access_file_reader.h"
#include "table/table_reader_compat.h"
#include "util/cpu_topology.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Cleanable;
using ROCKSDB_NAMESPACE::IOStatus;
using ROCKSDB_NAMESPACE::RandomAccessFileReader;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

namespace {
constexpr size_t kHugePageSize = size_t{2} << 20;

}  // namespace

Status PinnedFileMemory::Open(
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    const ROCKSDB_NAMESPACE::ReadOptions& read_options, bool mmap,
    PinnedFileMemory** memory) {
  std::unique_ptr<PinnedFileMemory, void (*)(PinnedFileMemory*)> m(
      new PinnedFileMemory(), [](PinnedFileMemory* p) { delete p; });
  m->size_ = file_size;
  if (!mmap) {
    // Aligned so that bucket cache lines in the file are cache lines here.
    // Files of a huge page or more get huge pages where the kernel allows
    // (THP "madvise" or "always"): random lookups into hundreds of MB then
    // miss the TLB far less, and prefetches are not dropped on TLB misses.
    const size_t align = file_size >= kHugePageSize ? kHugePageSize : 64;
    const size_t rounded =
        std::max<size_t>(align, (file_size + align - 1) / align * align);
    m->buffer_ = static_cast<char*>(aligned_alloc(align, rounded));
    if (m->buffer_ == nullptr) {
      return Status::MemoryLimit("CuckooHashTable: cannot allocate " +
                                 std::to_string(file_size) + " bytes");
    }
    if (align == kHugePageSize) {
      madvise(m->buffer_, rounded, MADV_HUGEPAGE);  // a hint; failure is fine
    }
  }
  Slice contents;
  IOStatus s = ReadFilePrefix(file.get(), read_options, file_size, &contents,
                              m->buffer_);
  if (!s.ok()) return std::move(s);
  if (contents.size() != file_size) {
    return Status::Corruption("CuckooHashTable: file truncated: read " +
                              std::to_string(contents.size()) + " of " +
                              std::to_string(file_size) + " bytes");
  }
  if (m->buffer_ != nullptr) {
    if (contents.data() != m->buffer_) {
      memcpy(m->buffer_, contents.data(), file_size);
    }
    // The buffer serves every read while the file is open, so the page
    // cache's copy would only double the table's memory. A hint: file
    // systems without a page cache refuse it, and pages not yet written
    // back stay.
    file->file()
        ->InvalidateCache(0, static_cast<size_t>(file_size))
        .PermitUncheckedError();
  }
  m->data_ = m->buffer_ != nullptr ? m->buffer_ : contents.data();
  m->file_ = std::move(file);
  *memory = m.release();
  return Status::OK();
}

PinnedFileMemory::~PinnedFileMemory() { free(buffer_); }

void PinnedFileMemory::PinTo(Cleanable* cleanable) {
  // By CPU, as every striped structure here (util/striped_counters.h): pins
  // on different cores do not share a cache line.
  Stripe* stripe = &stripes_[CurrentCpu() % kStripes];
  // The owner's reference keeps the stripe above zero: no ordering needed.
  stripe->refs.fetch_add(1, std::memory_order_relaxed);
  cleanable->RegisterCleanup(&PinnedFileMemory::Unpin, this, stripe);
}

void PinnedFileMemory::Unpin(void* memory, void* stripe) {
  static_cast<PinnedFileMemory*>(memory)->Release(static_cast<Stripe*>(stripe));
}

void PinnedFileMemory::Close() {
  for (Stripe& stripe : stripes_) Release(&stripe);
}

void PinnedFileMemory::Release(Stripe* stripe) {
  // acq_rel on both counters: every reader's use of the memory happens
  // before its release, and the freeing thread acquires all of them.
  if (stripe->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (undrained_stripes_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete this;
  }
}

}  // namespace rocksdb_cuckoo
