// Text, JSON and table forms of the communication analysis (per window and
// device) and of the cross-rank comparison.
//
// Table (the report adds a leading window_index column):
//   analysis_communication(device_id, comm_kernels, compute_kernels,
//     p2p_copies, comm_ns, compute_ns, overlapped_ns, exposed_comm_ns,
//     hidden_share, p2p_ns, p2p_overlapped_ns)
// The cross-rank comparison spans several traces, so it appears in the text
// and JSON reports only (JSON: "combined"."ranks"), never in one trace's
// saved tables.
#ifndef STREAMSCOPE_ANALYZER_RENDER_COMMUNICATION_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_COMMUNICATION_RENDER_H_

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/overlap_gaps/communication.h"
#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/base/result_table.h"
#include "analyzer/render/render_options.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json CommunicationToJson(const CommunicationResult& result, const TraceModel& model,
                                   const RenderOptions& options);
// Prints nothing when the window holds no communication.
void RenderCommunicationText(const CommunicationResult& result, const TraceModel& model, const RenderOptions& options,
                             std::ostream& out);
std::vector<ResultTable> CommunicationToTables(const CommunicationResult& result);

// One note of the cross-rank merge as a sentence (no final period).
std::string CrossRankNoteText(const CrossRankNote& note);
nlohmann::json CrossRankToJson(const CrossRankResult& result);
void RenderCrossRankText(const CrossRankResult& result, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_COMMUNICATION_RENDER_H_
