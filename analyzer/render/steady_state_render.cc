#include "analyzer/render/steady_state_render.h"

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/window_label.h"

namespace streamscope {

std::string SteadyStateHowFound(const SteadyState& s, const TraceModel& m) {
  switch (s.method) {
    case SteadyStateMethod::kNvtxRange:
      return absl::StrCat(s.nvtx_instances.size(), " instances of NVTX range '",
                          std::string(DisplayName(m.strings, s.nvtx_name)), "' (", FormatShare(s.gpu_share),
                          " of the GPU op time from the first one on was submitted inside them)");
    case SteadyStateMethod::kKernelSequence:
      return absl::StrCat("a sequence of ", s.period_kernels, s.period_kernels == 1 ? " kernel" : " kernels",
                          " repeated ", s.repeats, " times (", FormatShare(s.gpu_share),
                          " of the GPU op time was submitted inside the repeats)");
    case SteadyStateMethod::kGpuSpan:
      return "no repeated NVTX range or kernel sequence: the span of GPU activity (first GPU op to last)";
    case SteadyStateMethod::kNone: return "no GPU op: the whole trace";
  }
  return "";
}

nlohmann::json SteadyStateToJson(const SteadyState& s, const TraceModel& m) {
  nlohmann::json first = nlohmann::json::array();
  for (const FirstLaunchOutlier& f : s.first_launches) {
    first.push_back({{"api_id", f.api >= 0 ? nlohmann::json(m.api.source_id[f.api]) : nlohmann::json(nullptr)},
                     {"api_name", f.api >= 0 ? std::string(DisplayName(m.strings, m.api.name[f.api])) : std::string()},
                     {"kernel", std::string(DisplayName(m.strings, f.kernel))},
                     {"kernel_mangled_name", std::string(m.strings.Get(f.kernel))},
                     {"call_ns", f.call_ns},
                     {"median_ns", f.median_ns},
                     {"excess_ns", f.excess_ns()}});
  }
  nlohmann::json j = {{"method", std::string(SteadyStateMethodName(s.method))},
                      {"label", WindowLabel(s.window)},
                      {"start_ns", s.window.start_ns},
                      {"end_ns", s.window.end_ns},
                      {"length_ns", s.window.length()},
                      {"how_found", SteadyStateHowFound(s, m)},
                      {"gpu_share", s.gpu_share},
                      {"startup",
                       {{"start_ns", s.startup.start},
                        {"end_ns", s.startup.end},
                        {"length_ns", s.startup.end > s.startup.start ? s.startup.end - s.startup.start : 0}}},
                      {"first_launches", first},
                      {"first_launch_excess_ns", s.first_launch_excess_ns},
                      {"counted_as_idle", false}};
  if (s.method == SteadyStateMethod::kNvtxRange) {
    j["nvtx_name"] = std::string(DisplayName(m.strings, s.nvtx_name));
    j["nvtx_instances"] = s.nvtx_instances.size();
  }
  if (s.method == SteadyStateMethod::kKernelSequence) {
    j["period_kernels"] = s.period_kernels;
    j["repeats"] = s.repeats;
  }
  return j;
}

void RenderDefaultWindowText(const SteadyState& s, const TraceModel& m, std::ostream& out, const std::string& indent) {
  out << indent << "Default window: "
      << (s.method == SteadyStateMethod::kNvtxRange || s.method == SteadyStateMethod::kKernelSequence
              ? "the steady state, "
              : "")
      << SteadyStateHowFound(s, m) << "; " << FormatDuration(s.window.length()) << " [" << s.window.start_ns << ", "
      << s.window.end_ns << ") ns. --window whole: the whole trace.\n";
  int64_t startup = s.startup.end > s.startup.start ? s.startup.end - s.startup.start : 0;
  if (startup <= 0 && s.first_launches.empty()) return;
  out << indent << "Reported apart: start-up before the first GPU op " << FormatDuration(startup)
      << " (outside the window: not idle time, not starvation)";
  if (!s.first_launches.empty()) {
    out << "; " << s.first_launches.size() << (s.first_launches.size() == 1 ? " first launch" : " first launches")
        << " much slower than the kernel's other launches (module loading), "
        << FormatDuration(s.first_launch_excess_ns) << " over their medians: ";
    for (size_t i = 0; i < s.first_launches.size() && i < 3; ++i) {
      const FirstLaunchOutlier& f = s.first_launches[i];
      out << (i == 0 ? "" : ", ") << "'" << ShortName(DisplayName(m.strings, f.kernel)) << "' "
          << FormatDuration(f.call_ns) << " vs " << FormatDuration(f.median_ns);
    }
    if (s.first_launches.size() > 3) out << ", ...";
  }
  out << ".\n";
}

}  // namespace streamscope
