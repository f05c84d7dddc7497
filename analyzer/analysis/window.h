// The time window an analysis looks at (DESIGN.md "Analyses": whole trace,
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

struct Window {
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // exclusive
  std::string label;   // "whole trace", "NVTX 'measured' #1", "explicit"
  Interval interval() const { return {start_ns, end_ns}; }
  int64_t length() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

// What the user asked for on the command line. kDefault (nothing asked):
// the default window of every command (DESIGN.md "Analyses"), the run's
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
};

// From the first to the last GPU op or API call (an empty window at 0 if the
// trace holds neither).
Window WholeTraceWindow(const TraceModel& model);

// The windows a spec selects in one trace. Default = DefaultWindow()
// (steady_state.h; the whole trace when it holds no GPU op). Whole trace =
// from the first to the last GPU op or API call. OUT_OF_RANGE if an NVTX range name or
// instance does not exist (the message lists the range names that do).
absl::StatusOr<std::vector<Window>> ResolveWindows(const TraceModel& model, const WindowSpec& spec);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_H_
