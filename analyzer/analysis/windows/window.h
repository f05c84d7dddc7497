// The time window an analysis looks at (docs/DEFINITIONS.md "Windows": whole trace,
// an NVTX range by name — one instance, the k-th, or all — or explicit times).
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// How a window was chosen: the data its label is worded from
// (render/window_label.h WindowLabel, the one place that words it).
enum class WindowKind : uint8_t {
  kUnnamed = 0,           // built by hand (tests, internal steps): no label
  kWholeTrace,            // first to last GPU op or API call
  kWholeTraceNoGpuOp,     // the default window of a trace without GPU ops
  kGpuActivity,           // the default window without a steady state: the GPU span
  kWholeGpuActivity,      // compare's GPU span (first GPU op to last)
  kExplicit,              // --from / --to, as asked
  kNvtxInstance,          // one instance of a named NVTX range
  kNvtxInstanceSpan,      // instances 1 to `count` of a named NVTX range, their span (export)
  kSteadyNvtxRange,       // steady state: `count` instances of an NVTX range
  kSteadyKernelSequence,  // steady state: `count` repeats of `period_kernels` kernels
  kNamed,                 // a label read from a file (rank facts JSON), kept as read
};

struct WindowOrigin {
  WindowKind kind = WindowKind::kUnnamed;
  // kNvtxInstance, kNvtxInstanceSpan, kSteadyNvtxRange: the NVTX range
  // name; kNamed: the label as read.
  std::string name;
  int64_t instance = 0;  // kNvtxInstance: 1-based
  // kNvtxInstanceSpan, kSteadyNvtxRange: instances; kSteadyKernelSequence: repeats.
  int64_t count = 0;
  int64_t period_kernels = 0;        // kSteadyKernelSequence
  bool open_at_capture_end = false;  // kNvtxInstance: the range was still open
  // kExplicit: the times as asked, offsets from the trace start when
  // `relative`, else absolute.
  bool relative = false;
  int64_t asked_start_ns = 0, asked_end_ns = 0;
  // kExplicit: the window asked reached outside the trace and was cut to it
  // (WindowSpec::clip); the Window's start_ns/end_ns are the cut window.
  bool clipped = false;
  // Cut to its first N ops (the export's op limit); nullopt when not cut.
  std::optional<int64_t> cut_to_ops;
};

struct Window {
  int64_t start_ns = 0;
  int64_t end_ns = 0;   // exclusive
  WindowOrigin origin;  // how it was chosen (its label: render/window_label.h)
  Interval interval() const { return {start_ns, end_ns}; }
  int64_t length() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

// What the user asked for on the command line. kDefault (nothing asked):
// the default window of every command (docs/DEFINITIONS.md), the run's
// steady state when one is found, else the span of GPU activity
// (steady_state.h); `--window whole` asks for kWholeTrace.
struct WindowSpec {
  enum class Kind { kDefault, kWholeTrace, kNvtxRange, kExplicit };
  Kind kind = Kind::kDefault;
  std::string nvtx_name;             // kNvtxRange
  std::optional<int> nvtx_instance;  // 1-based; nullopt = all instances
  int64_t start_ns = 0, end_ns = 0;  // kExplicit (trace clock)
  // kExplicit: start_ns/end_ns are offsets from the whole-trace window's
  // start (the first GPU op or API call) instead of absolute trace times.
  bool relative_to_trace_start = false;
  // kExplicit: a window reaching outside the trace is cut to the trace's
  // bounds instead of being refused.
  bool clip = false;
};

// From the first to the last GPU op or API call (an empty window at 0 if the
// trace holds neither).
Window WholeTraceWindow(const TraceModel& model);

// The trace's bounds for a message that refuses a window: "which spans [+0
// ns, +L ns) from its start ([S ns, E ns) on the trace clock)", `whole`
// being WholeTraceWindow.
std::string TraceBoundsText(const Window& whole);

// The windows a spec selects in one trace. Default = DefaultWindow()
// (steady_state.h; the whole trace when it holds no GPU op). Whole trace =
// from the first to the last GPU op or API call. OUT_OF_RANGE if an NVTX range name or
// instance does not exist (the message lists the range names that do), and
// if an explicit window reaches outside the whole-trace window (the message
// gives the trace's bounds) unless `spec.clip`, which cuts it to them; a
// window wholly outside is refused either way.
absl::StatusOr<std::vector<Window>> ResolveWindows(const TraceModel& model, const WindowSpec& spec);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_H_
