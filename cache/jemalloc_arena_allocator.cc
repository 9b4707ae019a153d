#include "cache/jemalloc_arena_allocator.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "cache/jemalloc_arenas.h"
#include "cache/jemalloc_runtime.h"
#include "rocksdb/convenience.h"
#include "rocksdb/utilities/options_type.h"
#include "util/option_checks.h"

namespace rocksdb_cuckoo {

using namespace ROCKSDB_NAMESPACE;

namespace {

constexpr uint32_t kMaxArenas = 64;

Status CheckArenaCount(const std::string& name, const uint32_t& count) {
  return CheckInRange<uint32_t>("JemallocArenaAllocator", name, count, 1,
                                kMaxArenas);
}

const std::unordered_map<std::string, OptionTypeInfo> kOptionTypeInfo = {
    {"dontdump",
     {offsetof(JemallocArenaAllocatorOptions, dontdump), OptionType::kBoolean,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"num_arenas", CheckedOption<uint32_t>(
                       offsetof(JemallocArenaAllocatorOptions, num_arenas),
                       OptionType::kUInt32T, CheckArenaCount)},
};

// A small number per thread, handed out in the order threads first
// allocate, so that consecutive threads land on different arenas.
unsigned ThreadSlot() {
  static std::atomic<unsigned> next{0};
  thread_local const unsigned slot =
      next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

}  // namespace

JemallocArenaAllocator::JemallocArenaAllocator(
    const JemallocArenaAllocatorOptions& options)
    : options_(options) {
  RegisterOptions(&options_, &kOptionTypeInfo);
}

JemallocArenaAllocator::~JemallocArenaAllocator() {
  for (unsigned arena : arenas_) {
    ReleaseArena(*je_, arena, arenas_dontdump_);
  }
}

Status JemallocArenaAllocator::PrepareOptions(
    const ConfigOptions& config_options) {
  // First the options' own checks, declared with them.
  const Status checked = MemoryAllocator::PrepareOptions(config_options);
  if (!checked.ok()) return checked;
  if (je_ == nullptr) {
    std::string why;
    const JemallocApi* je = FindJemalloc(&why);
    if (je == nullptr) {
      return Status::NotSupported("JemallocArenaAllocator is unavailable: " +
                                  why);
    }
    std::vector<unsigned> arenas;
    Status s;
    for (uint32_t i = 0; s.ok() && i < options_.num_arenas; ++i) {
      unsigned arena = 0;
      s = AcquireArena(*je, options_.dontdump, &arena);
      if (s.ok()) arenas.push_back(arena);
    }
    if (!s.ok()) {
      for (unsigned arena : arenas) {
        ReleaseArena(*je, arena, options_.dontdump);
      }
      return s;
    }
    je_ = je;
    arenas_ = std::move(arenas);
    arenas_dontdump_ = options_.dontdump;
  }
  return Status::OK();
}

unsigned JemallocArenaAllocator::ArenaForThisThread() const {
  return arenas_.size() == 1 ? arenas_[0]
                             : arenas_[ThreadSlot() % arenas_.size()];
}

void* JemallocArenaAllocator::Allocate(size_t size) {
  // Neither mallocx nor every malloc accepts 0.
  const size_t bytes = size == 0 ? 1 : size;
  // Bypassing the thread cache keeps every block in our arenas: jemalloc's
  // per-thread cache would hand blocks of one arena to another's callers.
  void* p = je_ != nullptr
                ? je_->mallocx(bytes, MallocxArena(ArenaForThisThread()) |
                                          kMallocxTcacheNone)
                : std::malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void JemallocArenaAllocator::Deallocate(void* p) {
  if (je_ != nullptr) {
    je_->dallocx(p, kMallocxTcacheNone);
  } else {
    std::free(p);
  }
}

size_t JemallocArenaAllocator::UsableSize(void* p,
                                          size_t allocation_size) const {
  return je_ != nullptr ? je_->sallocx(p, 0) : allocation_size;
}

Status JemallocArenaAllocator::GetStats(JemallocArenaStats* stats) const {
  if (je_ == nullptr) {
    return Status::NotSupported(
        "JemallocArenaAllocator: PrepareOptions has not succeeded");
  }
  Status s = RefreshJemallocStats(*je_);
  return s.ok() ? ReadArenaStats(*je_, arenas_, stats) : s;
}

Status NewJemallocArenaAllocator(const JemallocArenaAllocatorOptions& options,
                                 std::shared_ptr<MemoryAllocator>* allocator) {
  auto created = std::make_shared<JemallocArenaAllocator>(options);
  Status s = created->PrepareOptions(ConfigOptions());
  if (s.ok()) *allocator = std::move(created);
  return s;
}

}  // namespace rocksdb_cuckoo
