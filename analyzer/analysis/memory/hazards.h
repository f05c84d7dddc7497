// Hazards, after happens_before.h and ownership.h (docs/DEFINITIONS.md): cross-stream hazards. Two
// accesses (ownership.h) to overlapping byte ranges (a partial overlap
// counts) of the same allocation, made by ops on different streams, at
// least one of them possibly writing, with no happens-before path
// (happens_before.h) either way.
//   certain:  both directions known (copies: source read, destination
//             write; memsets write) and at least one writes;
//   possible: at least one access is a kernel's pointer argument, whose
//             direction is unknown (it may write).
// Read/read pairs never conflict. Pairs are deduplicated per (allocation,
// op, op): one hazard per pair of ops, with the union of the overlapping
// ranges, certain when any of its access pairs is certain.
// `observed_concurrent`: the two ops' GPU intervals overlapped in time.
//
// Which pairs: ordering an access of stream a before Y also orders every
// earlier access of a (stream order), so for each access Y and each other
// stream a only the most recent unordered conflicting access of a is paired
// with Y — and, when that one is only possible, also the most recent certain
// one behind it. Older pairs would repeat the same missing edge (a loop
// missing one wait would otherwise report O(n^2) pairs).
// Search: accesses are replayed in submission order per allocation; for an
// access Y and each other stream a, the accesses of a that are NOT ordered
// before Y are a suffix of a's accesses (HappensBefore::Cover), found by
// binary search and walked from its end. At most max_scan_per_stream
// accesses are examined per (Y, stream); a walk cut there is counted in
// `scans_truncated` (a hazard behind it may be missed). Cost
// O(a * s * (log a + max_scan)) for a accesses and s streams touching an
// allocation; typically the walk stops at the first access.
//
// A hazard belongs to the window in which the later-starting of its two ops
// starts (so disjoint windows count each hazard once). Thread-safe: reads
// the model and the order only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_HAZARDS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_HAZARDS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/analysis/memory/happens_before.h"
#include "analyzer/analysis/memory/ownership.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct HazardOptions {
  int max_listed = 20;            // hazards listed per class (certain, possible); -1 = all
  int max_groups = 20;            // groups listed
  int max_scan_per_stream = 256;  // see the file comment
};

struct Hazard {
  int64_t allocation = -1;  // index into model.allocations; -1 = outside them
  int32_t op_a = -1;        // submitted first
  int32_t op_b = -1;
  MemoryAccess::Access access_a = MemoryAccess::Access::kUnknown;
  MemoryAccess::Access access_b = MemoryAccess::Access::kUnknown;
  bool certain = false;
  uint64_t lo = 0, hi = 0;  // overlapping bytes [lo, hi)
  bool observed_concurrent = false;
};

// Hazards of one kind between the same two streams on one allocation by the
// same two kinds of op (kernel name, or copy direction / memset).
struct HazardGroup {
  int64_t allocation = -1;
  int32_t stream_a = -1, stream_b = -1;
  bool certain = false;
  int64_t count = 0, observed_concurrent = 0;
  Hazard example;  // the first (observed concurrent if any)
};

struct HazardScanStats {
  int64_t access_rows = 0, accesses_without_op = 0, accesses_empty = 0;
  int64_t scans_truncated = 0;
};

struct HazardsResult {
  Window window;
  bool has_access_data = false;  // the trace holds memory_access rows
  int64_t certain_count = 0, possible_count = 0;
  int64_t certain_observed = 0, possible_observed = 0;
  std::vector<Hazard> certain, possible;  // listed: observed first, then by time; capped
  std::vector<HazardGroup> groups;        // certain first, then by count; capped
  int64_t groups_total = 0;
  HazardScanStats stats;
};

// Every hazard of the trace, in order of the later op's start.
std::vector<Hazard> FindHazards(const TraceModel& model, const HappensBefore& order, const HazardOptions& options,
                                HazardScanStats* stats = nullptr);
// The same from accesses already resolved (ResolveAccesses).
std::vector<Hazard> FindHazards(const TraceModel& model, const HappensBefore& order, ResolvedAccesses resolved,
                                const HazardOptions& options, HazardScanStats* stats = nullptr);

// The hazards of `all` (from FindHazards: in order of the later op's start,
// which this relies on) that belong to the window.
HazardsResult SummarizeHazards(const TraceModel& model, const std::vector<Hazard>& all, const Window& window,
                               const HazardOptions& options, const HazardScanStats& stats = {});

// What every window of one trace shares: the order and all hazards, built
// once (a report over many NVTX instances does not rebuild them). The order
// is built only when something needs it: memory_access rows or
// cudaEventElapsedTime reads (a trace without memory tracking costs nothing).
struct TraceHazards {
  std::optional<HappensBefore> order;
  ResolvedAccesses accesses;  // for AnalyzeOwnership of each window
  std::vector<Hazard> all;
  HazardScanStats stats;
};
TraceHazards PrepareHazards(const TraceModel& model, const HazardOptions& options = {});

// Both steps, building the order itself.
HazardsResult AnalyzeHazards(const TraceModel& model, const Window& window, const HazardOptions& options = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_HAZARDS_H_
