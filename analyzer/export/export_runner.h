// `streamscope export`: loads traces, resolves the window, runs the analyses
// that feed the timeline's analysis tracks, and writes the Perfetto JSON
// and/or the HTML report. The CLI (analyzer/cli/export_command.cc) only
// parses arguments into ExportOptions. Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_EXPORT_RUNNER_H_
#define STREAMSCOPE_ANALYZER_EXPORT_EXPORT_RUNNER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/window.h"
#include "analyzer/export/analysis_tracks.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct ExportOptions {
  std::vector<std::string> traces;  // the processes of one run
  WindowSpec window;
  std::string perfetto_path, html_path;  // at least one of these three
  std::string perfetto_proto_path;       // Perfetto's protobuf trace (same content as the JSON)
  bool overwrite = false;                // --force: replace existing regular files
  // Ops in the JSON (the window is cut after the first N; < 0: all) and ops
  // drawn individually in the HTML (beyond, downsampled; < 0: all).
  int64_t json_max_ops = -1;
  int64_t html_max_ops = 200'000;
  bool analyses = true;  // run the analyses for the analysis tracks and findings
  std::string title;
  std::string command_line;
};

// The window a spec selects in one model; several NVTX instances become the
// span from the first one's start to the last one's end.
absl::StatusOr<Window> ResolveExportWindow(const TraceModel& model, const WindowSpec& spec);

// The whole-trace window widened to every NVTX range and mark, so a
// whole-trace export also shows host annotations recorded before the first
// or after the last CUDA call (workload and validation marks). Analyses keep
// the unwidened window so their figures match `report`.
Window ExtendToHostItems(const TraceModel& model, const Window& window);

// Runs overlap, gap causes (every gap, up to max_gaps), hidden sync and
// launch statistics on the window and turns them into tracks, findings and plot samples. Also what
// `compare` can use to draw control above variant (html_report.h).
AnalysisTracks AnalyzeForTimeline(const TraceModel& model, const Window& window,
                                  int64_t max_gaps = 200'000);

// Returns an exit code (analyzer/cli/exit_codes.h); progress and notes go to
// `out`, errors to `err` ("streamscope: export: <what>").
int RunExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_EXPORT_RUNNER_H_
