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

// The room this process's cgroup leaves: its limit less its usage (v2 at
// the unified hierarchy's root as a container sees it, else v1).
std::optional<int64_t> CgroupRoom() {
  for (auto [limit_path, usage_path] :
       {std::pair{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
        std::pair{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}}) {
    std::optional<int64_t> limit = CgroupFile(limit_path);
    if (!limit) continue;
    std::optional<int64_t> usage = CgroupFile(usage_path);
    return std::max<int64_t>(0, *limit - usage.value_or(0));
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

std::optional<int64_t> AvailableMemoryBytes() {
  std::optional<int64_t> available;
  if (std::optional<std::string> meminfo = ReadSmallFile("/proc/meminfo")) available = ParseMemAvailable(*meminfo);
  if (std::optional<int64_t> room = CgroupRoom()) available = available ? std::min(*available, *room) : *room;
  return available;
}

int64_t ResidentBytes() {
  std::optional<std::string> statm = ReadSmallFile("/proc/self/statm");
  if (!statm) return 0;
  std::vector<absl::string_view> fields = absl::StrSplit(*statm, ' ');
  int64_t pages = 0;
  if (fields.size() < 2 || !absl::SimpleAtoi(fields[1], &pages)) return 0;
  return pages * sysconf(_SC_PAGESIZE);
}

int64_t HeapInUseBytes() {
  const struct mallinfo2 heap = mallinfo2();
  const auto in_use = static_cast<int64_t>(heap.uordblks + heap.hblkhd);
  // Another allocator (a sanitizer's, a preloaded jemalloc) leaves glibc's
  // counts at zero: what is resident then, an upper bound.
  return in_use > 0 ? in_use : ResidentBytes();
}

}  // namespace streamscope
