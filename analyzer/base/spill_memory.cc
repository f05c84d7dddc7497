#include "analyzer/base/spill_memory.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "analyzer/base/memory_info.h"

namespace streamscope {
namespace {

constexpr size_t kOff = std::numeric_limits<size_t>::max();
constexpr int64_t kAuto = -1;
// More blocks than the analyzer ever holds at once (a few dozen columns and
// buffers at 100M ops); past it, arrays come from the heap.
constexpr int kMaxBlocks = 4096;

struct Block {
  uintptr_t start = 0;
  size_t bytes = 0;
};

// Everything but the two hot checks (min_bytes, the span) is under `mu`,
// which only large allocations and frees inside the span take.
std::mutex mu;
std::string folder;                   // under mu
std::atomic<size_t> min_bytes{kOff};  // kOff: spilling off
std::atomic<int64_t> budget_setting{kAuto};
int64_t decided_budget = -1;  // under mu; -1: not decided
Block blocks[kMaxBlocks];     // under mu
int block_count = 0;          // under mu
SpillStats stats;             // under mu
std::atomic<uintptr_t> span_lo{std::numeric_limits<uintptr_t>::max()}, span_hi{0};

// The heap bookkeeping below allocates (strings, a file read); those
// allocations come back through operator new and must not spill or lock.
thread_local bool inside_spill = false;

class InsideSpill {
 public:
  InsideSpill() { inside_spill = true; }
  ~InsideSpill() { inside_spill = false; }
  InsideSpill(const InsideSpill&) = delete;
  InsideSpill& operator=(const InsideSpill&) = delete;
};

size_t PageRounded(size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

// Under mu.
int64_t HeapBudget() {
  if (decided_budget >= 0) return decided_budget;
  const int64_t set = budget_setting.load(std::memory_order_relaxed);
  if (set >= 0) {
    decided_budget = set == 0 ? std::numeric_limits<int64_t>::max() : set;
  } else {
    const int64_t in_use = HeapInUseBytes();
    const std::optional<int64_t> available = AvailableMemoryBytes();
    // Half of what is free: the rest is for the spill files' own pages (the
    // kernel's cache of them) and the trace file's.
    decided_budget = available ? in_use + *available / 2 : std::numeric_limits<int64_t>::max();
  }
  stats.heap_budget = decided_budget;
  return decided_budget;
}

// An unlinked file of `bytes` reserved on the disk in `dir`, or -1 with `why`.
int OpenSpillFile(const std::string& dir, size_t bytes, std::string* why) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC | O_EXCL, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without O_TMPFILE: a named file, unlinked at once.
    std::string path = dir + "/streamscope-spill-XXXXXX";
    fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd >= 0) unlink(path.c_str());
  }
  if (fd < 0) {
    *why = absl::StrCat("cannot create a file in ", dir, ": ", std::strerror(errno));
    return -1;
  }
  int rc = fallocate(fd, 0, 0, static_cast<off_t>(bytes));
  if (rc != 0 && errno == EOPNOTSUPP) rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes)) == 0 ? 0 : -1;
  if (rc != 0) {
    *why = absl::StrCat("cannot reserve ", bytes >> 20, " MiB in ", dir, ": ", std::strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

SpillSettings SpillSettingsFromEnvironment() {
  SpillSettings s;
  const char* dir = std::getenv("STREAMSCOPE_SPILL_DIR");
  if (dir != nullptr && *dir != '\0') {
    if (std::strcmp(dir, "none") != 0) s.folder = dir;
  } else {
    const char* tmpdir = std::getenv("TMPDIR");
    for (const char* candidate : {tmpdir, "/var/tmp", "/tmp"}) {
      if (candidate != nullptr && *candidate != '\0' && !SpillFolderProblem(candidate)) {
        s.folder = candidate;
        break;
      }
    }
  }
  const char* min = std::getenv("STREAMSCOPE_SPILL_MIN_BYTES");
  uint64_t min_value = 0;
  if (min != nullptr && absl::SimpleAtoi(min, &min_value)) s.min_bytes = static_cast<size_t>(min_value);
  return s;
}

void ConfigureSpill(const SpillSettings& settings) {
  InsideSpill guard;
  std::lock_guard<std::mutex> lock(mu);
  folder = settings.folder;
  // At least a page: a smaller block would take a page of its own.
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  min_bytes.store(folder.empty() ? kOff : std::max(settings.min_bytes, page), std::memory_order_relaxed);
}

void SetSpillHeapBudget(std::optional<int64_t> bytes) {
  std::lock_guard<std::mutex> lock(mu);
  budget_setting.store(bytes ? std::max<int64_t>(0, *bytes) : kAuto, std::memory_order_relaxed);
  decided_budget = -1;
}

std::string SpillFolder() {
  InsideSpill guard;
  std::lock_guard<std::mutex> lock(mu);
  return folder;
}

std::optional<std::string> SpillFolderProblem(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return absl::StrCat(dir, ": ", std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return absl::StrCat(dir, ": not a folder");
  if (access(dir.c_str(), W_OK | X_OK) != 0) return absl::StrCat(dir, ": not writable");
  struct statfs fs {};
  if (statfs(dir.c_str(), &fs) != 0) return absl::StrCat(dir, ": ", std::strerror(errno));
  if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
    return absl::StrCat(dir, ": in memory (tmpfs): spill files there would take the memory they are meant to save");
  }
  return std::nullopt;
}

int64_t SpillRoomBytes() {
  const std::string dir = SpillFolder();
  if (dir.empty()) return 0;
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) != 0) return 0;
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

void* MaybeSpillAllocate(size_t bytes) {
  if (bytes < min_bytes.load(std::memory_order_relaxed) || inside_spill) return nullptr;
  InsideSpill guard;
  std::lock_guard<std::mutex> lock(mu);
  if (folder.empty() || HeapInUseBytes() + static_cast<int64_t>(bytes) <= HeapBudget()) return nullptr;
  const size_t rounded = PageRounded(bytes);
  std::string why;
  void* p = MAP_FAILED;
  if (block_count == kMaxBlocks) {
    why = absl::StrCat("more than ", kMaxBlocks, " spill files at once");
  } else if (const int fd = OpenSpillFile(folder, rounded, &why); fd >= 0) {
    p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) why = absl::StrCat("cannot map a spill file: ", std::strerror(errno));
    close(fd);  // the mapping keeps the file
  }
  if (p == MAP_FAILED) {
    ++stats.refused_blocks;
    stats.last_refusal = why;
    return nullptr;
  }
  const auto start = reinterpret_cast<uintptr_t>(p);
  blocks[block_count++] = Block{start, rounded};
  if (start < span_lo.load(std::memory_order_relaxed)) span_lo.store(start, std::memory_order_release);
  if (start + rounded > span_hi.load(std::memory_order_relaxed))
    span_hi.store(start + rounded, std::memory_order_release);
  stats.live_bytes += static_cast<int64_t>(rounded);
  stats.peak_bytes = std::max(stats.peak_bytes, stats.live_bytes);
  stats.total_bytes += static_cast<int64_t>(rounded);
  ++stats.blocks;
  return p;
}

bool SpillFree(void* p) {
  // What this file frees while it holds `mu` is its own heap bookkeeping.
  if (inside_spill) return false;
  const auto start = reinterpret_cast<uintptr_t>(p);
  if (start < span_lo.load(std::memory_order_acquire) || start >= span_hi.load(std::memory_order_acquire)) {
    return false;
  }
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < block_count; ++i) {
    if (blocks[i].start != start) continue;
    // Unmapping drops the unlinked file: its dirty pages are discarded, never written.
    munmap(p, blocks[i].bytes);
    stats.live_bytes -= static_cast<int64_t>(blocks[i].bytes);
    blocks[i] = blocks[--block_count];
    return true;
  }
  return false;  // a heap block that lies between two spill mappings
}

SpillStats GetSpillStats() {
  InsideSpill guard;
  std::lock_guard<std::mutex> lock(mu);
  return stats;
}

void ResetSpillStatsForTest() {
  InsideSpill guard;
  std::lock_guard<std::mutex> lock(mu);
  const int64_t live = stats.live_bytes;
  stats = SpillStats{};
  stats.live_bytes = live;
  decided_budget = -1;
}

}  // namespace streamscope
