// The report's `instances` section: the instances a window is made of.
//
// One window made of repeated instances (torch.profiler's ProfilerStep#N
// ranges, else the steady state's NVTX range or kernel-sequence repeats:
// step_breakdown.h): a row per instance with its
// duration, busy and idle time, copy/compute overlap achieved and possible,
// its largest idle cause and whether it is slow (> kSlowInstanceFactor x
// the median duration). Text: a compact table right after the summary (all
// rows up to kCompactInstanceRows, else the median instance, the slow ones
// and a count), the full table with `--section instances`.
//   JSON "instances": {source ("profiler_step", "nvtx_range",
//     "kernel_sequence", "none"),
//     nvtx_name, period_kernels, slow_factor, median_ns, slow_count,
//     outside_ns, outside_idle_ns, idle_ns,
//     rows: [{instance (1-based), start_ns, end_ns, duration_ns, device_ns,
//             busy_ns, idle_ns, compute_ns, copy_ns, overlap_ns,
//             overlap_possible_ns, nvtx_range_id, top_cause, top_api_name,
//             top_nvtx_name, top_cause_ns, slow}]}
//     (top_*: null without idle time; names as in gap causes).
//   Table analysis_instances: instance (1-based), start_ns, end_ns,
//     duration_ns, device_ns, busy_ns, idle_ns, busy_share, compute_ns,
//     copy_ns, overlap_ns, overlap_possible_ns, nvtx_range_id, top_cause,
//     top_api_name, top_nvtx_name, top_cause_ns, slow (0/1).
//
// A report over many windows (every instance of an NVTX range) in text: one
// paragraph of distributions over the instances, how many are slow (the
// same rule) and the longest ones with their main finding, instead of
// thousands of full window reports. JSON and CSV keep every window in full.
#ifndef STREAMSCOPE_ANALYZER_RENDER_INSTANCES_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_INSTANCES_RENDER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/step_breakdown.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// The compact table shows every row up to this many instances.
inline constexpr size_t kCompactInstanceRows = 12;

// "Instances of NVTX range 'step': 20, median 1.36 ms; 1 slow (> 1.5x the
// median): #6" and the table; nothing without rows. `compact`: the
// summary's table (see above). Offsets from `trace_start_ns`.
void RenderInstanceRowsText(const StepBreakdown& steps, const TraceModel& model, int64_t trace_start_ns, bool compact,
                            std::ostream& out);
nlohmann::json InstanceRowsToJson(const StepBreakdown& steps, const TraceModel& model);
std::vector<ResultTable> InstanceRowsToTables(const StepBreakdown& steps, const TraceModel& model);

// The figures of one window, summed over its devices.
struct InstanceFigures {
  size_t index = 0;      // window index (the instance is index + 1)
  std::string label;     // "NVTX 'step' #12"
  int64_t start_ns = 0;  // from the trace start
  int64_t length_ns = 0;
  int64_t device_ns = 0;  // window length x devices
  int64_t busy_ns = 0;    // device busy time, all devices
  int64_t copy_ns = 0, exposed_copy_ns = 0;
  std::string finding;  // the diagnosis' primary finding, or empty
};

// "NVTX 'step'" of the window label "NVTX 'step' #12" (the range all the
// instances belong to); other labels unchanged.
std::string InstancesName(const std::string& window_label);

// Windows above this count are summarized in text.
inline constexpr size_t kFullTextWindows = 10;

// "Instances of NVTX 'step': ..." with distributions and the `top` longest.
void RenderInstancesText(const std::vector<InstanceFigures>& instances, int top, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_INSTANCES_RENDER_H_
