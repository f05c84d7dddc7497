// Renders a CriticalPath (critical_path.h) as JSON, text and a result table.
//
// JSON (stable; times in trace-clock ns):
//   { "analysis": "critical_path",
//     "window": {label, start_ns, end_ns, length_ns},
//     "start_ns", "end_ns", "length_ns", "host_ns", "gpu_ns", "segment_count",
//     "by_kind": [{kind, side: "host"|"gpu", ns, share, segments}],   // every kind with time, largest first
//     "longest": [{kind, edge, start_ns, end_ns, length_ns, tid, stream_id,
//                  op: op object or null, api: {id, name} or null}],  // the `top` longest
//     "idle": {cited, idle_ns, by_cause: [{cause, ns, crossed_by: [{kind, ns}]}]} }
//   "idle": the device idle time inside the path's span by its cause in the
//   one account of idle time (gap causes), and the path segments that ran
//   meanwhile (PathIdle); cited false when the gap causes were not run.
// Table analysis_critical_path (every segment, in time order): window,
//   segment_index, kind, edge, side, tid, stream_id, start_ns, end_ns,
//   length_ns, op_table, op_id, api_id, api_name.
// Table analysis_critical_path_idle: cause, segment_kind, ns — the idle time
//   along the path by its cause and the kind of segment that crossed it.
#ifndef STREAMSCOPE_ANALYZER_RENDER_CRITICAL_PATH_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_CRITICAL_PATH_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/causes/critical_path.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json CriticalPathToJson(const CriticalPath& path, const TraceModel& model, int top);
void RenderCriticalPathText(const CriticalPath& path, const TraceModel& model, int top, std::ostream& out);
std::vector<ResultTable> CriticalPathToTables(const CriticalPath& path, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_CRITICAL_PATH_RENDER_H_
