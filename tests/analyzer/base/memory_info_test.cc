// The memory budget reads MemAvailable and a cgroup's limit; a file it
// cannot read or parse means "unknown", never a made-up figure.
#include "analyzer/base/memory_info.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(MemoryInfo, ReadsMemAvailableInBytes) {
  const char* meminfo =
      "MemTotal:       24576000 kB\n"
      "MemFree:         1000000 kB\n"
      "MemAvailable:   22966844 kB\n"
      "Buffers:           12345 kB\n";
  EXPECT_EQ(ParseMemAvailable(meminfo), int64_t{22966844} * 1024);
  EXPECT_EQ(ParseMemAvailable("MemTotal: 100 kB\n"), std::nullopt);  // a kernel before 3.14
  EXPECT_EQ(ParseMemAvailable("MemAvailable: lots\n"), std::nullopt);
  EXPECT_EQ(ParseMemAvailable("MemAvailable: 100 MB\n"), std::nullopt);
  EXPECT_EQ(ParseMemAvailable(""), std::nullopt);
}

TEST(MemoryInfo, ReadsACgroupLimitAndNoneAsUnknown) {
  EXPECT_EQ(ParseCgroupBytes("4294967296\n"), int64_t{4} << 30);
  EXPECT_EQ(ParseCgroupBytes("max\n"), std::nullopt);                  // v2: no limit
  EXPECT_EQ(ParseCgroupBytes("9223372036854771712\n"), std::nullopt);  // v1: no limit
  EXPECT_EQ(ParseCgroupBytes("-1"), std::nullopt);
  EXPECT_EQ(ParseCgroupBytes("garbage"), std::nullopt);
}

TEST(MemoryInfo, ReadsTheInactiveFileCacheOfACgroup) {
  const char* v2 =
      "anon 1048576\n"
      "file 8589934592\n"
      "active_file 1073741824\n"
      "inactive_file 7516192768\n";
  EXPECT_EQ(ParseCgroupStat(v2, "inactive_file"), int64_t{7} << 30);
  EXPECT_EQ(ParseCgroupStat(v2, "file"), int64_t{8} << 30);  // the whole key, not a prefix of another
  EXPECT_EQ(ParseCgroupStat(v2, "active_file"), int64_t{1} << 30);
  EXPECT_EQ(ParseCgroupStat("total_inactive_file 4096\n", "total_inactive_file"), 4096);  // v1
  EXPECT_EQ(ParseCgroupStat(v2, "shmem"), std::nullopt);
  EXPECT_EQ(ParseCgroupStat("inactive_file lots\n", "inactive_file"), std::nullopt);
}

TEST(MemoryInfo, ACgroupsPageCacheCountsAsRoom) {
  // A container of 8 GiB after a build: 7.5 GiB used, of which 5 GiB
  // active and 2 GiB inactive page cache: 0.5 GiB held, 7.5 GiB of room
  // (counting the active cache as held left 0.5 GiB).
  const char* v2 =
      "anon 536870912\n"
      "file 7516192768\n"
      "active_file 5368709120\n"
      "inactive_file 2147483648\n";
  EXPECT_EQ(CgroupRoomBytes(int64_t{8} << 30, int64_t{15} << 29, v2, false), int64_t{15} << 29);
  const char* v1 =
      "active_file 1\n"  // this cgroup's own: v1 reads the hierarchy's totals
      "total_active_file 5368709120\n"
      "total_inactive_file 2147483648\n";
  EXPECT_EQ(CgroupRoomBytes(int64_t{8} << 30, int64_t{15} << 29, v1, true), int64_t{15} << 29);
  // No stat: the usage counts whole; over the limit: no room, never negative.
  EXPECT_EQ(CgroupRoomBytes(int64_t{8} << 30, int64_t{6} << 30, "", false), int64_t{2} << 30);
  EXPECT_EQ(CgroupRoomBytes(int64_t{1} << 30, int64_t{2} << 30, "", false), 0);
  // A cache figure above the usage (files read between the two reads).
  EXPECT_EQ(CgroupRoomBytes(int64_t{1} << 30, 100, "active_file 4096\n", false), int64_t{1} << 30);
}

TEST(MemoryInfo, FindsThisProcesssCgroups) {
  SelfCgroups v2 = ParseSelfCgroups("0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n");
  EXPECT_EQ(v2.v2, "/system.slice/slurmstepd.scope/job_42/step_0/user/task_0");
  EXPECT_EQ(v2.v1_memory, "");
  SelfCgroups v1 = ParseSelfCgroups(
      "9:name=systemd:/\n"
      "5:cpu,cpuacct:/\n"
      "4:memory:/process_api/6a73\n"
      "0::/\n");
  EXPECT_EQ(v1.v1_memory, "/process_api/6a73");
  EXPECT_EQ(v1.v2, "/");
  EXPECT_EQ(ParseSelfCgroups("3:blkio,memory:/a:b\n").v1_memory, "/a:b");  // co-mounted; ':' in the path
  SelfCgroups none = ParseSelfCgroups("garbage\n");
  EXPECT_EQ(none.v2, "");
  EXPECT_EQ(none.v1_memory, "");
}

// A cgroup tree in a folder: the files the kernel shows under the mount.
void WriteCgroupFile(const std::filesystem::path& dir, const char* name, const std::string& text) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
}

TEST(MemoryInfo, ALimitOnAnAncestorBoundsTheRoom) {
  const std::filesystem::path mount = std::filesystem::path(::testing::TempDir()) / "cgroup_v2_tree";
  std::filesystem::remove_all(mount);
  // The root has no memory.max (as in the kernel); a Slurm job's cgroup
  // has 8 GiB with 6 GiB held; the task's own cgroup has no limit.
  WriteCgroupFile(mount, "memory.current", std::to_string(int64_t{20} << 30));
  WriteCgroupFile(mount / "job_42", "memory.max", std::to_string(int64_t{8} << 30));
  WriteCgroupFile(mount / "job_42", "memory.current", std::to_string(int64_t{7} << 30));
  WriteCgroupFile(mount / "job_42", "memory.stat", "active_file 1073741824\ninactive_file 0\n");
  WriteCgroupFile(mount / "job_42" / "task_0", "memory.max", "max\n");
  WriteCgroupFile(mount / "job_42" / "task_0", "memory.current", std::to_string(int64_t{6} << 30));
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/job_42/task_0", false), int64_t{2} << 30);
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/job_42/task_0/", false), int64_t{2} << 30);
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "job_42/task_0", false), int64_t{2} << 30);  // no leading '/'
  // A tighter limit lower down wins: 1 GiB with 0.5 GiB held.
  WriteCgroupFile(mount / "job_42" / "task_0", "memory.max", std::to_string(int64_t{1} << 30));
  WriteCgroupFile(mount / "job_42" / "task_0", "memory.current", std::to_string(int64_t{1} << 29));
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/job_42/task_0", false), int64_t{1} << 29);
  // No level with a limit: unknown. A path outside the tree or climbing
  // out of it: the root only.
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/", false), std::nullopt);
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/other/cgroup", false), std::nullopt);
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/job_42/../job_42/task_0", false), std::nullopt);
  // A container's own cgroup is the root it sees, with its limit there.
  WriteCgroupFile(mount, "memory.max", std::to_string(int64_t{32} << 30));
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/", false), int64_t{12} << 30);
  EXPECT_EQ(CgroupTreeRoom(mount.string(), "/job_42/task_0", false), int64_t{1} << 29);

  // v1: no limit is 2^63 rounded to a page; the stat's total_ keys.
  const std::filesystem::path v1 = std::filesystem::path(::testing::TempDir()) / "cgroup_v1_tree";
  std::filesystem::remove_all(v1);
  WriteCgroupFile(v1, "memory.limit_in_bytes", "9223372036854771712\n");
  WriteCgroupFile(v1 / "process_api", "memory.limit_in_bytes", std::to_string(int64_t{4} << 30));
  WriteCgroupFile(v1 / "process_api", "memory.usage_in_bytes", std::to_string(int64_t{4} << 30));
  WriteCgroupFile(v1 / "process_api", "memory.stat", "total_active_file 2147483648\ntotal_inactive_file 0\n");
  WriteCgroupFile(v1 / "process_api" / "6a73", "memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(CgroupTreeRoom(v1.string(), "/process_api/6a73", true), int64_t{2} << 30);
  std::filesystem::remove_all(mount);
  std::filesystem::remove_all(v1);
}

TEST(MemoryInfo, LiveReadingsAreSane) {
  std::optional<int64_t> available = AvailableMemoryBytes();
  ASSERT_TRUE(available.has_value());  // Linux with /proc: every machine this runs on
  EXPECT_GT(*available, 0);
  EXPECT_GT(AnonymousResidentBytes(), 0);
  const int64_t before = HeapInUseBytes();
  std::vector<char> block(64 << 20, 1);
  EXPECT_GE(HeapInUseBytes() - before, int64_t{64} << 20);
  EXPECT_EQ(block[12345], 1);
}

// The first reading in a process from several threads at once (a report's
// windows run on threads): under an allocator that is not glibc's, glibc
// sets its malloc up on that first call, and two at once crashed there.
TEST(MemoryInfo, TheFirstHeapReadingsFromManyThreadsAtOnceAreSane) {
  std::vector<int64_t> readings(8, -1);
  std::vector<std::thread> threads;
  for (int64_t& r : readings) threads.emplace_back([&r] { r = HeapInUseBytes(); });
  for (std::thread& t : threads) t.join();
  for (int64_t r : readings) EXPECT_GT(r, 0);
}

}  // namespace
}  // namespace streamscope
