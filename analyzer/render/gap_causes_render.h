// Renders a GapCausesResult as JSON, text and result tables.
//
// JSON (stable; times in trace-clock ns, shares as fractions 0..1):
//   { "analysis": "gap_causes",
//     "window": {label, start_ns, end_ns, length_ns},
//     "options": {submission_latency_threshold_ns, dependency_tolerance_ns, max_listed_gaps},
//     "idle_ns",                       // all devices together
//     "causes": [{cause, cpu_starvation, ns, share_of_idle}],   // all devices, ns > 0
//     "devices": [{device_id, window_ns, busy_ns, idle_ns, idle_share_of_window, gaps,
//                  causes: {<cause>: ns}}],
//     "totals": [{device_id, cause, api_name, nvtx_name, tid, ns, share_of_idle, gaps}],
//                                      // api_name: the blocking call's name (host_blocked_in_call,
//                                      // first_launch), the waiting call's (round_trip, sync_wait),
//                                      // nvtx_name: the NVTX range's (host_nvtx_range), else null;
//                                      // tid null = none
//     "threads": [{tid, device_id, starved_ns, share_of_window, gaps, causes: {<cause>: ns}}],
//     "worst_gaps": [{device_id, start_ns, end_ns, length_ns, primary_cause,
//                     prev_op, next_op,     // op objects or null
//                     api: {id, name, tid, start_ns, end_ns} or null,
//                     parts: [{cause, start_ns, end_ns, length_ns, api_id, api_name,
//                              nvtx_range_id, nvtx_name}]}] }
//   An op object: {table ("kernel"/"memcpy"/"memset"), id (row id in that
//   table), category, name, stream_id, device_id, start_ns, end_ns}.
//
// Tables:
//   analysis_gap_causes: window, device_id, cause, cpu_starvation (0/1),
//     api_name, nvtx_name (as in JSON; NULL for none), tid (NULL for causes
//     not tied to a thread), ns, share_of_idle, gaps — one row per GapCauseTotal.
//   analysis_gap_worst: window, rank, device_id, start_ns, end_ns, length_ns,
//     primary_cause, prev_op_table, prev_op_id, next_op_table, next_op_id,
//     next_stream_id, api_id, api_name, tid, api_start_ns.
//   analysis_gap_worst_part: window, rank (joins analysis_gap_worst),
//     part_index, cause, start_ns, end_ns, length_ns, api_id, api_name (the
//     blocking call), nvtx_range_id, nvtx_name (the NVTX range) — one row per
//     part, in time order.
#ifndef STREAMSCOPE_ANALYZER_RENDER_GAP_CAUSES_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_GAP_CAUSES_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json GapCausesToJson(const GapCausesResult& result, const TraceModel& model);
void RenderGapCausesText(const GapCausesResult& result, const TraceModel& model, std::ostream& out);
std::vector<ResultTable> GapCausesToTables(const GapCausesResult& result, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_GAP_CAUSES_RENDER_H_
