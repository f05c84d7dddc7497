// Renders ownership and hazards as JSON, text and result
// tables. Documented in analyzer/README.md ("Ownership, hazards and timing audit").
//
// JSON (stable keys; times trace-clock ns; addresses as integers and hex):
//   "ownership": { "analysis": "ownership", "checked": bool,
//     "access_rows", "accesses_without_op", "accesses_empty", "accesses_in_window",
//     "allocations_touched", "shared_allocations",
//     "shared": [{"allocation": alloc|null, "access_count", "reads", "writes",
//                 "unknown", "streams": [stream ids]}] (top N by accesses) }
//   "hazards": { "analysis": "hazards", "checked": bool,
//     "certain": {"count", "observed_concurrent", "listed": [hazard]},
//     "possible": {"count", "observed_concurrent", "listed": [hazard]},
//     "groups": [{"class", "allocation", "op_a_stream_id", "op_b_stream_id", "count",
//                 "observed_concurrent", "example": hazard}], "groups_total",
//     "access_rows", "accesses_without_op", "accesses_empty", "scans_truncated",
//     "order": {counter: n} (happens-before edges and unusable inputs) }
//   hazard = {"class": "certain"|"possible", "allocation": alloc|null,
//             "range": {"start", "end", "bytes", "start_hex"},
//             "observed_concurrent", "a": {"op": op ref, "access"},
//             "b": {"op": op ref, "access"}, "sentence"}
//   alloc  = {"id", "kind", "address", "address_hex", "bytes", "device_id",
//             "alloc_ns", "free_ns" (null = never freed)}
// Tables (each gets window_index in front in the report):
//   analysis_ownership: every access in the window.
//   analysis_hazard: every hazard in the window (uncapped when the report
//     asks for tables).
//   analysis_hazard_summary: one row per class.
#ifndef STREAMSCOPE_ANALYZER_RENDER_HAZARDS_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_HAZARDS_RENDER_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/memory/ownership.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// "allocation#3 device 4.00 MiB at 0x7f3a00000000", or "memory outside recorded allocations".
std::string AllocationLabel(const TraceModel& model, int64_t allocation);
// One sentence naming the buffer, both ops and the range.
std::string HazardSentence(const TraceModel& model, const Hazard& hazard);

nlohmann::json OwnershipToJson(const OwnershipResult& result, const TraceModel& model, int top);
// `top` caps the listed hazards and groups (-1 = all).
nlohmann::json HazardsToJson(const HazardsResult& result, const TraceModel& model,
                             const std::map<std::string, int64_t>& order_stats, int top);
void RenderHazardsText(const HazardsResult& hazards, const OwnershipResult& ownership, const TraceModel& model, int top,
                       std::ostream& out);
std::vector<ResultTable> HazardsToTables(const HazardsResult& hazards, const OwnershipResult& ownership,
                                         const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_HAZARDS_RENDER_H_
