// Renders a LaunchStatsResult as JSON, text and result tables.
//
// JSON (stable; times in trace-clock ns, shares as fractions 0..1):
//   { "analysis": "launch_stats",
//     "window": {label, start_ns, end_ns, length_ns},
//     "options": {max_listed, min_launches_for_launch_bound},
//     "launch_bound_rule": "<the rule in words>",
//     "kernels", "graph_kernels", "no_api_kernels", "launch_bound_kernels",
//     "graph_removable_ns", "graph_removable_gaps", "graph_removable_share_of_window",
//     "graph_kernel_gap_ns",
//     "first_launch_outliers": [{name, api_id, call_ns, median_ns, excess_ns}],
//     "by_name": [{name, from_graph, count, no_api_count,
//                  api_ns, queue_ns, gpu_ns,   // {count, min, median, p90, p99, max, mean, total}
//                  idle_before_ns, idle_before_count, graph_removable_ns,
//                  graph_removable_gaps, launch_bound, launch_bound_reasons: [..],
//                  first_op, max_queue_op}],   // op objects (or null), every group
//     "streams": [{stream_id, device_id, kernels, idle_between_ns,
//                  graph_removable_ns, graph_removable_gaps}],
//     "worst_removable_gaps": [{prev_op, next_op, idle_ns,
//                  api: {id, name, tid, start_ns, end_ns}}] }   // largest first
//   launch_bound_reasons holds "api_slower_than_gpu" and/or "launch_gaps_exceed_gpu".
//   An op object: {table, id, name, stream_id, device_id, start_ns, end_ns}.
//
// Tables:
//   analysis_launch_stats: window, name, from_graph, count, no_api_count,
//     api_{min,median,p90,p99,max}_ns, api_mean_ns, queue_{min,median,p90,p99,max}_ns,
//     queue_mean_ns, gpu_{min,median,p90,p99,max}_ns, gpu_mean_ns, gpu_total_ns,
//     idle_before_ns, graph_removable_ns, graph_removable_gaps, launch_bound (0/1),
//     launch_bound_reason, first_op_id, max_queue_op_id (kernel table ids).
//   analysis_launch_stats_streams: window, stream_id, device_id, kernels,
//     idle_between_ns, graph_removable_ns, graph_removable_gaps.
//   analysis_launch_stats_gaps (the worst removable gaps): window, rank,
//     stream_id, device_id, prev_op_id, prev_end_ns, next_op_id,
//     next_start_ns, idle_ns, api_id, api_start_ns, tid.
#ifndef STREAMSCOPE_ANALYZER_RENDER_LAUNCH_STATS_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_LAUNCH_STATS_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json LaunchStatsToJson(const LaunchStatsResult& result, const TraceModel& model);
void RenderLaunchStatsText(const LaunchStatsResult& result, const TraceModel& model, std::ostream& out);
std::vector<ResultTable> LaunchStatsToTables(const LaunchStatsResult& result, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_LAUNCH_STATS_RENDER_H_
