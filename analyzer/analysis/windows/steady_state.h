// The run's steady part, the default window of every command (docs/DEFINITIONS.md
// "Windows": the steady state when one is found, else the span of GPU
// activity), and what lies apart from it: start-up before the first GPU op
// and one-off first launches (module loading).
//
// Found, in this order:
//   1 nvtx_range       an NVTX range name with >= min_instances closed
//                      instances whose instances submitted >= min_gpu_share
//                      of the GPU op time submitted from the first instance
//                      on (what ran before the program's loop — compilation,
//                      autotuning, warm-up — lies apart like start-up and is
//                      not weighed against the loop; an op counts for the
//                      instance its submitting call started in; an op
//                      without a call, for the one it started in); among
//                      those, the outermost (least nested on its thread),
//                      then the most repeated. Window: the first instance's
//                      start to the later of the last instance's end and the
//                      end of the last op submitted inside an instance.
//   2 kernel_sequence  a repeating sequence of kernel names in submission
//                      order: candidate periods are the most frequent
//                      distances between consecutive launches of one name;
//                      for each, the longest stretch where name[i] ==
//                      name[i + period]; kept with >= min_instances repeats
//                      and >= min_gpu_share of the GPU op time submitted
//                      inside it (the longest stretch, then the shortest
//                      period). Window: the repeats with the other ops
//                      submitted between their kernels (copies of a chunked
//                      loop): from the first op submitted after the kernel
//                      before the stretch to the end of the last op
//                      submitted before the kernel after it, each at most
//                      one repeat's time (the median) from the stretch.
//   3 gpu_span         first GPU op start to last GPU op end;
// The window of 1 and 2 starts at its first GPU op: host time before it
// (the first instance's set-up, a first launch that loads the module) is
// not GPU idle time.
//   4 none             no GPU op: the whole-trace window.
// Start-up: from the trace's start (first op or API call) to the first GPU
// op. First launches: per kernel name, the launch whose call started first,
// when its call took >= first_launch_factor x the median call time of the
// name's other launches (a name launched once: of all launches through the
// same API name) and at least first_launch_min_excess_ns more.
// Cost: O(n log n). Thread-safe: reads the model only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_STEADY_STATE_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_STEADY_STATE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct SteadyStateOptions {
  int min_instances = 3;
  double min_gpu_share = 0.5;
  int max_candidate_periods = 16;
  double first_launch_factor = 10.0;
  int64_t first_launch_min_excess_ns = 50'000;
};

enum class SteadyStateMethod : uint8_t { kNvtxRange = 0, kKernelSequence = 1, kGpuSpan = 2, kNone = 3 };
// "nvtx_range", "kernel_sequence", "gpu_span", "none"
std::string_view SteadyStateMethodName(SteadyStateMethod m);

// A first launch whose call was much slower than the kernel's other launches.
struct FirstLaunchOutlier {
  int32_t api = -1;  // the launch call (api index)
  int32_t op = -1;   // its kernel (op index)
  StringId kernel = kNoString;
  int64_t call_ns = 0;    // the first launch's API time
  int64_t median_ns = 0;  // median API time it is compared with
  int64_t excess_ns() const { return call_ns - median_ns; }
};

struct SteadyState {
  SteadyStateMethod method = SteadyStateMethod::kNone;
  Window window;  // the default window
  // kNvtxRange: the range name, its instances (indices into nvtx_ranges,
  // by start) and their nesting depth on their thread.
  StringId nvtx_name = kNoString;
  std::vector<int32_t> nvtx_instances;
  int32_t nvtx_depth = 0;
  // kKernelSequence: period in kernels, whole repeats, first and last
  // kernel of the stretch (op indices).
  int64_t period_kernels = 0, repeats = 0;
  int32_t first_kernel = -1, last_kernel = -1;
  // Share of the GPU op time submitted inside the steady state: of the
  // trace's (kKernelSequence), of what was submitted from the first
  // instance on (kNvtxRange); 1 for kGpuSpan.
  double gpu_share = 0;
  // Before the first GPU op (empty without ops).
  Interval startup;
  std::vector<FirstLaunchOutlier> first_launches;  // by call start
  int64_t first_launch_excess_ns = 0;              // sum of excess_ns
};

SteadyState FindSteadyState(const TraceModel& model, const SteadyStateOptions& options = {});
std::vector<FirstLaunchOutlier> FindFirstLaunchOutliers(const TraceModel& model,
                                                        const SteadyStateOptions& options = {});

// FindSteadyState with default options, built once per trace (shared by
// every command that needs the default window).
const SteadyState& DefaultSteadyState(const TraceModel& model);
inline Window DefaultWindow(const TraceModel& model) { return DefaultSteadyState(model).window; }

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_STEADY_STATE_H_
