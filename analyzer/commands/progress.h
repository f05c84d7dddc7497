// Progress of long work (loading, analyzing, writing), for the CLI's
// progress line (cli/progress_meter.h). Runners say which phase they are
// in; whether and how it is shown is the CLI's business. Without a sink
// (tests, the Python package, a library user) these calls do nothing.
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_PROGRESS_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_PROGRESS_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace streamscope {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // A new phase ("loading trace.sqlite"); `done` of `total` steps so far
  // (total 0: no count). An empty phase means "idle": the runner is about
  // to write to the terminal.
  virtual void Update(absl::string_view phase, int64_t done, int64_t total) = 0;
};

// The process's sink (nullptr: none). Set by the CLI around one command.
void SetProgressSink(ProgressSink* sink);

void ProgressPhase(absl::string_view phase, int64_t done = 0, int64_t total = 0);
// Before writing to stdout or stderr: hides the progress line.
inline void ProgressIdle() { ProgressPhase(""); }

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_PROGRESS_H_
