// CPU topology from sysfs: cache-sharing lists, LLC grouping, the stripe maps
// built from them, and the fallback when sysfs says nothing. Fake sysfs trees
// make the cases independent of the machine running the test.
#include "util/cpu_topology.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace rocksdb_cuckoo {
namespace {

namespace fs = std::filesystem;

TEST(CpuTopologyTest, ParsesCpuLists) {
  std::vector<int> cpus;
  ASSERT_TRUE(ParseCpuList("0-3,8,10-11", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  ASSERT_TRUE(ParseCpuList("5", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{5}));
  ASSERT_TRUE(ParseCpuList("4-5,0-1,4", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 4, 5}));
  for (const char* bad : {"", "-1", "3-1", "a", "1-", "1,,2", "1-2x", "2-b"}) {
    EXPECT_FALSE(ParseCpuList(bad, &cpus)) << bad;
  }
}

class FakeSysfs {
 public:
  FakeSysfs()
      : root_(fs::path(::testing::TempDir()) /
              ("fake_sysfs_" + std::to_string(getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_);
    // Entries that are not CPUs must be ignored.
    fs::create_directories(root_ / "cpufreq");
    Write(root_ / "online", "0-7");
  }
  ~FakeSysfs() { fs::remove_all(root_); }

  void AddCpu(int cpu) { fs::create_directories(CpuDir(cpu)); }
  void AddCache(int cpu, int index, int level, const std::string& type,
                const std::string& shared) {
    const fs::path dir =
        CpuDir(cpu) / "cache" / ("index" + std::to_string(index));
    fs::create_directories(dir);
    Write(dir / "level", std::to_string(level) + "\n");
    Write(dir / "type", type + "\n");
    Write(dir / "shared_cpu_list", shared + "\n");
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path CpuDir(int cpu) const {
    return root_ / ("cpu" + std::to_string(cpu));
  }
  static void Write(const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  fs::path root_;
};

TEST(CpuTopologyTest, GroupsCpusByLastLevelCache) {
  FakeSysfs sysfs;
  for (int cpu = 0; cpu < 8; ++cpu) {
    sysfs.AddCpu(cpu);
    // L1/L2 are private; L3 is shared by four CPUs. The LLC is found by its
    // level, whatever its index number.
    sysfs.AddCache(cpu, 0, 1, "Data", std::to_string(cpu));
    sysfs.AddCache(cpu, 1, 1, "Instruction", std::to_string(cpu));
    sysfs.AddCache(cpu, 2, 2, "Unified", std::to_string(cpu));
    sysfs.AddCache(cpu, 5, 3, "Unified", cpu < 4 ? "0-3" : "4-7");
  }
  const CpuTopology topology = CpuTopology::Detect(sysfs.root());
  EXPECT_EQ(topology.num_cpus(), 8u);
  EXPECT_EQ(topology.num_llcs(), 2u);
  for (int cpu = 0; cpu < 8; ++cpu) {
    EXPECT_EQ(topology.llc_of(cpu), cpu < 4 ? 0 : 1) << cpu;
  }

  size_t stripes = 0;
  std::vector<uint16_t> map = topology.StripeMap(StripeMode::kLlc, &stripes);
  EXPECT_EQ(stripes, 2u);
  EXPECT_EQ(map, (std::vector<uint16_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  map = topology.StripeMap(StripeMode::kCore, &stripes);
  EXPECT_EQ(stripes, 8u);
  EXPECT_EQ(map, (std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  map = topology.StripeMap(StripeMode::kNone, &stripes);
  EXPECT_EQ(stripes, 1u);
  EXPECT_EQ(map, std::vector<uint16_t>(8, 0));
}

// auto stripes per LLC only where there are several: with one LLC (or none
// known) per-LLC striping would be a single stripe every thread shares.
CpuTopology FourCpus(bool two_llcs) {
  FakeSysfs sysfs;
  for (int cpu = 0; cpu < 4; ++cpu) {
    sysfs.AddCpu(cpu);
    sysfs.AddCache(cpu, 3, 3, "Unified",
                   !two_llcs ? "0-3" : (cpu < 2 ? "0-1" : "2-3"));
  }
  return CpuTopology::Detect(sysfs.root());
}

TEST(CpuTopologyTest, AutoIsPerLlcWithSeveralCachesElsePerCpu) {
  const CpuTopology several = FourCpus(/*two_llcs=*/true);
  ASSERT_EQ(several.num_llcs(), 2u);
  EXPECT_EQ(several.Resolve(StripeMode::kAuto), StripeMode::kLlc);
  size_t stripes = 0;
  EXPECT_EQ(several.StripeMap(StripeMode::kAuto, &stripes),
            (std::vector<uint16_t>{0, 0, 1, 1}));
  EXPECT_EQ(stripes, 2u);

  const CpuTopology single = FourCpus(/*two_llcs=*/false);
  ASSERT_EQ(single.num_llcs(), 1u);
  EXPECT_EQ(single.Resolve(StripeMode::kAuto), StripeMode::kCore);
  EXPECT_EQ(single.StripeMap(StripeMode::kAuto, &stripes),
            (std::vector<uint16_t>{0, 1, 2, 3}));
  EXPECT_EQ(stripes, 4u);

  const CpuTopology unknown = CpuTopology::Detect("/nonexistent/sysfs/cpu");
  EXPECT_EQ(unknown.Resolve(StripeMode::kAuto), StripeMode::kCore);
  // Explicit modes are never changed.
  for (StripeMode mode :
       {StripeMode::kLlc, StripeMode::kCore, StripeMode::kNone}) {
    EXPECT_EQ(single.Resolve(mode), mode);
  }
}

TEST(CpuTopologyTest, CpusWithoutCacheInfoShareStripeZero) {
  FakeSysfs sysfs;
  // cpu0-1 share an LLC, cpu2-3 another; cpu4 (offline, say) has no cache
  // directory and is in no list.
  for (int cpu = 0; cpu < 5; ++cpu) sysfs.AddCpu(cpu);
  for (int cpu = 0; cpu < 4; ++cpu) {
    sysfs.AddCache(cpu, 3, 3, "Unified", cpu < 2 ? "0-1" : "2-3");
  }
  const CpuTopology topology = CpuTopology::Detect(sysfs.root());
  EXPECT_EQ(topology.num_cpus(), 5u);
  EXPECT_EQ(topology.num_llcs(), 2u);
  EXPECT_EQ(topology.llc_of(4), -1);
  size_t stripes = 0;
  EXPECT_EQ(topology.StripeMap(StripeMode::kLlc, &stripes),
            (std::vector<uint16_t>{0, 0, 1, 1, 0}));
  EXPECT_EQ(stripes, 2u);
}

TEST(CpuTopologyTest, FallsBackToOneStripeWithoutCacheInfo) {
  FakeSysfs sysfs;
  for (int cpu = 0; cpu < 4; ++cpu) sysfs.AddCpu(cpu);
  const CpuTopology topology = CpuTopology::Detect(sysfs.root());
  EXPECT_EQ(topology.num_cpus(), 4u);
  EXPECT_EQ(topology.num_llcs(), 0u);
  size_t stripes = 0;
  EXPECT_EQ(topology.StripeMap(StripeMode::kLlc, &stripes),
            std::vector<uint16_t>(4, 0));
  EXPECT_EQ(stripes, 1u);
  topology.StripeMap(StripeMode::kCore, &stripes);
  EXPECT_EQ(stripes, 4u);

  const CpuTopology missing = CpuTopology::Detect("/nonexistent/sysfs/cpu");
  EXPECT_EQ(missing.num_cpus(), 1u);
  EXPECT_EQ(missing.num_llcs(), 0u);
}

TEST(CpuTopologyTest, SystemTopologyCoversThisCpu) {
  const CpuTopology& system = CpuTopology::System();
  EXPECT_GE(system.num_cpus(), 1u);
  EXPECT_LT(static_cast<size_t>(CurrentCpu()), system.num_cpus());
  size_t stripes = 0;
  const std::vector<uint16_t> map =
      system.StripeMap(StripeMode::kLlc, &stripes);
  EXPECT_EQ(stripes, system.num_llcs() == 0 ? 1u : system.num_llcs());
  for (uint16_t stripe : map) EXPECT_LT(stripe, stripes);
}

}  // namespace
}  // namespace rocksdb_cuckoo
