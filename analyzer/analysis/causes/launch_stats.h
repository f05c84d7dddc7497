// Launch statistics (docs/DEFINITIONS.md) per kernel name.
//
// Kernels are counted when they start inside the window; kernels launched
// from CUDA graphs (graph_id >= 0) are grouped apart from individually
// launched ones of the same name. For each group: the launch call's
// duration (API end - start) and the queue delay, over kernels whose call
// was recorded, and the GPU duration over all. The queue delay is the time
// from the call's return to the kernel's start, never negative: a kernel
// that started before its call returned (a blocking call, a graph launch,
// a launch that waited for a full queue) has queue 0 and is counted in
// started_during_call.
// Distributions use nearest rank: pX = sorted[ceil(X/100 * n) - 1]
// (median = p50, the lower middle value).
//
// Consecutive kernels: kernel K and the op before it on its stream P, when
// P is a kernel too. The idle time between them is the time in [P.end,
// K.start) (clipped to the window) in which the device ran no op at all.
//
// Launch-bound (individually launched groups with at least
// min_launches_for_launch_bound recorded launch calls), either rule:
//   api_slower_than_gpu: median GPU duration < median launch-call duration
//     (the host cannot issue them as fast as the GPU runs them; medians, so
//     that one slow first launch, e.g. lazy module loading, does not decide);
//   launch_gaps_exceed_gpu: the graph-removable idle time before the group's
//     kernels (below) is longer than their total GPU time. Idle time in which
//     the host had not begun the launch yet is CPU starvation (gap_causes.h),
//     not launch overhead, so it does not count here.
// Graph-removable gaps: the idle time between consecutive individually
// launched kernels on a stream when K's launch call started before P ended
// (the work was already being submitted: launch overhead, not host work,
// kept the GPU idle). CUDA graphs remove this. Idle time between
// consecutive graph kernels is reported separately (graph_kernel_gap_ns).
// Cost: O(n log n). Thread-safe: reads the model only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_LAUNCH_STATS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_LAUNCH_STATS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct LaunchStatsOptions {
  int max_listed = 20;  // removable gaps kept; kernel names and streams the text lists
  // Launch-boundness is a rate: a group needs this many launches with a
  // recorded call (one slow first launch, e.g. lazy module loading, is not it).
  int64_t min_launches_for_launch_bound = 3;
};

// Nearest-rank summary of a set of durations (ns). All zero when count is 0.
struct Distribution {
  int64_t count = 0;
  int64_t min = 0, median = 0, p90 = 0, p99 = 0, max = 0;
  int64_t total = 0;
  double mean = 0;
};
// Summarizes `values` (reordering them) in linear time on average.
Distribution Summarize(std::span<int64_t> values);

struct KernelLaunchStats {
  StringId name = kNoString;
  bool from_graph = false;
  int64_t count = 0;
  int64_t no_api_count = 0;         // kernels with no recorded launch call ("unknown submitter")
  Distribution api_ns;              // launch call duration
  Distribution queue_ns;            // max(0, start - launch call end)
  int64_t started_during_call = 0;  // kernels that started before their launch call returned
  Distribution gpu_ns;              // end - start
  int64_t idle_before_ns = 0;       // device idle before each kernel, from its previous kernel on the stream
  int64_t idle_before_count = 0;    // kernels that had a previous kernel on their stream
  int64_t graph_removable_ns = 0, graph_removable_gaps = 0;
  bool api_slower_than_gpu = false;
  bool launch_gaps_exceed_gpu = false;
  bool launch_bound() const { return api_slower_than_gpu || launch_gaps_exceed_gpu; }
  int32_t first_op = -1;      // op index of the earliest kernel
  int32_t max_queue_op = -1;  // op index of the kernel with the longest queue delay
};

struct StreamLaunchGaps {
  int32_t stream = -1;  // stream index
  int32_t device_id = 0;
  int64_t kernels = 0;
  int64_t idle_between_ns = 0;  // between consecutive individually launched kernels
  int64_t graph_removable_ns = 0, graph_removable_gaps = 0;
};

// One graph-removable gap: consecutive kernels prev_op -> next_op on one
// stream, next_op's launch call (api) began before prev_op ended.
struct RemovableGap {
  int32_t prev_op = -1, next_op = -1;  // op indices
  int32_t api = -1;                    // next_op's launch call
  int64_t idle_ns = 0;                 // device idle time between them
};

struct LaunchStatsResult {
  Window window;
  LaunchStatsOptions options;
  std::vector<KernelLaunchStats> kernels;  // by total GPU time, largest first
  std::vector<StreamLaunchGaps> streams;   // by graph_removable_ns, largest first
  std::vector<RemovableGap> worst_gaps;    // largest idle first, at most max_listed
  int64_t kernel_count = 0, graph_kernel_count = 0, no_api_count = 0;
  int64_t graph_removable_ns = 0, graph_removable_gaps = 0;
  int64_t graph_kernel_gap_ns = 0;   // idle between consecutive graph kernels on a stream
  int64_t launch_bound_kernels = 0;  // kernels in launch-bound groups
  // First launches in the window much slower than their kernel's other
  // launches (module loading; steady_state.h), named apart.
  std::vector<FirstLaunchOutlier> first_launches;
};

LaunchStatsResult AnalyzeLaunchStats(const TraceModel& model, const Window& window,
                                     const LaunchStatsOptions& options = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_LAUNCH_STATS_H_
