// What the dependency graph's analyses (the what-if ranking of the
// diagnosis, the critical path) take in memory for a window, estimated
// before the graph is built, and the record of a window where they did not
// fit: the report then says so and ranks the findings by measured cost
// instead of being killed for memory (pipeline/memory_budget.h decides).
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_GRAPH_MEMORY_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_GRAPH_MEMORY_H_

#include <cstdint>

#include "analyzer/analysis/windows/window.h"

namespace streamscope {

struct TraceModel;

struct GraphMemoryNeed {
  int64_t items = 0;  // GPU ops and API calls that start in the window
  int64_t bytes = 0;  // the most the graph's phases add to the heap at once
};

// Measured on bench/analyzer's synthetic traces (peak RSS of the full
// report less the heap in use before the graph, STREAMSCOPE_PROFILE=1): 104
// MiB for 2.0M items at 1M ops, 925 MiB for 20.2M items at 10M ops, 48-54
// bytes an item (the graph about 22, a replay's times 10, the what-ifs'
// edits and the critical path's segments the rest). Since replays keep
// their times in rings (about 10 MB each, two at once) and the path 24
// bytes a segment, not 40, the 10M report peaks 60-150 MiB lower; with the
// path found beside the replays (its segments in blocks), at most 731 MiB
// over the heap before the graph at 10M ops (38 bytes an item). The
// estimate takes 64 bytes an item and 16 MiB more: it errs toward skipping.
GraphMemoryNeed EstimateGraphMemory(const TraceModel& model, const Window& window);

// A window whose graph analyses were skipped for memory: what they needed
// and the room there was (a --memory-limit, or what the machine had
// available).
struct GraphOverMemory {
  int64_t items = 0;
  int64_t need_bytes = 0;
  int64_t room_bytes = 0;
  bool limit_set = false;  // room from --memory-limit / STREAMSCOPE_MEMORY_LIMIT_MIB
  // The latest part of the window whose graph fits the room:
  // [fits_from_ns, window_end_ns), empty when none does (trace clock).
  int64_t fits_from_ns = 0, window_end_ns = 0;
};

// The earliest start from which the rest of `window` has a graph of at
// most `room_bytes` by EstimateGraphMemory: the window's end when none
// does (a window a report can still rank and find the path of).
int64_t EarliestStartThatFits(const TraceModel& model, const Window& window, int64_t room_bytes);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_GRAPH_MEMORY_H_
