// `streamscope export`: loads traces, resolves the window, runs the analyses
// that feed the timeline's analysis tracks, and writes the Perfetto JSON
// and/or the HTML report. The CLI (analyzer/cli/export_command.cc) only
// parses arguments into ExportOptions. Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_EXPORT_RUNNER_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_EXPORT_RUNNER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/analysis/windows/window.h"

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

// Writes the Perfetto JSON and/or the HTML report; status lines ("wrote
// ...") and notes go to `out` (the CLI passes stderr: they are not data). Failures come back as a Status whose message
// starts "export: ".
absl::Status RunExport(const ExportOptions& options, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_EXPORT_RUNNER_H_
