// Renders the default window (steady_state.h): what it is, how it was
// found, and what lies apart from it (start-up, first launches).
//
// JSON: {method: "nvtx_range"|"kernel_sequence"|"gpu_span"|"none", label,
//   start_ns, end_ns, length_ns, how_found: text, gpu_share,
//   nvtx_name, nvtx_instances (nvtx_range), period_kernels, repeats
//   (kernel_sequence), startup: {start_ns, end_ns, length_ns},
//   first_launches: [{api_id, api_name, kernel, call_ns, median_ns, excess_ns}],
//   first_launch_excess_ns, counted_as_idle: false}
#ifndef STREAMSCOPE_ANALYZER_RENDER_STEADY_STATE_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_STEADY_STATE_RENDER_H_

#include <ostream>
#include <string>

#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// "20 instances of NVTX range 'step'", "a sequence of 2 kernels repeated 9 times", ...
std::string SteadyStateHowFound(const SteadyState& s, const TraceModel& model);
nlohmann::json SteadyStateToJson(const SteadyState& s, const TraceModel& model);
// "Default window: ..." and the start-up / first-launch line; `indent`
// prefixes every line.
void RenderDefaultWindowText(const SteadyState& s, const TraceModel& model, std::ostream& out,
                             const std::string& indent = "");

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_STEADY_STATE_RENDER_H_
