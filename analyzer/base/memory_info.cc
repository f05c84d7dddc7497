#include "analyzer/base/memory_info.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

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

// The room this process's cgroup leaves: its limit less what it cannot
// reclaim, the usage less its page cache, active and inactive (usage counts
// the cache: after a build or a large trace read it nears the limit while
// little of it is held, and the kernel reclaims the active part too before
// it kills; counting that part as held could leave no room for even a
// small trace's graph).
// v2 at the unified hierarchy's root as a container sees it, else v1.
std::optional<int64_t> CgroupRoom() {
  struct Files {
    const char *limit, *usage, *stat;
    bool v1;
  };
  for (const Files& f :
       {Files{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.stat", false},
        Files{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes",
              "/sys/fs/cgroup/memory/memory.stat", true}}) {
    std::optional<int64_t> limit = CgroupFile(f.limit);
    if (!limit) continue;
    return CgroupRoomBytes(*limit, CgroupFile(f.usage).value_or(0), ReadSmallFile(f.stat).value_or(""), f.v1);
  }
  return std::nullopt;
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
  const struct mallinfo2 heap = mallinfo2();
  const auto in_use = static_cast<int64_t>(heap.uordblks + heap.hblkhd);
  // Another allocator (a sanitizer's, a preloaded jemalloc) leaves glibc's
  // counts at zero: the anonymous resident bytes then, an upper bound.
  return in_use > 0 ? in_use : AnonymousResidentBytes();
}

}  // namespace streamscope
