#include "analyzer/render/compare_windows_render.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

std::string GpuSpanWhy(const RunWindow& r) {
  switch (r.why) {
    case GpuSpanReason::kAskedFor: return "asked for with --window whole";
    case GpuSpanReason::kNoSteadyState: return "no steady state found";
    case GpuSpanReason::kSteadyStateUnused:
      return absl::StrCat("its steady state (", SteadyStateText(r.steady_state), ") is not used: another run has none");
    case GpuSpanReason::kSteadyStateOtherWork:
      return absl::StrCat("its steady state (", SteadyStateText(r.steady_state),
                          ") does other work per instance than the first control run's");
  }
  return "";
}

// "control: <description>" with each distinct description of the side once.
std::string SideText(const char* side, const std::vector<RunWindow>& runs) {
  std::vector<std::string> seen;
  for (const RunWindow& r : runs) {
    std::string d = RunWindowDescription(r);
    if (std::find(seen.begin(), seen.end(), d) == seen.end()) seen.push_back(std::move(d));
  }
  return absl::StrCat(side, ": ", absl::StrJoin(seen, " / "));
}

// The instance counts of all runs: "12" when equal, else "12 vs 20" (control
// counts, then variant counts, each distinct once per side).
std::string CountsText(const CompareWindowNote& n, bool* equal) {
  std::vector<int64_t> counts[2];
  *equal = true;
  if (n.steady_control.empty()) return "";
  int64_t first = n.steady_control.front().instances;
  for (int side = 0; side < 2; ++side) {
    for (const RunWindow& r : side == 0 ? n.steady_control : n.steady_variant) {
      if (std::find(counts[side].begin(), counts[side].end(), r.instances) == counts[side].end()) {
        counts[side].push_back(r.instances);
      }
      *equal &= r.instances == first;
    }
  }
  if (*equal) return absl::StrCat(first);
  return absl::StrCat(absl::StrJoin(counts[0], "/"), " vs ", absl::StrJoin(counts[1], "/"));
}

}  // namespace

std::string RunWindowUnit(const RunWindow& r) {
  if (r.source == "steady_state_nvtx_range" || r.source == "nvtx_range") {
    return absl::StrCat("NVTX range '", r.nvtx_name, "'");
  }
  if (r.source == "steady_state_kernel_sequence") {
    return absl::StrCat("a sequence of ", r.period_kernels, r.period_kernels == 1 ? " kernel" : " kernels");
  }
  return "";
}

std::string RunWindowDescription(const RunWindow& r) {
  if (r.source == "gpu_span") return absl::StrCat("GPU span, first GPU op to last (", GpuSpanWhy(r), ")");
  if (r.source == "nvtx_range") {
    if (r.nvtx_instance) return absl::StrCat("instance ", *r.nvtx_instance, " of NVTX range '", r.nvtx_name, "'");
    return absl::StrCat(r.windows.size(), r.windows.size() == 1 ? " instance" : " instances", " of NVTX range '",
                        r.nvtx_name, "'");
  }
  return r.windows.empty() ? std::string() : WindowLabel(r.windows.front());
}

std::string WorkDifferenceText(const WorkDifference& d) {
  std::string key = d.kind == "kernel" ? absl::StrCat("kernel '", d.key, "'") : absl::StrCat(d.key, " ", d.kind);
  if (d.expected_instances == 0) return absl::StrCat(key, ": ", d.actual_count, " vs ", d.expected_count);
  return absl::StrCat(key, ": ", d.actual_count, " in ", d.actual_instances, " instances vs ", d.expected_count, " in ",
                      d.expected_instances);
}

std::string CompareWindowNoteText(CompareWindowRule rule, const CompareWindowNote& n) {
  switch (rule) {
    case CompareWindowRule::kSteadyStateMatched: {
      bool equal = true;
      std::string counts = CountsText(n, &equal);
      std::string s =
          absl::StrCat("steady states matched per instance (", SideText("control", n.steady_control), "; ",
                       SideText("variant", n.steady_variant), "): ",
                       equal ? absl::StrCat("each run has ", counts, " instances")
                             : absl::StrCat("instance counts differ (", counts, "), work compared per instance"));
      if (n.work_differs_everywhere) {
        absl::StrAppend(&s, "; the work per instance differs, and so does the whole GPU activity's");
      }
      return s;
    }
    case CompareWindowRule::kGpuSpanWorkDiffers:
      return absl::StrCat("the runs' steady states (", SideText("control", n.steady_control), "; ",
                          SideText("variant", n.steady_variant), ") do different work per instance (",
                          n.difference ? WorkDifferenceText(*n.difference) : std::string(),
                          "), while the whole GPU activity of every run does the same work: compared over "
                          "the GPU span of every run");
    case CompareWindowRule::kGpuSpanNoSteadyState: {
      std::vector<std::string> without;
      for (const CompareWindowNote::Run& r : n.without_steady_state) {
        without.push_back(absl::StrCat(r.control ? "control " : "variant ", r.path));
      }
      return absl::StrCat("no steady state in ", absl::StrJoin(without, ", "),
                          " (no NVTX range repeated with most of the GPU time, no repeating kernel sequence): "
                          "every run is compared over its GPU span, first GPU op to last, not a steady window "
                          "against a whole run");
    }
    case CompareWindowRule::kSteadyStateSameRange:
    case CompareWindowRule::kNvtxMeasured:
    case CompareWindowRule::kNvtx:
    case CompareWindowRule::kWholeGpu: break;
  }
  return "";
}

}  // namespace streamscope
