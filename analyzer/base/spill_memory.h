// Spill files for the analyzer's large arrays: what lets a trace larger than
// the machine's memory be analyzed in full instead of the process being
// killed for memory (a 100M-op trace holds about 7.5 GiB of model, and its
// dependency graph 12 GiB more).
//
// Past a heap budget, an allocation of at least min_bytes is served from a
// file of its own in the spill folder, mapped shared into the process: the
// kernel then writes its pages to the disk and reads them back as memory
// runs short, as it does for any file, instead of having nowhere to put
// them (the analyzer reads its arrays in long sweeps, which suits that).
// Each file is created unlinked (nothing is left behind, however the
// process ends), its blocks are reserved on the disk before it is mapped (a
// page that could not be written back for want of space would kill the
// process with SIGBUS), and it goes with its array. When no file can be had
// (a full disk, a folder gone) the array comes from the heap, as without
// spilling, and the statistics say why.
//
// Freeing tells spill blocks from heap blocks by address: a pointer outside
// the span of the spill mappings made so far (every heap free until the
// first spill) costs two loads, no lock.
//
// Only the CLI routes its allocations here (cli/spill_operator_new.cc
// replaces the global operator new); the collector, which runs inside
// other people's processes, never does. Thread-safe.
#ifndef STREAMSCOPE_ANALYZER_BASE_SPILL_MEMORY_H_
#define STREAMSCOPE_ANALYZER_BASE_SPILL_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace streamscope {

struct SpillSettings {
  std::string folder;  // where spill files go; empty: spilling is off
  // Arrays smaller than this always come from the heap.
  size_t min_bytes = size_t{16} << 20;
};

// The settings from the environment: STREAMSCOPE_SPILL_DIR (a folder, or
// "none": no spilling), else the first of TMPDIR, /var/tmp and /tmp that
// can hold spill files (SpillFolderProblem), else none;
// STREAMSCOPE_SPILL_MIN_BYTES (arrays below it stay on the heap: a tuning
// and testing knob).
SpillSettings SpillSettingsFromEnvironment();

// What the next allocations follow (blocks already spilled stay where they
// are). Before the first call spilling is off.
void ConfigureSpill(const SpillSettings& settings);
// The heap (glibc's bytes in use, memory_info.h) may grow to this before
// large arrays spill. nullopt (the default): half of what the machine or the
// process's cgroup has available when the first large array is allocated,
// plus the heap in use then; 0: no budget (never spill).
void SetSpillHeapBudget(std::optional<int64_t> bytes);

// The folder spilling uses; empty when off.
std::string SpillFolder();
// Why `folder` cannot hold spill files (it is missing, not a writable
// folder, or in memory, as tmpfs is: a spill there would take the memory it
// is meant to save); nullopt when it can.
std::optional<std::string> SpillFolderProblem(const std::string& folder);
// Bytes free for spill files in the spill folder; 0 when spilling is off.
int64_t SpillRoomBytes();

// A block of `bytes` in a spill file when spilling is on, `bytes` is at
// least min_bytes, and the heap with it would pass the budget; nullptr
// otherwise (the caller then allocates from the heap). Page-aligned.
void* MaybeSpillAllocate(size_t bytes);
// Releases `p` and returns true when it is a spill block; false (nothing
// done) for any other pointer, nullptr included.
bool SpillFree(void* p);

struct SpillStats {
  int64_t live_bytes = 0;      // in spill files now
  int64_t peak_bytes = 0;      // most at once
  int64_t total_bytes = 0;     // ever spilled
  int64_t blocks = 0;          // ever spilled
  int64_t heap_budget = -1;    // the budget in force; -1: not decided yet
  int64_t refused_blocks = 0;  // over the budget, but no file could be had
  std::string last_refusal;    // why, for the one message
};
SpillStats GetSpillStats();

// Forgets the budget decided on first use and zeroes the statistics
// (tests; live blocks stay valid and SpillFree still releases them).
void ResetSpillStatsForTest();

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_SPILL_MEMORY_H_
