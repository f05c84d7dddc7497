// Text, JSON and table forms of the idle-gap analysis.
//
// Tables (the report adds a leading window_index column):
//   analysis_idle_device(device_id, window_ns, busy_ns, idle_ns, op_count,
//     gap_count, listed_gap_count, listed_gap_ns, threshold_ns)
//   analysis_idle_stream(device_id, stream_id, stream_kind, op_count, busy_ns,
//     idle_ns, gap_count, between_ops_ns, listed_gap_count, listed_gap_ns,
//     longest_gap_ns)
//   analysis_idle_gap(device_id, stream_id, start_ns, end_ns, length_ns,
//     prev_op_table, prev_op_id, next_op_table, next_op_id)
//     every gap >= threshold; stream_id NULL for device gaps (and for ops
//     without a stream); prev_op NULL for a gap that starts at the window
//     start, next_op NULL at its end.
#ifndef STREAMSCOPE_ANALYZER_RENDER_IDLE_GAPS_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_IDLE_GAPS_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/base/result_table.h"
#include "analyzer/render/render_options.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json IdleGapsToJson(const IdleGapsResult& result, const TraceModel& model, const RenderOptions& options);
void RenderIdleGapsText(const IdleGapsResult& result, const TraceModel& model, const RenderOptions& options,
                        std::ostream& out);
std::vector<ResultTable> IdleGapsToTables(const IdleGapsResult& result, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_IDLE_GAPS_RENDER_H_
