// Which operator and which annotation launched each GPU op, and GPU time
// per operator and per annotation (what PyTorch users ask first).
//
// For each GPU op in the window, its submitting API call gives a thread and
// a time; the CPU-side ranges open on that thread at that time give:
//   - the innermost and outermost enclosing CPU op (ranges of the
//     torch.cpu_op domain, as the torch.profiler importer writes them:
//     "aten::addmm" inside "aten::linear");
//   - the innermost enclosing annotation: any other range (torch's
//     user_annotation / record_function, or NVTX ranges of a streamscope or
//     Nsight trace).
// A range contains a call that starts in [range start, range end). Works on
// any trace with such ranges; ops whose call is unknown, or outside every
// range, are counted apart.
//
// GPU time is the op's duration clipped to the window, summed per name (so
// concurrent ops add up, as in HTA's kernel breakdown; it is not busy time).
// One pass over the ops and ranges per thread: O(n log n). Pure function;
// thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_OP_ATTRIBUTION_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_OP_ATTRIBUTION_H_

#include <cstdint>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// One GPU op's launchers. Indices into TraceModel::nvtx_ranges; -1 = none.
struct OpLaunchers {
  int32_t op = -1;   // index into TraceModel::ops
  int32_t api = -1;  // the submitting call; -1 if unknown
  int32_t innermost_op = -1;
  int32_t outermost_op = -1;
  int32_t annotation = -1;
};

// Totals of the GPU ops launched under one name.
struct LauncherTotal {
  StringId name = kNoString;  // kNoString: ops under no such range
  int64_t gpu_ns = 0;         // sum of the ops' durations in the window
  int64_t op_count = 0;       // GPU ops
  int64_t kernel_count = 0, copy_count = 0, memset_count = 0;
  int64_t instance_count = 0;  // distinct ranges of this name that launched ops
};

struct OpAttributionResult {
  Window window;
  bool has_cpu_ops = false;      // the trace has torch.cpu_op ranges
  bool has_annotations = false;  // the trace has other ranges
  // The rest is filled only when the trace has ranges.
  int64_t op_count = 0, gpu_ns = 0;          // GPU ops in the window
  int64_t without_call = 0;                  // ops whose submitting call is unknown
  int64_t in_cpu_op = 0, in_annotation = 0;  // ops attributed to some range
  // Every op in the window, in op order (empty when not asked for:
  // AnalyzeOpAttribution's per_op).
  std::vector<OpLaunchers> ops;
  // Sorted by gpu_ns descending, then name; the unattributed row
  // (name kNoString) included where it has ops.
  std::vector<LauncherTotal> by_operator;      // innermost CPU op
  std::vector<LauncherTotal> by_top_operator;  // outermost CPU op
  std::vector<LauncherTotal> by_annotation;    // innermost annotation

  bool any_ranges() const { return has_cpu_ops || has_annotations; }
};

// True for ranges of the torch.profiler importer's CPU-op domain.
bool IsCpuOpRange(const TraceModel& model, const NvtxRange& range);

// `model` must be finalized. Without `per_op`, `ops` is left empty: the
// totals only (20 bytes an op less to hold: the text and JSON read totals).
OpAttributionResult AnalyzeOpAttribution(const TraceModel& model, const Window& window, bool per_op = true);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_OP_ATTRIBUTION_H_
