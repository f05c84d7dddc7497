// What the machine and this process hold in memory, read from /proc, the
// cgroup files and the allocator: the facts the analyzer's memory budget
// (pipeline/memory_budget.h) decides on.
#ifndef STREAMSCOPE_ANALYZER_BASE_MEMORY_INFO_H_
#define STREAMSCOPE_ANALYZER_BASE_MEMORY_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace streamscope {

// Bytes a process can still take without swapping: the kernel's
// MemAvailable, or less when this process's cgroup or one of its ancestors
// (v2 memory.max, v1 memory.limit_in_bytes) leaves less room
// (CgroupTreeRoom). nullopt when neither can be read.
std::optional<int64_t> AvailableMemoryBytes();

// Bytes the heap holds now (mallinfo2: allocated and mmapped blocks; the
// resident bytes under an allocator that is not glibc's). Memory the
// process freed but kept counts as available to it, not here.
int64_t HeapInUseBytes();

// Bytes of this process's memory that are resident and not file-backed
// (/proc/self/statm: resident less shared), so that a mapped trace file
// does not count; 0 when unknown.
int64_t AnonymousResidentBytes();

// Parsers of the files above (tested on fixed text): MemAvailable in
// /proc/meminfo (kB) in bytes; a cgroup limit file ("max" or bytes).
std::optional<int64_t> ParseMemAvailable(absl::string_view meminfo);
std::optional<int64_t> ParseCgroupBytes(absl::string_view text);
// A "key value" line of a cgroup's memory.stat (bytes).
std::optional<int64_t> ParseCgroupStat(absl::string_view stat, absl::string_view key);
// The room a cgroup leaves under its limit: the limit less its usage
// without the page cache (active and inactive file pages of memory.stat,
// v1's total_ keys): the kernel reclaims both before it kills, and a build
// or a trace read leaves gigabytes of active cache that nothing holds.
int64_t CgroupRoomBytes(int64_t limit, int64_t usage, absl::string_view stat, bool v1);

// This process's cgroups as /proc/self/cgroup names them: the v2 path
// ("0::PATH") and the path in v1's memory hierarchy; empty when absent.
struct SelfCgroups {
  std::string v2, v1_memory;
};
SelfCgroups ParseSelfCgroups(absl::string_view text);
// The least CgroupRoomBytes over the cgroup at `path` under `mount`
// (/sys/fs/cgroup for v2, /sys/fs/cgroup/memory for v1) and each of its
// ancestors up to the mount's root that has a limit; nullopt when none has.
std::optional<int64_t> CgroupTreeRoom(const std::string& mount, absl::string_view path, bool v1);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_MEMORY_INFO_H_
