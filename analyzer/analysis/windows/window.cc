#include "analyzer/analysis/windows/window.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/analysis/windows/steady_state.h"

namespace streamscope {
namespace {

// The explicit window as asked, for error messages (a window that resolves
// is worded by render/window_label.h).
std::string AskedText(const WindowSpec& spec) {
  return spec.relative_to_trace_start ? absl::StrCat("explicit [+", spec.start_ns, " ns, +", spec.end_ns, " ns)")
                                      : absl::StrCat("explicit [", spec.start_ns, " ns, ", spec.end_ns, " ns)");
}

}  // namespace

std::string TraceBoundsText(const Window& whole) {
  return absl::StrCat("which spans [+0 ns, +", whole.length(), " ns) from its start ([", whole.start_ns, " ns, ",
                      whole.end_ns, " ns) on the trace clock)");
}

Window WholeTraceWindow(const TraceModel& model) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  // Ops and API calls are sorted by start; ends need a scan.
  if (model.ops.size() > 0) lo = std::min(lo, model.ops.start_ns.front());
  if (model.api.size() > 0) lo = std::min(lo, model.api.start_ns.front());
  for (int64_t e : model.ops.end_ns) hi = std::max(hi, e);
  for (int64_t e : model.api.end_ns) hi = std::max(hi, e);
  Window w;
  w.origin.kind = WindowKind::kWholeTrace;
  if (lo == INT64_MAX) return w;
  w.start_ns = lo;
  w.end_ns = std::max(lo, hi);
  return w;
}

absl::StatusOr<std::vector<Window>> ResolveWindows(const TraceModel& model, const WindowSpec& spec) {
  Window whole = WholeTraceWindow(model);
  switch (spec.kind) {
    case WindowSpec::Kind::kDefault: {
      const SteadyState& s = DefaultSteadyState(model);
      if (s.method == SteadyStateMethod::kNone) return std::vector<Window>{whole};
      return std::vector<Window>{s.window};
    }
    case WindowSpec::Kind::kWholeTrace: return std::vector<Window>{whole};
    case WindowSpec::Kind::kExplicit: {
      Window w;
      int64_t base = spec.relative_to_trace_start ? whole.start_ns : 0;
      w.origin.kind = WindowKind::kExplicit;
      w.origin.relative = spec.relative_to_trace_start;
      w.origin.asked_start_ns = spec.start_ns;
      w.origin.asked_end_ns = spec.end_ns;
      const std::string asked = AskedText(spec);
      // Offsets near the int64 limits would overflow: such a window is outside any trace.
      if (__builtin_add_overflow(base, spec.start_ns, &w.start_ns) ||
          __builtin_add_overflow(base, spec.end_ns, &w.end_ns)) {
        return absl::OutOfRangeError(
            absl::StrCat(model.path, ": the window ", asked, " lies outside the trace, ", TraceBoundsText(whole)));
      }
      if (w.end_ns <= w.start_ns) {
        return absl::OutOfRangeError(absl::StrCat(model.path, ": the window ", asked, " is empty"));
      }
      if (int64_t length; __builtin_sub_overflow(w.end_ns, w.start_ns, &length)) {
        return absl::OutOfRangeError(absl::StrCat(model.path, ": the window ", asked, " is longer than 2^63 ns"));
      }
      const bool outside = w.end_ns <= whole.start_ns || w.start_ns >= whole.end_ns;
      const bool partly = w.start_ns < whole.start_ns || w.end_ns > whole.end_ns;
      if (outside || (partly && !spec.clip)) {
        return absl::OutOfRangeError(absl::StrCat(model.path, ": the window ", asked,
                                                  outside ? " lies outside" : " reaches outside", " the trace, ",
                                                  TraceBoundsText(whole), outside ? "" : "; --clip cuts it to them"));
      }
      if (partly) {
        w.start_ns = std::max(w.start_ns, whole.start_ns);
        w.end_ns = std::min(w.end_ns, whole.end_ns);
        w.origin.clipped = true;
      }
      return std::vector<Window>{w};
    }
    case WindowSpec::Kind::kNvtxRange: {
      std::vector<const NvtxRange*> matches;  // nvtx_ranges is sorted by start
      for (const NvtxRange& r : model.nvtx_ranges) {
        if (model.strings.Get(r.name) == spec.nvtx_name) matches.push_back(&r);
      }
      if (matches.empty()) {
        std::set<std::string> names;
        for (const NvtxRange& r : model.nvtx_ranges) names.insert(std::string(model.strings.Get(r.name)));
        std::string known = names.empty() ? "the trace has no NVTX ranges"
                                          : absl::StrCat("ranges in this trace: ", absl::StrJoin(names, ", "));
        if (names.size() > 20) {
          std::vector<std::string> first(names.begin(), std::next(names.begin(), 20));
          known =
              absl::StrCat("ranges in this trace: ", absl::StrJoin(first, ", "), ", ... (", names.size(), " names)");
        }
        return absl::OutOfRangeError(
            absl::StrCat(model.path, ": no NVTX range named '", spec.nvtx_name, "' (", known, ")"));
      }
      auto make = [&](const NvtxRange& r, size_t k) {
        Window w;
        w.start_ns = r.start_ns;
        w.end_ns = r.end_ns.value_or(std::max(whole.end_ns, r.start_ns));
        w.origin.kind = WindowKind::kNvtxInstance;
        w.origin.name = spec.nvtx_name;
        w.origin.instance = static_cast<int64_t>(k);
        w.origin.open_at_capture_end = !r.end_ns;
        return w;
      };
      std::vector<Window> out;
      if (spec.nvtx_instance) {
        int k = *spec.nvtx_instance;
        if (k < 1 || static_cast<size_t>(k) > matches.size()) {
          return absl::OutOfRangeError(absl::StrCat(model.path, ": NVTX range '", spec.nvtx_name, "' has ",
                                                    matches.size(), matches.size() == 1 ? " instance" : " instances",
                                                    "; instance ", k, " does not exist"));
        }
        out.push_back(make(*matches[k - 1], k));
      } else {
        for (size_t i = 0; i < matches.size(); ++i) out.push_back(make(*matches[i], i + 1));
      }
      return out;
    }
  }
  return absl::InternalError("unknown window kind");
}

}  // namespace streamscope
