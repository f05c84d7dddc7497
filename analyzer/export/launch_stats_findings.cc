// AddLaunchStatsFindings (analysis_adapters.h).
#include "absl/strings/str_cat.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {

void AddLaunchStatsFindings(const TraceModel& model, const LaunchStatsResult& launch, AnalysisTracks* out) {
  out->analyses.push_back("launch_stats");
  KernelNames names(model);
  int shown = 0;
  for (const KernelLaunchStats& k : launch.kernels) {
    if (!k.launch_bound() || shown == 5) continue;
    ++shown;
    std::string why = k.api_slower_than_gpu ? "its launch call takes longer than the kernel runs"
                                            : "the gaps between its launches exceed its GPU time";
    out->findings.push_back({"warning", absl::StrCat("launch-bound: ", k.count, " × ", ShortName(names.Get(k.name)),
                                                     " — ", why, " (median launch ", FormatDuration(k.api_ns.median),
                                                     ", median kernel ", FormatDuration(k.gpu_ns.median),
                                                     ", median queue delay ", FormatDuration(k.queue_ns.median), ")")});
  }
  if (launch.graph_removable_ns > 0) {
    out->findings.push_back(
        {"info", absl::StrCat("a CUDA graph could remove up to ", FormatDuration(launch.graph_removable_ns),
                              " of device idle time in ", launch.graph_removable_gaps,
                              " gaps between individually launched kernels")});
  }
}

}  // namespace streamscope
