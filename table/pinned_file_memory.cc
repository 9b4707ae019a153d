#include "table/pinned_file_memory.h"

#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "file/random_access_file_reader.h"
#include "table/serving_read.h"
#include "table/table_reader_compat.h"
#include "util/cpu_topology.h"
#include "util/huge_pages.h"
#include "util/recycled_buffers.h"

namespace rocksdb_cuckoo {

using ROCKSDB_NAMESPACE::Cleanable;
using ROCKSDB_NAMESPACE::IOStatus;
using ROCKSDB_NAMESPACE::RandomAccessFileReader;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

namespace {
constexpr uint64_t kWindowSize = kHugePageBytes;

// A file's buffer starts on a cache line, so that bucket cache lines in the
// file are cache lines here, and from 2 MiB up on a huge page, so that huge
// pages (see UseHugePages) are whole windows of the file.
size_t BufferAlign(uint64_t file_size) {
  return file_size >= kHugePageBytes ? kHugePageBytes : 64;
}

Status Truncated(uint64_t offset, uint64_t size) {
  return Status::Corruption("CuckooHashTable: file truncated: cannot read " +
                            std::to_string(size) + " bytes at offset " +
                            std::to_string(offset));
}

// Reads [offset, offset + size) of `file` into `dest`: all of it, or an
// error.
Status ReadInto(RandomAccessFileReader* file,
                const ROCKSDB_NAMESPACE::ReadOptions& read_options,
                uint64_t offset, uint64_t size, char* dest) {
  Slice contents;
  IOStatus s = ReadFileRange(file, read_options, offset, size, &contents, dest);
  if (!s.ok()) return std::move(s);
  if (contents.size() != size) return Truncated(offset, size);
  if (contents.data() != dest) memcpy(dest, contents.data(), size);
  return Status::OK();
}

// Under AddressSanitizer, lets reads into a range about to be loaded pass.
// Two loads of neighbouring ranges can share an 8-byte shadow granule, and
// unpoisoning rewrites it from what it read: done at once, the later write
// can mark the other load's first bytes unreadable again. One at a time.
void MarkLoadable(char* begin, uint64_t size) {
#if defined(__SANITIZE_ADDRESS__)
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
#endif
  ASAN_UNPOISON_MEMORY_REGION(begin, size);
}

// The open file as the table's own reader reads it at each read: through
// RocksDB's I/O tracer while a trace runs (the reader's file() answers the
// tracing wrapper then), so that a trace sees the loader's reads too.
class ReadLikeOwner : public ROCKSDB_NAMESPACE::FSRandomAccessFileWrapper {
 public:
  explicit ReadLikeOwner(RandomAccessFileReader* owner)
      : FSRandomAccessFileWrapper(owner->file()), owner_(owner) {}
  IOStatus Read(uint64_t offset, size_t n,
                const ROCKSDB_NAMESPACE::IOOptions& options, Slice* result,
                char* scratch,
                ROCKSDB_NAMESPACE::IODebugContext* dbg) const override {
    return owner_->file()->Read(offset, n, options, result, scratch, dbg);
  }

 private:
  RandomAccessFileReader* const owner_;
};

// The loader's reads are background work: the rate limiter charges them
// at low priority, as it charges compaction reads.
const ROCKSDB_NAMESPACE::ReadOptions& BackgroundReadOptions() {
  static const ROCKSDB_NAMESPACE::ReadOptions options = [] {
    ROCKSDB_NAMESPACE::ReadOptions o;
    o.rate_limiter_priority = ROCKSDB_NAMESPACE::Env::IO_LOW;
    return o;
  }();
  return options;
}

}  // namespace

Status PinnedFileMemory::Open(
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    const ROCKSDB_NAMESPACE::ReadOptions& read_options, bool allow_mmap_reads,
    const ReadObservers& observers, PinnedFileMemory** memory) {
  std::unique_ptr<PinnedFileMemory, void (*)(PinnedFileMemory*)> m(
      new PinnedFileMemory(), [](PinnedFileMemory* p) { delete p; });
  m->size_ = file_size;
  bool mapped = false;
  if (allow_mmap_reads && file_size > 0) {
    // A mapped file answers a read with a pointer into its mapping; any
    // other file copies into the caller's buffer (and reading the whole
    // file into no buffer would fail, or worse).
    char probe_buffer[1];
    Slice probe;
    IOStatus s =
        ReadFileRange(file.get(), read_options, 0, 1, &probe, probe_buffer);
    if (!s.ok()) return std::move(s);
    mapped = probe.size() == 1 && probe.data() != probe_buffer;
  }
  if (mapped) {
    Slice contents;
    IOStatus s =
        ReadFileRange(file.get(), read_options, 0, file_size, &contents,
                      /*scratch=*/nullptr);
    if (!s.ok()) return std::move(s);
    if (contents.size() != file_size) return Truncated(0, file_size);
    m->data_ = contents.data();
  } else {
    // Fresh: most of a file's buffer may never be loaded, and pages nobody
    // touches cost nothing, while pooled ones would sit idle here.
    m->buffer_ = RecycledBuffers::Shared().TakeFresh(
        std::max<uint64_t>(file_size, 1), BufferAlign(file_size),
        &m->buffer_size_);
    if (m->buffer_ == nullptr) {
      return Status::MemoryLimit("CuckooHashTable: cannot allocate " +
                                 std::to_string(file_size) + " bytes");
    }
    // Under AddressSanitizer, reading a range before it is loaded fails.
    ASAN_POISON_MEMORY_REGION(m->buffer_, m->buffer_size_);
    m->data_ = m->buffer_;
    const uint64_t windows = (file_size + kWindowSize - 1) / kWindowSize;
    m->window_loaded_.reset(new std::atomic<uint64_t>[windows]);
    for (uint64_t w = 0; w < windows; w++) {
      m->window_loaded_[w].store(0, std::memory_order_relaxed);
    }
    // Does not own the open file: file_ does, and outlives it.
    m->observers_ = observers;
    m->background_file_ = std::make_unique<RandomAccessFileReader>(
        std::make_unique<ReadLikeOwner>(file.get()), file->file_name(),
        m->observers_.clock.get(), /*io_tracer=*/nullptr,
        m->observers_.statistics.get(), ROCKSDB_NAMESPACE::SST_READ_MICROS,
        /*file_read_hist=*/nullptr, m->observers_.rate_limiter.get(),
        m->observers_.listeners);
  }
  m->file_ = std::move(file);
  if (m->buffer_ != nullptr && file_size <= kWholeFileBytes) {
    Status s = m->Load(0, file_size);
    if (!s.ok()) return s;
    m->whole_file_loaded_ = true;
  }
  *memory = m.release();
  return Status::OK();
}

Status PinnedFileMemory::OpenCopy(const PinnedFileMemory& source,
                                  const ROCKSDB_NAMESPACE::ReadOptions& options,
                                  PinnedFileMemory** copy) {
  std::unique_ptr<PinnedFileMemory, void (*)(PinnedFileMemory*)> m(
      new PinnedFileMemory(), [](PinnedFileMemory* p) { delete p; });
  m->size_ = source.size_;
  m->buffer_ = RecycledBuffers::Shared().Take(
      std::max<uint64_t>(m->size_, 1), BufferAlign(m->size_), &m->buffer_size_);
  if (m->buffer_ == nullptr) {
    return Status::MemoryLimit("CuckooHashTable: cannot allocate " +
                               std::to_string(m->size_) + " bytes");
  }
  m->data_ = m->buffer_;
  // Scans read it at random places (key order over a slot-ordered file).
  AdviseHugePages(m->buffer_, m->buffer_size_);
  Status s = ReadInto(source.file_.get(), options, 0, m->size_, m->buffer_);
  if (!s.ok()) return s;
  m->loaded_bytes_.store(m->size_, std::memory_order_relaxed);
  m->whole_file_loaded_ = true;
  *copy = m.release();
  return Status::OK();
}

void PinnedFileMemory::UseHugePages(uint64_t end, uint64_t hole_begin,
                                    uint64_t hole_end) {
  if (buffer_ == nullptr || size_ < kHugePageBytes) return;
  const uint64_t windows = std::min(end, size_) / kWindowSize;
  uint64_t run = 0;  // first window of the run not advised yet
  for (uint64_t w = 0; w <= windows; w++) {
    const bool in_hole = hole_begin < hole_end && w * kWindowSize < hole_end &&
                         hole_begin < (w + 1) * kWindowSize;
    if (w < windows && !in_hole) continue;
    if (w > run) {
      AdviseHugePages(buffer_ + run * kWindowSize, (w - run) * kWindowSize);
    }
    run = w + 1;
  }
}

Status PinnedFileMemory::Load(uint64_t offset, uint64_t size) {
  return LoadFrom(file_.get(), ServingRead::Current(), offset, size);
}

Status PinnedFileMemory::LoadInBackground(uint64_t offset, uint64_t size) {
  return LoadFrom(background_file_.get(), BackgroundReadOptions(), offset,
                  size);
}

Status PinnedFileMemory::LoadFrom(
    RandomAccessFileReader* file,
    const ROCKSDB_NAMESPACE::ReadOptions& read_options, uint64_t offset,
    uint64_t size) {
  if (buffer_ == nullptr || size == 0) return Status::OK();
  if (offset > size_ || size > size_ - offset) return Truncated(offset, size);
  if (whole_file_loaded_) return Status::OK();
  MarkLoadable(buffer_ + offset, size);
  Status s = ReadInto(file, read_options, offset, size, buffer_ + offset);
  if (!s.ok()) return s;
  loaded_bytes_.fetch_add(size, std::memory_order_relaxed);
  // The page cache's copy would only double the table's memory. It holds a
  // file in folios of up to 2 MiB, and dropping part of a folio drops
  // nothing: drop each aligned window of the file once all of it is loaded.
  // A hint: file systems without a page cache refuse it, and pages not yet
  // written back stay.
  for (uint64_t w = offset / kWindowSize; w * kWindowSize < offset + size;
       w++) {
    const uint64_t window_begin = w * kWindowSize;
    const uint64_t window_size =
        std::min(size_, window_begin + kWindowSize) - window_begin;
    const uint64_t here = std::min(offset + size, window_begin + kWindowSize) -
                          std::max(offset, window_begin);
    const uint64_t before =
        window_loaded_[w].fetch_add(here, std::memory_order_relaxed);
    if (before < window_size && before + here >= window_size) {
      file_->file()
          ->InvalidateCache(static_cast<size_t>(window_begin),
                            static_cast<size_t>(window_size))
          .PermitUncheckedError();
    }
  }
  return Status::OK();
}

PinnedFileMemory::~PinnedFileMemory() {
  if (buffer_ == nullptr) return;
  if (loaded_bytes_.load(std::memory_order_relaxed) >= size_) {
    // Every page in use: the next builder or compaction takes them as
    // they are.
    RecycledBuffers::Shared().Give(buffer_, buffer_size_);
  } else {
    RecycledBuffers::Shared().Free(buffer_, buffer_size_);
  }
}

PinnedFileMemory::Stripe* PinnedFileMemory::AddPins(int64_t count) {
  // By CPU, as every striped structure here (util/striped_counters.h): pins
  // on different cores do not share a cache line.
  Stripe* stripe = &stripes_[CurrentCpu() % kStripes];
  // The owner's reference keeps the stripe above zero: no ordering needed.
  stripe->refs.fetch_add(count, std::memory_order_relaxed);
  return stripe;
}

void PinnedFileMemory::PinTo(Cleanable* cleanable) {
  cleanable->RegisterCleanup(&PinnedFileMemory::Unpin, this, AddPins(1));
}

PinnedFileMemory::Pins::Pins(PinnedFileMemory* memory, int64_t count)
    : memory_(memory), left_(count) {
  if (count > 0) stripe_ = memory->AddPins(count);
}

PinnedFileMemory::Pins::~Pins() {
  // Pins never handed out guarded no reads, and the owner's reference keeps
  // the stripe above zero: no ordering needed, and nothing can drain here.
  if (left_ > 0) stripe_->refs.fetch_sub(left_, std::memory_order_relaxed);
}

void PinnedFileMemory::Pins::PinTo(Cleanable* cleanable) {
  if (left_ == 0) {
    memory_->PinTo(cleanable);
    return;
  }
  left_--;
  cleanable->RegisterCleanup(&PinnedFileMemory::Unpin, memory_, stripe_);
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
