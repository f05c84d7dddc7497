// `streamscope compare` on trace files: loads one process per file, runs
// the comparison (analyzer/pipeline/compare.h) and renders it.
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_COMPARE_RUNNER_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_COMPARE_RUNNER_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/compare.h"

namespace streamscope {

// The one process of a trace file that ran GPU work. FAILED_PRECONDITION
// when several processes did (convert the file into one per process), and
// the loader's errors.
absl::StatusOr<TraceModel> LoadSingleProcessTrace(const std::string& path);

struct CompareCommandOptions {
  enum class Format { kText, kJson };
  std::vector<std::string> control, variant;
  CompareOptions compare;
  Format format = Format::kText;
};

// Writes the comparison to `out`. OK when VERIFIED, VerdictFailed()
// (commands/command_status.h) otherwise, or the error of a trace.
absl::Status RunCompare(const CompareCommandOptions& options, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_COMPARE_RUNNER_H_
