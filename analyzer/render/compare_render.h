// Renders a CompareResult (analysis 6) as JSON and text, and runs
// `streamscope compare` on trace files (load, one process per file, compare,
// render). The JSON structure is documented in analyzer/COMPARE.md:
//   { "schema_version": 1, "generator": "streamscope compare",
//     "window_rule", "options": {noise_pct, goal, min_overlap_share},
//     "control": [run], "variant": [run],
//     "work": {same, reference, summary: {...}, differences: [...]},
//     "validation": {passed, failures: [...], not_recorded},
//     "overlap_present",
//     "metrics": [{name, control: stats, variant: stats, change_ns, change_pct}],
//     "verdict": {verdict, verified, sentence, failed_conditions, control_total_ns,
//                 variant_total_ns, saved_ns, saved_pct, noise_ns},
//     "diagnose": null or {path, pid, ...diagnose window JSON} }
#ifndef STREAMSCOPE_ANALYZER_RENDER_COMPARE_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_COMPARE_RENDER_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/compare.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

inline constexpr int kCompareJsonSchemaVersion = 1;

nlohmann::json CompareToJson(const CompareResult& result);
void RenderCompareText(const CompareResult& result, std::ostream& out);

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

// kExitOk when VERIFIED, kExitVerdictFailed (10) otherwise, or the error's
// exit code (analyzer/cli/exit_codes.h) with one line on `err`.
int RunCompare(const CompareCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_COMPARE_RENDER_H_
