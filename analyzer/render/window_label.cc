#include "analyzer/render/window_label.h"

#include "absl/strings/str_cat.h"

namespace streamscope {
namespace {

bool IsSteadyState(WindowKind kind) {
  return kind == WindowKind::kSteadyNvtxRange || kind == WindowKind::kSteadyKernelSequence;
}

// The label without the cut and without a steady state's prefix.
std::string Base(const WindowOrigin& o) {
  switch (o.kind) {
    case WindowKind::kUnnamed: return "";
    case WindowKind::kWholeTrace: return "whole trace";
    case WindowKind::kWholeTraceNoGpuOp: return "whole trace (no GPU op)";
    case WindowKind::kGpuActivity: return "GPU activity (no steady state found)";
    case WindowKind::kWholeGpuActivity: return "whole GPU activity";
    case WindowKind::kExplicit:
      return absl::StrCat(o.relative ? absl::StrCat("explicit [+", o.asked_start_ns, " ns, +", o.asked_end_ns, " ns)")
                                     : absl::StrCat("explicit [", o.asked_start_ns, " ns, ", o.asked_end_ns, " ns)"),
                          o.clipped ? " clipped to the trace" : "");
    case WindowKind::kNvtxInstance:
      return absl::StrCat("NVTX '", o.name, "' #", o.instance, o.open_at_capture_end ? " (open at capture end)" : "");
    case WindowKind::kNvtxInstanceSpan: return absl::StrCat("NVTX '", o.name, "' #1 to #", o.count, " (their span)");
    case WindowKind::kSteadyNvtxRange: return absl::StrCat(o.count, " instances of NVTX range '", o.name, "'");
    case WindowKind::kSteadyKernelSequence:
      return absl::StrCat(o.count, " repeats of a sequence of ", o.period_kernels,
                          o.period_kernels == 1 ? " kernel" : " kernels");
    case WindowKind::kNamed: return o.name;
  }
  return "";
}

std::string Cut(const WindowOrigin& o) {
  return o.cut_to_ops ? absl::StrCat(", cut to its first ", *o.cut_to_ops, " ops") : std::string();
}

}  // namespace

std::string WindowLabel(const WindowOrigin& origin) {
  return absl::StrCat(IsSteadyState(origin.kind) ? "steady state: " : "", Base(origin), Cut(origin));
}

std::string SteadyStateText(const WindowOrigin& origin) { return absl::StrCat(Base(origin), Cut(origin)); }

void NoteClippedWindows(const TraceModel& model, const std::vector<Window>& windows, std::ostream& err) {
  for (const Window& w : windows) {
    if (!w.origin.clipped) continue;
    const Window whole = WholeTraceWindow(model);
    WindowOrigin asked = w.origin;
    asked.clipped = false;
    err << "streamscope: " << model.path << ": note: the window " << WindowLabel(asked)
        << " reached outside the trace; --clip cut it to [+" << w.start_ns - whole.start_ns << " ns, +"
        << w.end_ns - whole.start_ns << " ns) ([" << w.start_ns << " ns, " << w.end_ns << " ns) on the trace clock)\n";
  }
}

}  // namespace streamscope
