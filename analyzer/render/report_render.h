// Renders what `streamscope report` found (analyzer/commands/report_runner.cc
// runs it): every window of every trace as text, JSON or CSV tables, the
// summary of many NVTX instances, and the totals over several processes.
#ifndef STREAMSCOPE_ANALYZER_RENDER_REPORT_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_REPORT_RENDER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/window_results.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/render_options.h"

namespace streamscope {

// 2: one vocabulary (idle gaps prev_op/next_op, op refs name, null for none).
// 3: gap causes name a part's call api_name and its NVTX range nvtx_name (was
// detail); stream pairs stream_id_a/stream_id_b, hazard groups
// op_a_stream_id/op_b_stream_id (were stream_a/stream_b); diagnose labels
// top_api_name/top_nvtx_name (was top_detail).
inline constexpr int kReportJsonSchemaVersion = 3;

// Per (trace, device) sums over the windows, for the combined summary.
struct DeviceTotals {
  std::string path;
  int64_t pid = 0;
  int32_t device_id = 0;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0, compute_ns = 0, copy_ns = 0, exposed_copy_ns = 0;
  int64_t listed_gaps = 0, listed_gap_ns = 0;
};

struct TraceAnalysis {
  TraceModel model;
  TraceSummary summary;
  // Set when the default window was analyzed: the steady state (or GPU
  // span) it is, and what lies apart from it (start-up, first launches).
  std::optional<SteadyState> default_window;
  std::vector<Window> window_list;            // every window analyzed
  bool windows_are_steps = false;             // the instances of one NVTX range (cross-rank steps)
  std::map<int32_t, DeviceTotals> by_device;  // sums over every window
  // Every window's results; in a text summary of many instances only the
  // longest instance's, and `instances` has the figures of all.
  std::vector<WindowResults> windows;
  std::vector<InstanceFigures> instances;

  // Takes the next window's results: all of them; or, with `summarize`,
  // its figures, and its results only while it is the longest so far.
  void Add(WindowResults w, bool summarize);
};

// The top-level fields of the JSON document besides the traces.
struct ReportJsonHeader {
  WindowSpec window;
  int64_t gap_threshold_ns = 0;
  int top = 0;
  // Names from ReportSectionNames(); empty: all. A window holds only the
  // keys of these sections, and the document lists them in "sections".
  std::vector<std::string> sections;
  // Many traces: their cross-rank merge (pipeline/ranks.h), in "combined".
  const CrossRankResult* ranks = nullptr;
};

// The sections of a report, in the order text prints them: "summary",
// "trace", "instances", "overlap", "idle-gaps", "communication",
// "gap-causes", "hidden-sync", "launch-stats", "diagnose", "critical-path",
// "hazards", "timing-audit", "launchers", "combined" (analyzer/README.md
// says what each holds).
const std::vector<std::string>& ReportSectionNames();
// Whether `name` is among `sections` (empty: every section is).
bool SectionShown(const std::vector<std::string>& sections, std::string_view name);

struct ReportTextOptions {
  std::vector<std::string> sections;  // names from ReportSectionNames(); empty: all
  WindowSpec window;                  // what the user asked for (the summary says why its window)
  // Many traces: their cross-rank merge (pipeline/ranks.h), after the
  // combined totals.
  const CrossRankResult* ranks = nullptr;
};

// The document is written piece by piece, one window at a time, in the
// layout of one dump(2) of the whole (keys in sorted order).
void RenderReportJson(const std::vector<TraceAnalysis>& traces, const ReportJsonHeader& header,
                      const RenderOptions& render, std::ostream& out);
// Each trace opens with its summary (summary_render.h), then the chosen
// sections; lines longer than kReportTextColumns are wrapped
// (text_layout.h).
void RenderReportText(const std::vector<TraceAnalysis>& traces, const RenderOptions& render, std::ostream& out,
                      const ReportTextOptions& text = {});
// All tables of one trace (of `sections` only, when given): the
// trace-level ones, then each per-window table with a leading window_index
// column, rows of all windows together.
std::vector<ResultTable> ReportTables(const TraceAnalysis& t, const std::vector<std::string>& sections = {});
// Every table of every trace, each after "# trace:" and "# table:" lines.
void RenderReportCsv(const std::vector<TraceAnalysis>& traces, std::ostream& out,
                     const std::vector<std::string>& sections = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_REPORT_RENDER_H_
