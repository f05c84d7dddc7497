#include "analyzer/base/memory_info.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace streamscope {
namespace {

std::optional<std::string> ReadSmallFile(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<int64_t> CgroupFile(const char* path) {
  std::optional<std::string> text = ReadSmallFile(path);
  return text ? ParseCgroupBytes(*text) : std::nullopt;
}

// The least room along this process's cgroup and its ancestors, v2 and
// v1's memory controller (CgroupTreeRoom): a limit on a parent (a Slurm
// job, a systemd slice) bounds the processes of its children, and a
// container's own cgroup is the root it sees.
std::optional<int64_t> CgroupRoom() {
  const SelfCgroups self = ParseSelfCgroups(ReadSmallFile("/proc/self/cgroup").value_or(""));
  std::optional<int64_t> v2 = CgroupTreeRoom("/sys/fs/cgroup", self.v2, false);
  std::optional<int64_t> v1 = CgroupTreeRoom("/sys/fs/cgroup/memory", self.v1_memory, true);
  if (v2 && v1) return std::min(*v2, *v1);
  return v2 ? v2 : v1;
}

}  // namespace

std::optional<int64_t> ParseMemAvailable(absl::string_view meminfo) {
  for (absl::string_view line : absl::StrSplit(meminfo, '\n')) {
    if (!absl::ConsumePrefix(&line, "MemAvailable:")) continue;
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumeSuffix(&line, "kB")) return std::nullopt;
    int64_t kb = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &kb) || kb < 0) return std::nullopt;
    return kb * 1024;
  }
  return std::nullopt;
}

std::optional<int64_t> ParseCgroupBytes(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  int64_t bytes = 0;
  // "max" (v2) or a v1 limit near 2^63 (none set): no limit.
  if (text == "max" || !absl::SimpleAtoi(text, &bytes) || bytes < 0 || bytes >= (int64_t{1} << 60)) {
    return std::nullopt;
  }
  return bytes;
}

SelfCgroups ParseSelfCgroups(absl::string_view text) {
  SelfCgroups self;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    // "hierarchy-id:controllers:path"; the path may hold ':' itself.
    std::vector<absl::string_view> parts = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (parts.size() != 3) continue;
    if (parts[0] == "0" && parts[1].empty()) {
      self.v2 = std::string(parts[2]);
      continue;
    }
    for (absl::string_view controller : absl::StrSplit(parts[1], ',')) {
      if (controller == "memory") self.v1_memory = std::string(parts[2]);
    }
  }
  return self;
}

std::optional<int64_t> CgroupTreeRoom(const std::string& mount, absl::string_view path, bool v1) {
  // A path that climbs ("..": this process's cgroup outside the namespace
  // it sees) is not followed: the root level only.
  std::string rel = absl::StrContains(path, "..") ? "" : std::string(absl::StripSuffix(path, "/"));
  if (!rel.empty() && rel[0] != '/') rel.insert(0, "/");
  const char* limit_file = v1 ? "/memory.limit_in_bytes" : "/memory.max";
  const char* usage_file = v1 ? "/memory.usage_in_bytes" : "/memory.current";
  std::optional<int64_t> room;
  for (;;) {
    const std::string dir = mount + rel;
    if (std::optional<int64_t> limit = CgroupFile((dir + limit_file).c_str())) {
      const int64_t here = CgroupRoomBytes(*limit, CgroupFile((dir + usage_file).c_str()).value_or(0),
                                           ReadSmallFile((dir + "/memory.stat").c_str()).value_or(""), v1);
      room = room ? std::min(*room, here) : here;
    }
    if (rel.empty()) break;
    rel.resize(rel.rfind('/'));  // the parent ("/a/b" -> "/a" -> ""); rel starts with '/'
  }
  return room;
}

int64_t CgroupRoomBytes(int64_t limit, int64_t usage, absl::string_view stat, bool v1) {
  const int64_t cache = ParseCgroupStat(stat, v1 ? "total_active_file" : "active_file").value_or(0) +
                        ParseCgroupStat(stat, v1 ? "total_inactive_file" : "inactive_file").value_or(0);
  return std::max<int64_t>(0, limit - (usage - std::min(usage, cache)));
}

std::optional<int64_t> ParseCgroupStat(absl::string_view stat, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(stat, '\n')) {
    if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, " ")) continue;
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &value) || value < 0) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

std::optional<int64_t> AvailableMemoryBytes() {
  std::optional<int64_t> available;
  if (std::optional<std::string> meminfo = ReadSmallFile("/proc/meminfo")) available = ParseMemAvailable(*meminfo);
  if (std::optional<int64_t> room = CgroupRoom()) available = available ? std::min(*available, *room) : *room;
  return available;
}

int64_t AnonymousResidentBytes() {
  std::optional<std::string> statm = ReadSmallFile("/proc/self/statm");
  if (!statm) return 0;
  std::vector<absl::string_view> fields = absl::StrSplit(*statm, ' ');
  int64_t resident = 0, shared = 0;  // pages
  if (fields.size() < 3 || !absl::SimpleAtoi(fields[1], &resident) || !absl::SimpleAtoi(fields[2], &shared)) return 0;
  return std::max<int64_t>(0, resident - shared) * sysconf(_SC_PAGESIZE);
}

int64_t HeapInUseBytes() {
  // Under another allocator (ASan's, a preloaded jemalloc) glibc's malloc
  // was never set up, and mallinfo2 sets it up on its first call: two report
  // threads making that call at once crashed inside glibc (seen under ASan).
  static std::mutex once_at_a_time;
  struct mallinfo2 heap {};
  {
    std::lock_guard<std::mutex> lock(once_at_a_time);
    heap = mallinfo2();
  }
  const auto in_use = static_cast<int64_t>(heap.uordblks + heap.hblkhd);
  // Another allocator (a sanitizer's, a preloaded jemalloc) leaves glibc's
  // counts at zero: the anonymous resident bytes then, an upper bound.
  return in_use > 0 ? in_use : AnonymousResidentBytes();
}

}  // namespace streamscope
