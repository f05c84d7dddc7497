// Renders the timing audit as JSON, text and result tables.
// Documented in analyzer/README.md ("Ownership, hazards and timing audit").
//
// JSON (stable keys; times trace-clock ns):
//   "timing_audit": { "analysis": "timing_audit", "checked_events": bool,
//     "elapsed": {"count", "undetermined", "missing_work", "reads": [read]},
//     "nvtx": {"ranges", "with_gpu_work", "incomplete",
//              "totals": [{"name", "ranges", "with_gpu_work", "incomplete",
//                          "max_overrun_ns", "total_overrun_ns"}],
//              "worst": [{"name", "tid", "start_ns", "end_ns", "push_pop", "ops",
//                         "ops_after_end", "last_end_ns", "overrun_ns", "last_op"}]} }
//   read  = {"read_ns", "elapsed_ms", "determined", "measured_ns",
//            "start": event, "stop": event,
//            "inside": {"busy_ns", "events_stream_ns", "other_streams_ns"},
//            "scope": {"ops", "other_stream_ops", "busy_ns", "outside_ns",
//                      "ops_outside", "last_end_ns"},
//            "running_at_stop": {"count", "until_ns", "ops": [op ref]},
//            "misses_work", "sentence"}
//   event = {"event_handle", "stream_id", "record_call_ns", "determined",
//            "gpu_ns", "after_op": op ref | null, "upper_ns" | null}
// Tables: analysis_timing_audit (one row per read), analysis_timing_audit_nvtx
//   (per range name), analysis_timing_audit_nvtx_range (listed incomplete ranges).
#ifndef STREAMSCOPE_ANALYZER_RENDER_TIMING_AUDIT_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_TIMING_AUDIT_RENDER_H_

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/memory/timing_audit.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

std::string ElapsedAuditSentence(const TraceModel& model, const ElapsedAudit& audit);

nlohmann::json TimingAuditToJson(const TimingAuditResult& result, const TraceModel& model);
void RenderTimingAuditText(const TimingAuditResult& result, const TraceModel& model, int top, std::ostream& out);
std::vector<ResultTable> TimingAuditToTables(const TimingAuditResult& result, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_TIMING_AUDIT_RENDER_H_
