// Renders a DiagnoseResult (analysis 7) as JSON and text, and runs
// `streamscope diagnose` (load, resolve windows, diagnose, render).
//
// JSON of one window (stable; times in trace-clock ns, shares 0..1):
//   { "analysis": "diagnose",
//     "window": {label, start_ns, end_ns, length_ns},
//     "gpu_span_ns", "busy_ns", "overlap_ns",   // span: first op start to last op end
//     "steps": ["hardware", "memory_type", "dependencies", "hidden_sync",
//               "cpu_starvation", "contention", "small_work"],   // order checked
//     "primary": {step, cause} or null,
//     "findings": [{rank, step, cause, primary, significant, impact_ns,
//                   impact_share_of_gpu_span, impact_share_of_window, summary, remedy,
//                   evidence: {ops: [op objects], calls: [{id, name, tid,
//                              start_ns, end_ns}], tids: [..]},
//                   figures: {name: number}, labels: {name: text}}],
//     "notes": [text] }
//   An op object: {table, id, category, stream_id, start_ns, end_ns, name
//   (kernels) or bytes}. Documented in analyzer/COMPARE.md.
// `streamscope diagnose --format json`:
//   { "schema_version": 1, "generator": "streamscope diagnose",
//     "traces": [{path, pid, workload, validation, windows: [<window JSON>]}] }
#ifndef STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_RENDER_H_

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/diagnose.h"
#include "analyzer/analysis/window.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

inline constexpr int kDiagnoseJsonSchemaVersion = 1;

nlohmann::json DiagnoseToJson(const DiagnoseResult& result, const TraceModel& model);
// "Diagnosis (...):" then the findings, primary first, with evidence and
// remedies; `indent` prefixes every line.
void RenderDiagnoseText(const DiagnoseResult& result, const TraceModel& model, std::ostream& out,
                        const std::string& indent = "");

struct DiagnoseCommandOptions {
  enum class Format { kText, kJson };
  std::vector<std::string> traces;
  // Unset: the NVTX range "measured" when the trace has it, else the whole
  // GPU activity (first GPU op start to last GPU op end).
  bool window_given = false;
  WindowSpec window;
  Format format = Format::kText;
  DiagnoseOptions diagnose;
};

// Returns an exit code from analyzer/cli/exit_codes.h; errors go to `err`
// as "streamscope: <file>: <what>".
int RunDiagnose(const DiagnoseCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_RENDER_H_
