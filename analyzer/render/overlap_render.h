// Text, JSON and table forms of the overlap analysis.
//
// Tables (one row per device unless said otherwise; the report adds a
// leading window_index column):
//   analysis_overlap_category(device_id, category, op_count, time_ns, exposed_ns)
//     category: compute, H2D, D2H, D2D, P2P, memset, other_copy, plus 'any'
//     (busy time) and 'any_copy'; exposed_ns: copy time with no kernel running.
//   analysis_overlap_pair(device_id, pair, category_a, category_b, overlapped_ns,
//     possible_ns, hidden_share, interval_count)
//   analysis_overlap_stream_pair(device_id, pair, stream_id_a, stream_id_b, overlapped_ns)
//     stream_id_a ran the pair's category_a, stream_id_b its category_b
//   analysis_overlap_interval(device_id, interval_id, pair, start_ns, end_ns,
//     length_ns, op_count)
//   analysis_overlap_interval_op(device_id, interval_id, op_table, op_id)
#ifndef STREAMSCOPE_ANALYZER_RENDER_OVERLAP_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_OVERLAP_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/base/result_table.h"
#include "analyzer/render/render_options.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json OverlapToJson(const OverlapResult& result, const TraceModel& model, const RenderOptions& options);
void RenderOverlapText(const OverlapResult& result, const TraceModel& model, const RenderOptions& options,
                       std::ostream& out);
// The interval tables read `result` and `model` when written: both must
// outlive the tables.
std::vector<ResultTable> OverlapToTables(const OverlapResult& result, const TraceModel& model);

// "H2D copies overlapped compute for 2.41 ms of 3.10 ms possible (78%)".
std::string OverlapSentence(const PairOverlap& pair);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_OVERLAP_RENDER_H_
