// Per-instance breakdown (docs/DEFINITIONS.md "Instances"): the steps of a
// torch.profiler trace (its NVTX ranges "ProfilerStep#<n>", the steps of
// PyTorch's own step time breakdown) when it has two or more, else the
// run's steady state's repeated instances (an NVTX range such as a
// training step, or repeats of a kernel sequence: steady_state.h); one row
// per instance inside the window with its busy and idle time, its
// copy/compute overlap achieved and possible, and its largest idle cause,
// taken from the window's one idle partition (gap_causes.h) cut at the
// instance's bounds; instances much slower than the median are flagged.
//
// An instance has a host span and GPU work:
//   nvtx_range,      the range; its work: the ops whose call started in it;
//   profiler_step
//   kernel_sequence  from the call that submitted the repeat's first kernel
//                    to the one that submitted the next repeat's; its work:
//                    the ops submitted from its first kernel up to the next
//                    repeat's (the last repeat's: up to the next kernel
//                    after the stretch); the first repeat from the steady
//                    state's start.
// Its span runs from when the instance before it finished (or its own
// start, if later) to the later of its host span's end and its GPU work's
// end: a step is done when its GPU work is, as in PyTorch's step time
// breakdown, so a host that runs ahead of the GPU does not make every step
// look instant. Spans are disjoint, in order, and cut to the window (an
// instance wholly outside it has no row; `index` keeps its place). Back-to-
// back NVTX ranges and kernel-sequence repeats tile the default window: the
// rows' idle time adds up to the window's. Window time in no instance (an
// instance's start after the one before it finished: host work between
// ranges that are not back to back) is `outside_ns`, its idle
// `outside_idle_ns`. A window that is one instance of a named NVTX range
// (`--nvtx NAME`) has no rows.
//
// Per row, all devices summed (each device counts the instance's length):
//   busy / idle         idle = the partition's parts inside the span;
//                       busy = span x devices - idle;
//   overlap achieved    a copy (any direction) ran beside a kernel of the
//                       same device; possible = per device min(copy time,
//                       compute time) in the span (the overlap section's
//                       definitions, restricted to the span);
//   largest cause       the gap cause with the most idle time in the span
//                       (its detail: the call or NVTX range holding most of
//                       it), or none without idle time;
//   slow                duration > kSlowInstanceFactor x the median
//                       duration of the window's instances (lower median).
// Cost: O((n + p) log n) for n ops and p gap parts. Thread-safe: reads the
// model and the gap causes' result only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_STEP_BREAKDOWN_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_STEP_BREAKDOWN_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// An instance is slow when it lasts more than this times the median.
inline constexpr double kSlowInstanceFactor = 1.5;

enum class InstanceSource : uint8_t { kNone = 0, kNvtxRange = 1, kKernelSequence = 2, kProfilerStep = 3 };
// "none", "nvtx_range", "kernel_sequence", "profiler_step"
std::string_view InstanceSourceName(InstanceSource s);

struct InstanceRow {
  int32_t index = 0;                 // 0-based, in time order (the instance is index + 1)
  int64_t start_ns = 0, end_ns = 0;  // trace clock, cut to the window
  int32_t nvtx = -1;                 // nvtx_range: the range (index into nvtx_ranges)
  int64_t device_ns = 0;             // span x devices
  int64_t busy_ns = 0, idle_ns = 0;
  int64_t compute_ns = 0, copy_ns = 0;              // union time, summed over devices
  int64_t overlap_ns = 0, overlap_possible_ns = 0;  // copy beside compute; min(copy, compute)
  bool has_cause = false;                           // idle time in the span
  GapCause top_cause = GapCause::kHostUnannotated;
  StringId top_detail = kNoString;  // the call or NVTX range of most of top_cause's time
  int64_t top_cause_ns = 0;
  bool slow = false;
  int64_t length() const { return end_ns - start_ns; }
};

struct StepBreakdown {
  InstanceSource source = InstanceSource::kNone;
  StringId nvtx_name = kNoString;  // nvtx_range
  int64_t period_kernels = 0;      // kernel_sequence
  std::vector<InstanceRow> rows;   // by start; empty unless >= 2 instances in the window
  int64_t median_ns = 0;           // lower median of the rows' durations
  int32_t slow_count = 0;
  int64_t outside_ns = 0;       // window time in no instance
  int64_t outside_idle_ns = 0;  // its idle time, all devices
  int64_t idle_ns = 0;          // the window's idle time (rows + outside)
};

// `gaps` must come from AnalyzeGapCauses over `window` with keep_parts.
StepBreakdown AnalyzeStepBreakdown(const TraceModel& model, const Window& window, const GapCausesResult& gaps);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_STEP_BREAKDOWN_H_
