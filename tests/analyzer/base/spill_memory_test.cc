// Spill files: a block past the heap budget lives in an unlinked file
// reserved on the disk, reads back what was written, and is released with
// its array; anything that keeps a file from being had (no folder, no room,
// a folder in memory) leaves the array on the heap and says why.
#include "analyzer/base/spill_memory.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// A fresh folder on a disk for spill files, or empty (the test skips) when
// the test's temporary folder is in memory.
std::string DiskFolder(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return SpillFolderProblem(dir.string()) ? "" : dir.string();
}

size_t EntriesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Lines of /proc/self/maps that map a deleted spill file.
int DeletedMappingsUnder(const std::string& dir) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find(dir) != std::string::npos && line.find("(deleted)") != std::string::npos) ++n;
  }
  return n;
}

class Spill : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = DiskFolder(::testing::UnitTest::GetInstance()->current_test_info()->name());
    if (dir_.empty()) GTEST_SKIP() << "the test's temporary folder is in memory (tmpfs): no spill files there";
    ConfigureSpill(SpillSettings{dir_, kMiB});
    SetSpillHeapBudget(1);  // every block of a MiB or more spills
    ResetSpillStatsForTest();
  }
  void TearDown() override {
    ConfigureSpill(SpillSettings{});
    SetSpillHeapBudget(std::nullopt);
    ResetSpillStatsForTest();
  }
  std::string dir_;
};

TEST(SpillOff, NothingSpillsAndNoPointerIsTaken) {
  ConfigureSpill(SpillSettings{});
  SetSpillHeapBudget(1);
  EXPECT_EQ(MaybeSpillAllocate(64 * kMiB), nullptr);
  EXPECT_EQ(SpillRoomBytes(), 0);
  EXPECT_EQ(SpillFolder(), "");
  int on_heap = 0;
  EXPECT_FALSE(SpillFree(&on_heap));
  EXPECT_FALSE(SpillFree(nullptr));
  SetSpillHeapBudget(std::nullopt);
}

TEST_F(Spill, ABlockPastTheBudgetLivesInAnUnlinkedFileAndReadsBack) {
  const size_t bytes = 3 * kMiB + 5;  // not a whole number of pages
  auto* p = static_cast<uint64_t*>(MaybeSpillAllocate(bytes));
  ASSERT_NE(p, nullptr) << GetSpillStats().last_refusal;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)), 0u);
  const size_t n = bytes / sizeof(uint64_t);
  for (size_t i = 0; i < n; ++i) p[i] = i * 2654435761u;
  for (size_t i = 0; i < n; i += 4099) ASSERT_EQ(p[i], i * 2654435761u);
  EXPECT_EQ(EntriesIn(dir_), 0u);            // unlinked from the start
  EXPECT_EQ(DeletedMappingsUnder(dir_), 1);  // yet mapped
  SpillStats s = GetSpillStats();
  EXPECT_EQ(s.blocks, 1);
  const auto page = static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  const int64_t rounded = (static_cast<int64_t>(bytes) + page - 1) / page * page;
  EXPECT_EQ(s.live_bytes, rounded);
  EXPECT_EQ(s.heap_budget, 1);
  EXPECT_GT(SpillRoomBytes(), 0);
  EXPECT_TRUE(SpillFree(p));
  EXPECT_EQ(DeletedMappingsUnder(dir_), 0);
  s = GetSpillStats();
  EXPECT_EQ(s.live_bytes, 0);
  EXPECT_EQ(s.peak_bytes, rounded);
  EXPECT_EQ(s.total_bytes, rounded);
  EXPECT_EQ(s.refused_blocks, 0);
}

TEST_F(Spill, SmallBlocksAndBlocksUnderTheBudgetStayOnTheHeap) {
  EXPECT_EQ(MaybeSpillAllocate(kMiB - 1), nullptr);
  SetSpillHeapBudget(int64_t{1} << 50);
  EXPECT_EQ(MaybeSpillAllocate(64 * kMiB), nullptr);
  SetSpillHeapBudget(0);  // no budget: never spill
  EXPECT_EQ(MaybeSpillAllocate(64 * kMiB), nullptr);
  EXPECT_EQ(GetSpillStats().blocks, 0);
  EXPECT_EQ(GetSpillStats().refused_blocks, 0);
  // A heap pointer is not a spill block, even once spill blocks exist.
  SetSpillHeapBudget(1);
  void* spilled = MaybeSpillAllocate(kMiB);
  ASSERT_NE(spilled, nullptr);
  std::vector<char> on_heap(100);
  EXPECT_FALSE(SpillFree(on_heap.data()));
  EXPECT_FALSE(SpillFree(static_cast<char*>(spilled) + 4096));  // inside a block, not its start
  EXPECT_TRUE(SpillFree(spilled));
  EXPECT_FALSE(SpillFree(spilled));  // released once
}

TEST_F(Spill, AFolderGoneLeavesTheBlockOnTheHeapAndSaysWhy) {
  std::filesystem::remove_all(dir_);
  EXPECT_EQ(MaybeSpillAllocate(2 * kMiB), nullptr);
  const SpillStats s = GetSpillStats();
  EXPECT_EQ(s.blocks, 0);
  EXPECT_EQ(s.refused_blocks, 1);
  EXPECT_NE(s.last_refusal.find("cannot create a file in " + dir_), std::string::npos) << s.last_refusal;
}

TEST_F(Spill, ADiskWithoutRoomForTheBlockLeavesItOnTheHeap) {
  // The blocks are reserved before they are mapped: a file-size limit below
  // the block makes the reservation fail as a full disk would, where a
  // mapping left unreserved would die later of SIGBUS.
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const sighandler_t old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = kMiB;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  void* p = MaybeSpillAllocate(8 * kMiB);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  EXPECT_EQ(p, nullptr);
  const SpillStats s = GetSpillStats();
  EXPECT_EQ(s.refused_blocks, 1);
  EXPECT_NE(s.last_refusal.find("cannot reserve 8 MiB in " + dir_), std::string::npos) << s.last_refusal;
  EXPECT_EQ(EntriesIn(dir_), 0u);
  EXPECT_EQ(DeletedMappingsUnder(dir_), 0);
}

TEST_F(Spill, ThreadsSpillAndFreeAtOnce) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int round = 0; round < 16; ++round) {
        auto* p = static_cast<int*>(MaybeSpillAllocate(kMiB + static_cast<size_t>(t) * 4096));
        if (p == nullptr) {
          ++failures[t];
          continue;
        }
        p[0] = t;
        p[kMiB / sizeof(int) - 1] = round;
        if (p[0] != t || p[kMiB / sizeof(int) - 1] != round || !SpillFree(p)) ++failures[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0)) << GetSpillStats().last_refusal;
  const SpillStats s = GetSpillStats();
  EXPECT_EQ(s.blocks, 64);
  EXPECT_EQ(s.live_bytes, 0);
  EXPECT_EQ(DeletedMappingsUnder(dir_), 0);
}

TEST(SpillFolder, OneInMemoryMissingOrNotAFolderIsRefused) {
  EXPECT_NE(SpillFolderProblem("/no/such/folder"), std::nullopt);
  const std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / "spill-not-a-folder";
  std::ofstream(file) << "x";
  ASSERT_NE(SpillFolderProblem(file.string()), std::nullopt);
  EXPECT_NE(SpillFolderProblem(file.string())->find("not a folder"), std::string::npos);
  struct statfs fs {};
  if (statfs("/dev/shm", &fs) == 0 && fs.f_type == 0x01021994 /* TMPFS_MAGIC */) {
    ASSERT_NE(SpillFolderProblem("/dev/shm"), std::nullopt);
    EXPECT_NE(SpillFolderProblem("/dev/shm")->find("tmpfs"), std::string::npos);
  }
}

TEST(SpillFolder, TheEnvironmentNamesItOrTurnsItOff) {
  const std::string dir = DiskFolder("spill-env");
  if (dir.empty()) GTEST_SKIP() << "the test's temporary folder is in memory (tmpfs)";
  setenv("STREAMSCOPE_SPILL_DIR", dir.c_str(), 1);
  setenv("STREAMSCOPE_SPILL_MIN_BYTES", "65536", 1);
  SpillSettings s = SpillSettingsFromEnvironment();
  EXPECT_EQ(s.folder, dir);
  EXPECT_EQ(s.min_bytes, 65536u);
  setenv("STREAMSCOPE_SPILL_DIR", "none", 1);
  EXPECT_EQ(SpillSettingsFromEnvironment().folder, "");
  unsetenv("STREAMSCOPE_SPILL_DIR");
  unsetenv("STREAMSCOPE_SPILL_MIN_BYTES");
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string old_tmpdir = tmpdir != nullptr ? tmpdir : "";
  setenv("TMPDIR", dir.c_str(), 1);
  s = SpillSettingsFromEnvironment();
  EXPECT_EQ(s.folder, dir);  // TMPDIR first, when on a disk
  EXPECT_EQ(s.min_bytes, 16 * kMiB);
  if (tmpdir != nullptr) {
    setenv("TMPDIR", old_tmpdir.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
}

}  // namespace
}  // namespace streamscope
