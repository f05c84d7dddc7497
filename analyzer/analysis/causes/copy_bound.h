// Diagnosis step 1, copy_bandwidth_bound: work limited by its host<->device
// copies. On a device, the copies of one direction (H2D or D2H)
//   - keep a copy engine busy at least copy_bound_min_busy_share of the
//     window's GPU span, and copy_bound_min_compute_ratio times as long as
//     the device's kernels ran (else kernels pace the work as much);
//   - and, the bandwidth-bound ones (average size >= latency_bound_copy_bytes
//     each) carrying most of that time, run at least
//     copy_bound_min_rate_share of the reference rate: the fastest pinned
//     copies of that direction on the device in this trace (90th percentile
//     rate of bandwidth-bound ones), else the host link's theoretical ceiling
//     (host_link_rate.h); no finding without a reference.
// Then the copies themselves are the limit, not how they were scheduled:
// only fewer or smaller transfers, keeping data on the device, overlapping
// them with compute or spreading them over both directions help.
// Measured cost: the direction's exposed time (its copies running while no
// kernel ran). No what-if models moving fewer bytes, so the saving is not
// estimated (saving_estimated stays false).
// Pure function of the model and the overlap result; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_COPY_BOUND_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_COPY_BOUND_H_

#include <cstdint>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// `ops`: the window's ops (OpsStartingIn), `gpu_span_ns` their span inside
// the window. One finding per device and direction that qualifies.
std::vector<DiagnoseFinding> FindCopyBandwidthBound(const TraceModel& model, const OverlapResult& overlap,
                                                    OpIndexRange ops, int64_t gpu_span_ns,
                                                    const DiagnoseOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_COPY_BOUND_H_
