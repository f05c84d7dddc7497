#include "analyzer/export/timeline_window.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/run_plan.h"
#include "analyzer/render/graph_memory_render.h"
#include "analyzer/render/summary_render.h"

namespace streamscope {

absl::StatusOr<Window> ResolveExportWindow(const TraceModel& model, const WindowSpec& spec) {
  absl::StatusOr<std::vector<Window>> windows = ResolveWindows(model, spec);
  if (!windows.ok()) return windows.status();
  if (windows->empty()) return absl::OutOfRangeError(absl::StrCat(model.path, ": the window selects nothing"));
  if (windows->size() == 1) return windows->front();
  Window span = windows->front();
  for (const Window& w : *windows) {
    span.start_ns = std::min(span.start_ns, w.start_ns);
    span.end_ns = std::max(span.end_ns, w.end_ns);
  }
  span.origin = WindowOrigin{};
  span.origin.kind = WindowKind::kNvtxInstanceSpan;
  span.origin.name = spec.nvtx_name;
  span.origin.count = static_cast<int64_t>(windows->size());
  return span;
}

Window ExtendToHostItems(const TraceModel& model, const Window& window) {
  Window w = window;
  bool empty = model.ops.size() == 0 && model.api.size() == 0;
  for (const NvtxRange& r : model.nvtx_ranges) {
    w.start_ns = empty ? r.start_ns : std::min(w.start_ns, r.start_ns);
    if (r.end_ns) w.end_ns = std::max(w.end_ns, *r.end_ns);
    empty = false;
  }
  for (const NvtxMark& m : model.nvtx_marks) {
    w.start_ns = empty ? m.ts_ns : std::min(w.start_ns, m.ts_ns);
    w.end_ns = std::max(w.end_ns, m.ts_ns);
    empty = false;
  }
  return w;
}

absl::StatusOr<AnalysisTracks> AnalyzeForTimeline(const TraceModel& model, const Window& window, int64_t max_gaps,
                                                  const WindowSpec* summary_of, bool produce_slices) {
  absl::StatusOr<WindowResults> run = RunPlan(model, window, TimelinePlan(max_gaps, summary_of != nullptr));
  if (!run.ok()) return run.status();
  // Shared with the tracks that produce their slices later.
  const auto results = std::make_shared<const WindowResults>(*std::move(run));
  std::shared_ptr<const void> keep = produce_slices ? results : nullptr;
  AnalysisTracks tracks;
  if (summary_of != nullptr) {
    ReportSummary summary = SummarizeWindow(*results, model, *summary_of);
    tracks.summary_lines = SummaryTextLines(summary, model);
    for (const SummaryFinding& f : summary.top) {
      tracks.diagnosis.push_back({std::string(DiagnoseCauseName(f.cause)), SummarySavingText(f), f.summary, f.change});
    }
    tracks.instances = results->instances;
  }
  AddOverlapTracks(model, results->overlap, &tracks, keep);
  AddGapCauseTracks(model, results->gap_causes, &tracks, keep);
  AddHiddenSyncMarkers(model, results->hidden_sync, &tracks);
  AddLaunchStatsFindings(model, results->launch_stats, &tracks);
  AddCriticalPathTrack(model, results->critical_path, &tracks, keep);
  if (const std::optional<GraphOverMemory>& over = results->critical_path.over_memory) {
    tracks.notes.push_back(absl::StrCat("no critical path track: ", GraphOverMemoryText(*over)));
  }
  return tracks;
}

}  // namespace streamscope
