// The window an export draws, and the analyses drawn on it.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_WINDOW_H_
#define STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_WINDOW_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/export/analysis_tracks.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// The window a spec selects in one model; several NVTX instances become the
// span from the first one's start to the last one's end.
absl::StatusOr<Window> ResolveExportWindow(const TraceModel& model, const WindowSpec& spec);

// The whole-trace window widened to every NVTX range and mark, so a
// whole-trace export also shows host annotations recorded before the first
// or after the last CUDA call (workload and validation marks). Analyses keep
// the unwidened window so their figures match `report`.
Window ExtendToHostItems(const TraceModel& model, const Window& window);

// Runs the timeline's analysis plan (TimelinePlan: overlap, gap causes of
// every gap up to max_gaps, hidden sync, launch statistics, critical path)
// through the pipeline on the window and turns the results into tracks,
// findings and plot samples. With `summary_of` (the spec the window was
// resolved from), also the report's summary and diagnosis of the window
// (summary_lines, diagnosis), as `report` words them. Also what `compare`
// can use to draw control above variant (html_report.h).
// With `produce_slices`, the largest tracks (gaps, critical path) make their
// slices while a writer draws them (AnalysisTrack::produce), keeping the
// analyses' results instead of millions of slices: the tracks are for one
// Perfetto export then, not for the HTML page, which reads `slices`.
absl::StatusOr<AnalysisTracks> AnalyzeForTimeline(const TraceModel& model, const Window& window,
                                                  int64_t max_gaps = 200'000, const WindowSpec* summary_of = nullptr,
                                                  bool produce_slices = false);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_WINDOW_H_
