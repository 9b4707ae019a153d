// PinnedFileMemory: the file's bytes stay alive while the owner or any pin
// holds them, and are freed exactly once, by whichever lets go last — also
// when the owner closes on one thread while another releases the last pin
// (RocksDB evicting a table while a Get's PinnableSlice is released).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "file/random_access_file_reader.h"
#include "rocksdb/cleanable.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "table/pinned_file_memory.h"
#include "tests/support/status_assertions.h"

namespace rocksdb_cuckoo {
namespace {

using namespace ROCKSDB_NAMESPACE;

// Counts its own destruction (PinnedFileMemory owns the file, so the file
// is destroyed exactly when the memory is freed) and its reads.
class CountedFile : public FSRandomAccessFileOwnerWrapper {
 public:
  CountedFile(std::unique_ptr<FSRandomAccessFile>&& file,
              std::atomic<int>* destroyed, std::atomic<int>* reads)
      : FSRandomAccessFileOwnerWrapper(std::move(file)),
        destroyed_(destroyed),
        reads_(reads) {}
  ~CountedFile() override { destroyed_->fetch_add(1); }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    reads_->fetch_add(1);
    return target()->Read(offset, n, options, result, scratch, dbg);
  }

 private:
  std::atomic<int>* const destroyed_;
  std::atomic<int>* const reads_;
};

class PinnedFileMemoryTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/pinned_file_memory_" +
            std::to_string(getpid()) + "_" + std::to_string(GetParam());
    UseContents(std::string(4096, 'v') + "tail");
  }
  void UseContents(std::string contents) {
    contents_ = std::move(contents);
    ASSERT_TRUE(WriteStringToFile(Env::Default(), contents_, path_).ok());
  }
  void TearDown() override {
    Env::Default()->DeleteFile(path_).PermitUncheckedError();
  }

  // Opened; a loaded (not mapped) file larger than kWholeFileBytes has
  // nothing read yet.
  PinnedFileMemory* OpenUnloaded(std::atomic<int>* destroyed) {
    FileOptions options;
    options.use_mmap_reads = GetParam();
    std::unique_ptr<FSRandomAccessFile> file;
    const IOStatus opened = FileSystem::Default()->NewRandomAccessFile(
        path_, options, &file, nullptr);
    if (!opened.ok()) {
      ADD_FAILURE() << opened.ToString();
      return nullptr;
    }
    std::unique_ptr<FSRandomAccessFile> counted(
        new CountedFile(std::move(file), destroyed, &reads_));
    PinnedFileMemory* memory = nullptr;
    Status s = PinnedFileMemory::Open(
        std::make_unique<RandomAccessFileReader>(std::move(counted), path_),
        contents_.size(), ReadOptions(), GetParam(),
        PinnedFileMemory::ReadObservers(), &memory);
    if (!s.ok()) {
      ADD_FAILURE() << s.ToString();
      return nullptr;
    }
    return memory;
  }

  PinnedFileMemory* OpenMemory(std::atomic<int>* destroyed) {
    PinnedFileMemory* memory = OpenUnloaded(destroyed);
    if (memory == nullptr) return nullptr;
    const Status s = memory->Load(0, contents_.size());  // mapped: no-op
    EXPECT_TRUE(s.ok()) << s.ToString();
    return memory;
  }

  std::string contents_;
  std::string path_;
  std::atomic<int> reads_{0};
};

TEST_P(PinnedFileMemoryTest, CloseWithoutPinsFreesAtOnce) {
  std::atomic<int> destroyed{0};
  PinnedFileMemory* memory = OpenMemory(&destroyed);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(std::string(memory->data() + 4096, 4), "tail");
  memory->Close();
  EXPECT_EQ(destroyed.load(), 1);
}

TEST_P(PinnedFileMemoryTest, PinsKeepTheBytesAfterClose) {
  std::atomic<int> destroyed{0};
  PinnedFileMemory* memory = OpenMemory(&destroyed);
  ASSERT_NE(memory, nullptr);
  const char* data = memory->data();
  auto first = std::make_unique<Cleanable>();
  auto second = std::make_unique<Cleanable>();
  memory->PinTo(first.get());
  memory->PinTo(second.get());
  memory->Close();
  EXPECT_EQ(destroyed.load(), 0);
  first.reset();
  EXPECT_EQ(destroyed.load(), 0);
  EXPECT_EQ(std::string(data + 4096, 4), "tail");  // still readable
  second.reset();
  EXPECT_EQ(destroyed.load(), 1);
}

// Pins added for a batch: each one handed out holds the bytes as a single
// pin does, one more than the batch holds is still a pin, and those never
// handed out let the memory go with the batch.
TEST_P(PinnedFileMemoryTest, BatchedPinsHoldOnlyWhatTheyHandOut) {
  std::atomic<int> destroyed{0};
  PinnedFileMemory* memory = OpenMemory(&destroyed);
  ASSERT_NE(memory, nullptr);
  std::vector<std::unique_ptr<Cleanable>> held;
  {
    PinnedFileMemory::Pins pins(memory, 2);
    for (int i = 0; i < 3; i++) {
      held.push_back(std::make_unique<Cleanable>());
      pins.PinTo(held.back().get());
    }
  }
  {
    PinnedFileMemory::Pins unused(memory, 5);
    PinnedFileMemory::Pins none(memory, 0);
  }
  memory->Close();
  for (auto& pin : held) {
    EXPECT_EQ(destroyed.load(), 0);
    pin.reset();
  }
  EXPECT_EQ(destroyed.load(), 1);
}

TEST_P(PinnedFileMemoryTest, PinsFromManyThreadsReleasedInAnyOrder) {
  std::atomic<int> destroyed{0};
  PinnedFileMemory* memory = OpenMemory(&destroyed);
  ASSERT_NE(memory, nullptr);
  constexpr int kThreads = 24;  // more threads than stripes
  std::vector<std::unique_ptr<Cleanable>> pins(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      pins[t] = std::make_unique<Cleanable>();
      memory->PinTo(pins[t].get());
    });
  }
  for (auto& t : threads) t.join();
  memory->Close();
  threads.clear();
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] { pins[t].reset(); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(destroyed.load(), 1);
}

// The owner closes while another thread drops the last pin, both at once,
// many times and with varying head starts: the memory must be freed exactly
// once, and neither side may touch it after the other freed it (ASan and
// TSan report that). One long-lived thread unpins, so a round costs
// microseconds and the window is hit often.
TEST_P(PinnedFileMemoryTest, CloseRacesWithLastUnpin) {
  constexpr int kRounds = 20000;
  std::atomic<int> destroyed{0};
  std::atomic<PinnedFileMemory*> shared{nullptr};
  std::atomic<int> phase{0};  // 2r+1: round r pinned; 2r+2: round r go
  std::thread unpinner([&] {
    Cleanable pin;
    for (int round = 0; round < kRounds; round++) {
      PinnedFileMemory* memory;
      // Waits yield: with more spinning threads than cores (tests run in
      // parallel), a pure spin would wait out the peer's time slice.
      while ((memory = shared.load()) == nullptr) {
        std::this_thread::yield();
      }
      shared.store(nullptr);
      memory->PinTo(&pin);  // on this thread's stripe
      phase.store(2 * round + 1);
      while (phase.load() != 2 * round + 2) {
        std::this_thread::yield();
      }
      for (int spin = round % 7 * 40; spin > 0; spin--) {
        std::atomic_signal_fence(std::memory_order_seq_cst);
      }
      pin.Reset();
    }
  });
  for (int round = 0; round < kRounds; round++) {
    PinnedFileMemory* memory = OpenMemory(&destroyed);
    ASSERT_NE(memory, nullptr);
    shared.store(memory);
    while (phase.load() != 2 * round + 1) {
      std::this_thread::yield();
    }
    phase.store(2 * round + 2);
    for (int spin = round / 7 % 5 * 40; spin > 0; spin--) {
      std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    memory->Close();
    // The unpinner may still be about to free it: wait for this round.
    while (destroyed.load() < round + 1) {
      std::this_thread::yield();
    }
  }
  unpinner.join();
  EXPECT_EQ(destroyed.load(), kRounds);
}

// Two threads load neighbouring ranges whose boundary falls inside an
// 8-byte word, at once: afterwards every byte of both must read back (under
// AddressSanitizer, both loads must leave the shared word readable).
TEST_P(PinnedFileMemoryTest, NeighbouringLoadsAtOnceLeaveBothReadable) {
  if (GetParam()) GTEST_SKIP() << "a mapped file is never loaded";
  constexpr int kRounds = 300;
  constexpr uint64_t kBoundary = 4093;  // not a multiple of 8
  // Large enough to be loaded as reads reach it, not whole at Open.
  UseContents(std::string(PinnedFileMemory::kWholeFileBytes + 4096, 'v'));
  std::atomic<int> destroyed{0};
  for (int round = 0; round < kRounds; round++) {
    PinnedFileMemory* memory = OpenUnloaded(&destroyed);
    ASSERT_NE(memory, nullptr);
    std::atomic<int> ready{0};
    Status upper;
    std::thread other([&] {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
      upper = memory->Load(kBoundary, contents_.size() - kBoundary);
    });
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    const Status lower = memory->Load(0, kBoundary);
    other.join();
    ASSERT_OK(lower);
    ASSERT_OK(upper);
    ASSERT_EQ(std::string(memory->data(), contents_.size()), contents_);
    memory->Close();
  }
}

// A small file is read whole, in one read, when opened (a compaction over
// many small files then makes one read per file); a larger one has nothing
// read until a region is loaded.
TEST_P(PinnedFileMemoryTest, SmallFilesAreReadWholeInOneRead) {
  if (GetParam()) GTEST_SKIP() << "a mapped file is never loaded";
  std::atomic<int> destroyed{0};
  PinnedFileMemory* memory = OpenUnloaded(&destroyed);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(reads_.load(), 1);
  EXPECT_EQ(memory->loaded_bytes(), contents_.size());
  ASSERT_OK(memory->Load(0, 100));
  ASSERT_OK(memory->Load(4096, 4));
  EXPECT_EQ(reads_.load(), 1);
  EXPECT_EQ(std::string(memory->data() + 4096, 4), "tail");
  memory->Close();

  UseContents(std::string(PinnedFileMemory::kWholeFileBytes + 1, 'v'));
  reads_ = 0;
  memory = OpenUnloaded(&destroyed);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(reads_.load(), 0);
  ASSERT_OK(memory->Load(0, 100));
  EXPECT_EQ(reads_.load(), 1);
  EXPECT_EQ(memory->loaded_bytes(), 100u);
  memory->Close();
}

INSTANTIATE_TEST_SUITE_P(MappedAndLoaded, PinnedFileMemoryTest,
                         ::testing::Values(true, false), [](const auto& info) {
                           return info.param ? "Mapped" : "Loaded";
                         });

}  // namespace
}  // namespace rocksdb_cuckoo
