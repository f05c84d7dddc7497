// Ownership, after happens_before.h (docs/DEFINITIONS.md): which operation touches which
// memory. The collector's memory_access rows name the submitting call by
// correlation id; this joins them to the GPU ops of that call and groups
// them per allocation, every access in time order.
//
// An access row whose correlation id matches no op (a launch captured into
// a graph, an op record the collector dropped) is counted, never fatal; an
// empty range (0 bytes) is counted and left out. Ranges are [address,
// address + bytes), saturating at 2^64. Rows without an allocation (pageable
// host memory, addresses outside every recorded allocation) form one group,
// allocation -1.
//
// Cost O(a log a + n) for a accesses and n ops. Thread-safe: reads the model.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_OWNERSHIP_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_OWNERSHIP_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// "read", "write", "unknown"
std::string_view AccessName(MemoryAccess::Access a);

// One memory_access row joined to one op.
struct ResolvedAccess {
  int32_t op = -1;   // index into model.ops
  int32_t row = -1;  // index into model.memory_accesses
  MemoryAccess::Access access = MemoryAccess::Access::kUnknown;
  uint64_t lo = 0, hi = 0;  // [lo, hi)
  int64_t allocation = -1;  // index into model.allocations; -1 = none
};

struct ResolvedAccesses {
  std::vector<ResolvedAccess> accesses;  // by allocation, then op start, then row
  int64_t rows = 0;
  int64_t without_op = 0;   // correlation id matched no op
  int64_t empty_range = 0;  // bytes == 0
};
ResolvedAccesses ResolveAccesses(const TraceModel& model);

struct OwnershipOptions {
  int max_accesses_listed = -1;  // per allocation; -1 = all
};

struct AllocationOwnership {
  int64_t allocation = -1;               // index into model.allocations; -1 = outside them
  std::vector<ResolvedAccess> accesses;  // in the window, by op start (capped)
  int64_t access_count = 0;              // in the window, all
  int64_t reads = 0, writes = 0, unknown = 0;
  std::vector<int32_t> streams;  // stream indices that touched it, ascending
  bool shared() const { return streams.size() > 1; }
};

struct OwnershipResult {
  Window window;
  bool has_data = false;                         // the trace holds memory_access rows
  std::vector<AllocationOwnership> allocations;  // touched in the window, by allocation index
  int64_t access_rows = 0, accesses_without_op = 0, accesses_empty = 0;
  int64_t accesses_in_window = 0;
};

// Accesses whose op starts inside the window.
OwnershipResult AnalyzeOwnership(const TraceModel& model, const Window& window, const OwnershipOptions& options = {});
// The same from accesses resolved once (ResolveAccesses) for many windows.
OwnershipResult AnalyzeOwnership(const TraceModel& model, const ResolvedAccesses& resolved, const Window& window,
                                 const OwnershipOptions& options = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_OWNERSHIP_H_
