// A self-contained HTML report (no network, no CDN: inline CSS, JS and SVG).
// The first screen holds the report's summary beside its diagnosis, then
// the legend and an SVG timeline of the chosen window (a row per stream
// with kernels and copies coloured by category; rows for overlap intervals,
// idle gaps by cause, hidden-sync markers, API calls per host thread, NVTX
// ranges and the critical path; hover text with details; wheel zoom, drag
// pan, double-click or "reset" back to the opening view, "all" for the
// whole drawn window). Below: notes, the traces (devices, totals, workload
// and validation marks), the analyses' findings and histograms of launch
// queue delay and idle gap length. Ops, API calls and analysis slices are
// page data (html_timeline_data.h) that the script draws: as density where
// a row is denser than the view can show, as items when zoomed in. Colours
// come from one table (html_palette.h).
// The page opens on each timeline's `view` (the analyses' window).
//
// Several timelines (e.g. `compare`: control above variant) share one time
// axis that starts at each timeline's window start. Huge windows are
// downsampled (op_downsampler.h) and the report says so in its notes.
//
// DOM contract (the browser test and users' scripts rely on it; analyzer/
// EXPORT.md has it whole): <body data-render-ok="1"> once the script ran
// without error; <pre id="report-summary"> the report's summary lines;
// <ol id="diagnosis"> with <li class="finding"> (the first also "primary"),
// each with <span class="remedy">; <svg id="tl-svg" data-view-start=US
// data-view-width=US> the opening view, µs from the drawn window's start,
// and data-view-start-ns/-end-ns, the first timeline's opening window in
// trace-clock ns; its viewBox is the current view. It holds <g
// class="stream-row" data-timeline=T data-device=D data-stream=ID
// data-lane=L data-row=R> that the script fills with <rect class="op
// CATEGORY"> (aggregates "op agg CATEGORY", density columns "op density
// CATEGORY"), <g class="api-row" data-tid data-depth data-row> with <rect
// class="api">, <g class="overlap-row" data-pair="compute|H2D"> with <rect
// class="ovl">, <g class="gap-row"> with <rect class="gap cause-CAUSE">,
// <g class="sync-row"> with markers.
// Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_HTML_REPORT_H_
#define STREAMSCOPE_ANALYZER_EXPORT_HTML_REPORT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/export/analysis_tracks.h"
#include "analyzer/export/output_file.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct HtmlTimelineInput {
  std::string label;  // "control", "variant"; empty for a single trace
  const TraceModel* model = nullptr;
  Window window;
  const AnalysisTracks* analysis = nullptr;  // may be null
  // The window the page opens on (the analyses' window: the report's
  // default or the one asked for), inside `window`; empty: all of `window`.
  Window view{};
  // The trace's summary (PrepareTrace): its capture, workload and
  // warnings on the page; null: left out.
  const TraceSummary* summary = nullptr;
};

struct HtmlReportOptions {
  std::string title = "streamscope report";
  // Ops drawn individually over all timelines; beyond, short ops are merged
  // into aggregate blocks. < 0: never merge.
  int64_t max_ops = 200'000;
  int64_t max_analysis_slices_per_track = 10'000;
  int64_t max_nvtx_ranges = 20'000;
  std::string generated_by;  // command line for the footer
};

struct HtmlReportStats {
  int64_t ops_in_windows = 0;
  int64_t blocks_drawn = 0;  // individual ops + aggregates
  int64_t aggregate_blocks = 0, ops_in_aggregates = 0;
  int64_t merge_resolution_ns = 0;  // 0 = every op drawn individually
  int64_t stream_rows = 0, overlap_slices = 0, gap_slices = 0, markers = 0, nvtx_ranges = 0;
  int64_t critical_path_slices = 0;
  int64_t api_rows = 0;    // host thread x nesting depth rows of API calls
  int64_t data_items = 0;  // ops, aggregates and API calls the script draws from data
  int64_t bytes = 0;
  std::vector<std::string> notes;  // what was reduced (also in the report)
};

absl::Status WriteHtmlReport(std::span<const HtmlTimelineInput> timelines, const HtmlReportOptions& options,
                             OutputFile* out, HtmlReportStats* stats);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_HTML_REPORT_H_
