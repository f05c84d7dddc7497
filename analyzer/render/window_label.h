// The one wording of a window's label ("whole trace", "NVTX 'step' #3",
// "steady state: 12 instances of NVTX range 'step'", ...) from the data that
// says how it was chosen (analysis/windows/window.h WindowOrigin). Used wherever a
// label is printed or written: text, JSON, CSV, saved tables, the HTML page
// and the Perfetto metadata.
#ifndef STREAMSCOPE_ANALYZER_RENDER_WINDOW_LABEL_H_
#define STREAMSCOPE_ANALYZER_RENDER_WINDOW_LABEL_H_

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// kUnnamed: ""; kWholeTrace: "whole trace"; kWholeTraceNoGpuOp: "whole trace
// (no GPU op)"; kGpuActivity: "GPU activity (no steady state found)";
// kWholeGpuActivity: "whole GPU activity"; kExplicit: "explicit [+1000 ns,
// +5000 ns)" (relative) or "explicit [1000 ns, 5000 ns)"; kNvtxInstance:
// "NVTX 'step' #3", "NVTX 'step' #3 (open at capture end)";
// kNvtxInstanceSpan: "NVTX 'step' #1 to #12 (their span)"; the steady
// states: "steady state: " and SteadyStateText; kNamed: the name as read.
// A window cut to its first N ops ends in ", cut to its first N ops".
std::string WindowLabel(const WindowOrigin& origin);
inline std::string WindowLabel(const Window& window) { return WindowLabel(window.origin); }

// A steady-state window's label without its "steady state: " prefix: "12
// instances of NVTX range 'step'", "10 repeats of a sequence of 3 kernels";
// the label of any other window.
std::string SteadyStateText(const WindowOrigin& origin);

// For each window of `model` that --clip cut to the trace (origin.clipped):
// "streamscope: PATH: note: the window explicit [...] reached outside the
// trace; --clip cut it to [+A ns, +B ns) ([S ns, E ns) on the trace clock)"
// on `err`. The commands with window options say it, so that a cut window
// is never taken for the one asked.
void NoteClippedWindows(const TraceModel& model, const std::vector<Window>& windows, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_WINDOW_LABEL_H_
