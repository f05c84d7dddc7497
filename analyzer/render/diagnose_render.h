// Renders a DiagnoseResult as JSON and text (`streamscope diagnose` runs in
// analyzer/commands/diagnose_runner.cc).
//
// JSON of one window (stable; times in trace-clock ns, shares 0..1):
//   { "analysis": "diagnose",
//     "window": {label, start_ns, end_ns, length_ns},
//     "gpu_span_ns", "busy_ns", "overlap_ns",   // span: first op start to last op end
//     "steps": ["hardware", "memory_type", "dependencies", "hidden_sync",
//               "cpu_starvation", "contention", "small_work"],   // order checked
//     "ranked_by": "estimated_saving" | "check_order", "saving_note": text,
//     "primary": {step, cause} or null,
//     "findings": [{rank, check_order, step, cause, primary, significant, impact_ns,
//                   measured_cost_ns, saving_estimated, estimated_saving_ns (or null),
//                   estimated_saving_share_of_gpu_span (or null),
//                   impact_share_of_gpu_span, impact_share_of_window, summary, remedy,
//                   evidence: {ops: [op objects], calls: [{id, name, tid,
//                              start_ns, end_ns}], tids: [..]},
//                   figures: {name: number}, labels: {name: text}}],
//     "combined": {evaluated, reported, waits_alone_ns, host_alone_ns,
//                  launches_alone_ns (each null when absent), together_ns,
//                  waits_cost_ns, host_cost_ns, launches_cost_ns, summary},
//                  // causes acting on the same gaps (diagnose_ranking.h)
//     "notes": [text] }
//   An op object: {table, id, category, stream_id, start_ns, end_ns, name
//   (kernels) or bytes}. Documented in analyzer/COMPARE.md.
// `streamscope diagnose --format json`:
//   { "schema_version": 3, "generator": "streamscope diagnose",
//     "traces": [{path, pid, workload, validation, windows: [<window JSON>]}] }
#ifndef STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_RENDER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// 2: op refs name a migration in "name" (was "detail"), null for none.
// 3: cpu_starvation labels top_api_name/top_nvtx_name (was top_detail).
inline constexpr int kDiagnoseJsonSchemaVersion = 3;

nlohmann::json DiagnoseToJson(const DiagnoseResult& result, const TraceModel& model);
// "Diagnosis (...):" then the findings in ranking order (primary first),
// each with its measured cost and estimated saving, evidence and remedy;
// `indent` prefixes every line. Findings come in ranking order in JSON too
// (check_order gives the step order).
void RenderDiagnoseText(const DiagnoseResult& result, const TraceModel& model, std::ostream& out,
                        const std::string& indent = "");

// `streamscope diagnose`'s pieces around the windows: "Trace <path> (pid
// N), workload W, validation V" before a trace's text; a trace's JSON
// object with its windows' JSON; the whole document (kDiagnoseJsonSchemaVersion).
void RenderDiagnoseTraceHeader(const TraceModel& model, const TraceSummary& summary, std::ostream& out);
nlohmann::json DiagnoseTraceJson(const TraceModel& model, const TraceSummary& summary, nlohmann::json windows);
void RenderDiagnoseDocument(nlohmann::json traces, std::ostream& out);

// The diagnoses of many windows (instances of one NVTX range), told as
// causes across the instances; only the worst instance is kept in full.
class InstanceCauses {
 public:
  void Add(DiagnoseResult result);
  void Render(const TraceModel& model, std::ostream& out) const;

 private:
  struct Cause {
    int64_t primary = 0, windows = 0, impact_ns = 0, worst_ns = 0;
    std::string worst_label;
  };
  int64_t instances_ = 0, without_primary_ = 0;
  std::string name_;             // "NVTX 'step'"
  std::map<int, Cause> causes_;  // by DiagnoseCause
  std::optional<DiagnoseResult> worst_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_RENDER_H_
