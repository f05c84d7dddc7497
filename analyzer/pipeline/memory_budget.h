// The memory the analyses may take, for the process. Past the heap budget
// the large arrays (the model's columns, the graph's) go to spill files on
// a disk (base/spill_memory.h), so a trace larger than the memory is still
// reported in full, only slower. The dependency graph's analyses (what-if
// ranking, critical path) are the ones that grow past a machine's memory on
// a long trace (about 64 bytes an op and an API call of the window on top
// of the trace's model), so before the graph is built RunPlan asks here
// whether it fits in memory and the spill folder together; when it does not
// (spilling off, a disk without the room), the window is reported without
// them and says so, instead of the process being killed for memory.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_MEMORY_BUDGET_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_MEMORY_BUDGET_H_

#include <cstdint>
#include <optional>

#include "analyzer/analysis/causes/graph_memory.h"

namespace streamscope {

// The limit for the process's heap: nullopt (the default) means what the
// machine has available when the graph is about to be built (MemAvailable,
// or less under a cgroup limit) plus what the process freed and kept; 0 means
// no limit (always build). Set by `--memory-limit MIB`; without it,
// STREAMSCOPE_MEMORY_LIMIT_MIB in the environment sets it. It is also the
// heap budget past which large arrays go to spill files
// (base/spill_memory.h), when spilling is on.
void SetMemoryLimit(std::optional<int64_t> bytes);
// Spilling as the environment sets it (SpillSettingsFromEnvironment) and
// the heap budget from STREAMSCOPE_MEMORY_LIMIT_MIB: the CLI's start.
void ConfigureMemoryFromEnvironment();
// MiB as bytes for SetMemoryLimit; beyond what 64 bits hold: 0, no limit.
int64_t MemoryLimitFromMib(int64_t mib);

// The room for `need` now: nullopt when it fits (or nothing can be
// measured), else the record of the shortfall. With spilling on, the free
// space of the spill folder counts as room (less a tenth, for the
// trace's and the system's own writes).
std::optional<GraphOverMemory> GraphDoesNotFit(const GraphMemoryNeed& need);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_MEMORY_BUDGET_H_
