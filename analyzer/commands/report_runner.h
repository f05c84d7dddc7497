// `streamscope report`: loads one or more traces (the processes of one run),
// resolves the window in each, runs every analysis per window, and renders
// the result as text, JSON or CSV; with `save`, also writes the analysis
// tables into each trace. Runs the analysis pipeline (analyzer/pipeline/)
// over every window. The CLI (analyzer/cli/report_command.cc) only
// parses arguments into ReportOptions.
//
// JSON structure (kReportJsonSchemaVersion; documented in analyzer/README.md):
//   { "schema_version": 3, "generator": "streamscope report",
//     "window_spec": {...}, "gap_threshold_ns", "top",
//     "traces": [ { "path", "format", "pid", "summary": {...},
//                   "windows": [ { "index", "label", "start_ns", "end_ns",
//                                  "length_ns", "summary": {...}, "overlap": {...},
//                                  "idle_gaps": {...}, "gap_causes": {...},
//                                  "hidden_sync": {...},
//                                  "launch_stats": {...} } ] } ],
//     "combined": { "devices": [...], "total": {...} } }
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_REPORT_RUNNER_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_REPORT_RUNNER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/analysis/windows/window.h"

namespace streamscope {

struct ReportOptions {
  enum class Format { kText, kJson, kCsv };
  std::vector<std::string> traces;
  WindowSpec window;
  Format format = Format::kText;
  bool save = false;                  // write analysis_* tables into each trace
  int64_t gap_threshold_ns = 10'000;  // idle gaps listed from this length
  int top = 10;                       // worst offenders listed per finding
  std::string output_path;            // "" = `out`; else a file, or with output_is_folder a folder
  bool output_is_folder = false;      // kCsv only: output_path is a folder, one file per table
  bool force = false;                 // replace an existing output file / table files
  int jobs = 1;                       // traces loaded and analyzed at once (threads); same output
  // kText: the sections to print, by name (ReportSectionNames() in
  // render/report_render.h: "summary", "overlap", ...); empty: all.
  std::vector<std::string> sections;
};

// Runs the report; writes the rendering to `out` (or output_path) and the
// traces' warnings to `err`. Failures come back as a Status whose message
// names the file (commands/command_status.h says how the CLI maps it).
absl::Status RunReport(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_REPORT_RUNNER_H_
