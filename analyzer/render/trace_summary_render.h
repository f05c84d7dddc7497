// Text header, JSON and table forms of the trace summary.
//
// Table: analysis_trace_summary(key, value) with keys path, format, pid,
//   capture_end, trace_start_ns, trace_end_ns, workload, param:<k>,
//   validation, count:<kind> (kernels, H2D, ..., api_calls, syncs,
//   nvtx_ranges, nvtx_marks, streams), import:<stat>, collector_dropped,
//   records_dropped, warning:<n>, note:<n>. All values are TEXT.
#ifndef STREAMSCOPE_ANALYZER_RENDER_TRACE_SUMMARY_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_TRACE_SUMMARY_RENDER_H_

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/base/result_table.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// The summary's warnings and notes as sentences, in the order every form
// (text, JSON, tables, the HTML page, stderr) shows them.
std::string TraceWarningText(const TraceWarning& warning);
std::vector<std::string> TraceSummaryWarnings(const TraceSummary& summary);
std::vector<std::string> TraceSummaryNotes(const TraceSummary& summary);

nlohmann::json DeviceJson(const Device& device);
nlohmann::json TraceSummaryToJson(const TraceSummary& summary, const TraceModel& model);
void RenderTraceSummaryText(const TraceSummary& summary, const TraceModel& model, std::ostream& out);
ResultTable TraceSummaryToTable(const TraceSummary& summary);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_TRACE_SUMMARY_RENDER_H_
