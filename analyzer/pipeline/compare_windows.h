// Which window each compare run uses, and whether the runs are compared per
// instance (time per repeated instance, e.g. per training step) or over the
// whole window (analyzer/COMPARE.md "Windows"). By default, first rule that
// applies:
//   steady_state_same_range  every run's steady state (steady_state.h) is
//                            the same NVTX range: each run's steady-state
//                            window, per instance of the range;
//   nvtx_measured            every trace has the NVTX range 'measured' (the
//                            reference workloads' measured part): its
//                            instances, summed;
//   steady_state_matched     every run has a steady state, but they are
//                            different NVTX ranges or repeating kernel
//                            sequences: each run's steady-state window, per
//                            instance, with a note naming every side's
//                            window; checked on the work per instance;
//   gpu_span_work_differs    as steady_state_matched, but the work per
//                            instance differs between runs while the
//                            whole GPU activity's work is the same (a
//                            kernel sequence that is a part of a step, not
//                            a step): every run's GPU span, whole window;
//   gpu_span_no_steady_state some run has no steady state: every run's GPU
//                            span (first GPU op start to last GPU op end),
//                            whole window, naming the runs without one.
// A steady window is never compared with a whole run: all runs use steady
// windows, or all use their GPU span. Asked for: --nvtx NAME (rule nvtx:
// the range's instances, summed), --window whole (rule whole_gpu).
// Per instance whenever some run's windows hold more than one instance.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_WINDOWS_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_WINDOWS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/compare_work.h"

namespace streamscope {

struct CompareOptions;

enum class CompareWindowRule : uint8_t {
  kSteadyStateSameRange = 0,
  kNvtxMeasured = 1,
  kSteadyStateMatched = 2,
  kGpuSpanWorkDiffers = 3,
  kGpuSpanNoSteadyState = 4,
  kNvtx = 5,      // --nvtx NAME
  kWholeGpu = 6,  // --window whole
};
// "steady_state_same_range", "nvtx_measured", "steady_state_matched",
// "gpu_span_work_differs", "gpu_span_no_steady_state", "nvtx", "whole_gpu"
std::string_view CompareWindowRuleName(CompareWindowRule r);

// Why a run is compared over its GPU span (RunWindow::why).
enum class GpuSpanReason : uint8_t {
  kAskedFor = 0,              // --window whole
  kNoSteadyState = 1,         // the run has none
  kSteadyStateUnused = 2,     // it has one, another run has none
  kSteadyStateOtherWork = 3,  // its steady state does other work per instance than the first control run's
};

// One run's window(s). What one instance is ("NVTX range 'step'", "a
// sequence of 5 kernels") and the run's window and why, in words ("steady
// state: 12 instances of NVTX range 'step'", "GPU span, first GPU op to
// last (no steady state found)"), are worded from these fields by
// render/compare_windows_render.h (RunWindowUnit, RunWindowDescription).
struct RunWindow {
  std::vector<Window> windows;
  // "steady_state_nvtx_range", "steady_state_kernel_sequence", "nvtx_range"
  // (a named range's instances), "gpu_span".
  std::string source;
  std::string nvtx_name;                         // steady_state_nvtx_range, nvtx_range: the range
  int64_t period_kernels = 0;                    // steady_state_kernel_sequence: kernels per repeat
  std::optional<int> nvtx_instance;              // nvtx_range: the one instance asked for (1-based)
  GpuSpanReason why = GpuSpanReason::kAskedFor;  // gpu_span
  // gpu_span with kSteadyStateUnused or kSteadyStateOtherWork: the run's
  // steady-state window.
  WindowOrigin steady_state;
  int64_t instances = 1;
  // Steady states: the GPU start of each instance (of the first op
  // submitted in an NVTX instance; of the first kernel of a sequence's
  // repeat), ascending. The time per instance is the mean of their
  // differences, leaving out those over 3x the median when they are few
  // (at most 2 or a tenth: a one-off slow instance, autotuning, a graph's
  // instantiation; more are the loop's rhythm and count): the loop's
  // period, whether the GPU or the host sets it.
  std::vector<int64_t> instance_starts_ns;
};

// Why these windows, for the rules that name both sides' windows
// (kSteadyStateMatched and the GPU span rules); worded by
// render/compare_windows_render.h (CompareWindowNoteText).
struct CompareWindowNote {
  // kSteadyStateMatched, kGpuSpanWorkDiffers: every run's steady-state
  // window, one per run, in run order.
  std::vector<RunWindow> steady_control, steady_variant;
  // kSteadyStateMatched: the work per instance differs, and so does the
  // whole GPU activity's.
  bool work_differs_everywhere = false;
  // kGpuSpanWorkDiffers: the first difference in work per instance.
  std::optional<WorkDifference> difference;
  // kGpuSpanNoSteadyState: the runs without a steady state, in run order.
  struct Run {
    bool control = true;  // else variant
    std::string path;
  };
  std::vector<Run> without_steady_state;
};

struct CompareWindowChoice {
  CompareWindowRule rule = CompareWindowRule::kGpuSpanNoSteadyState;
  bool per_instance = false;  // some run's windows hold more than one instance
  std::string nvtx_name;      // kSteadyStateSameRange, kNvtxMeasured, kNvtx
  // Why these windows, naming both sides' windows when they differ
  // (kSteadyStateMatched and the GPU span rules; no note otherwise).
  CompareWindowNote note;
  std::vector<RunWindow> control, variant;  // one per run, in run order
};

// The windows of every run under options' rule (above). OUT_OF_RANGE when
// --nvtx names a range a trace lacks; INVALID_ARGUMENT when a trace has no
// GPU op.
absl::StatusOr<CompareWindowChoice> ChooseCompareWindows(const std::vector<const TraceModel*>& control,
                                                         const std::vector<const TraceModel*>& variant,
                                                         const CompareOptions& options);

// A run's GPU span: first GPU op start to last GPU op end (INVALID_ARGUMENT
// without GPU ops).
absl::StatusOr<Window> GpuSpanWindow(const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_WINDOWS_H_
