// `streamscope diagnose`: loads traces, resolves the windows (by default the
// default window of every command: the steady state, else the span of GPU
// activity; analysis/windows/steady_state.h), runs the diagnosis
// through the analysis pipeline and renders it as text or JSON.
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_DIAGNOSE_RUNNER_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_DIAGNOSE_RUNNER_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/window.h"

namespace streamscope {

struct DiagnoseCommandOptions {
  enum class Format { kText, kJson };
  std::vector<std::string> traces;
  // Kept for the CLI; the window is `window` either way (kDefault when
  // nothing was given).
  bool window_given = false;
  WindowSpec window;
  Format format = Format::kText;
  std::string output_path;  // "" = `out`; else the file that receives the diagnosis
  bool force = false;       // replace an existing output file
  DiagnoseOptions diagnose;
};

// Writes the diagnosis of every window to `out` and the traces' warnings
// to `err`; failures come back as a Status naming the file.
absl::Status RunDiagnose(const DiagnoseCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_DIAGNOSE_RUNNER_H_
