// Text, JSON and table forms of the operator attribution
// (analyzer/analysis/causes/op_attribution.h): GPU time per PyTorch operator and per
// annotation, and which ones launched each GPU op.
//
// Shown when the trace has CPU-op or annotation ranges (ShouldRender).
// JSON (a window's "op_attribution"):
//   {"has_cpu_ops", "has_annotations", "op_count", "gpu_ns", "ops_without_call",
//    "ops_in_cpu_op", "ops_in_annotation",
//    "by_operator" | "by_top_operator" | "by_annotation":
//      [{"name" (null = under none), "gpu_ns", "share", "op_count",
//        "kernel_count", "copy_count", "memset_count", "instance_count"}]}
//   (every name; text lists the top N).
// Tables (the report adds a leading window_index column):
//   analysis_gpu_time_by_launcher(level, name, gpu_ns, op_count, kernel_count,
//     copy_count, memset_count, instance_count)
//     level: 'operator' (innermost CPU op), 'top_operator' (outermost),
//     'annotation'; name NULL for ops under none.
//   analysis_op_launcher(op_table, op_id, category, name, start_ns, end_ns,
//     api_id, operator, top_operator, annotation)
//     one row per GPU op in the window; name: kernels only; api_id: the
//     submitting call's source id (NULL if unknown); range names NULL if none.
#ifndef STREAMSCOPE_ANALYZER_RENDER_OP_ATTRIBUTION_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_OP_ATTRIBUTION_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/causes/op_attribution.h"
#include "analyzer/base/result_table.h"
#include "analyzer/render/render_options.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// The report shows the section only for traces with CPU-op or annotation
// ranges (and tables/JSON only then).
bool ShouldRenderOpAttribution(const OpAttributionResult& result);

nlohmann::json OpAttributionToJson(const OpAttributionResult& result, const TraceModel& model);
void RenderOpAttributionText(const OpAttributionResult& result, const TraceModel& model, const RenderOptions& options,
                             std::ostream& out);
// The per-op table's rows are generated on demand: `result` and `model` must
// outlive the tables.
std::vector<ResultTable> OpAttributionToTables(const OpAttributionResult& result, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_OP_ATTRIBUTION_RENDER_H_
