// Which NVTX range a thread was innermost in, over time: the host-side
// segmentation that gap causes (host_nvtx_range) and what-if (host work per
// range name) both attribute host time with. Pure function; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_INNERMOST_NVTX_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_INNERMOST_NVTX_H_

#include <cstdint>
#include <vector>

#include "analyzer/model/trace_model.h"

namespace streamscope {

// Host time on one thread inside one innermost NVTX range.
struct InnermostNvtxSpan {
  int64_t start, end;
  int32_t range;  // index into model.nvtx_ranges
};

// The innermost range over time for one thread's ranges (indices into
// model.nvtx_ranges, sorted by start): the active range with the latest
// start (then the deepest) wins. Spans are disjoint and sorted, adjacent
// spans of one range are merged, and a range still open at capture end runs
// to INT64_MAX.
std::vector<InnermostNvtxSpan> InnermostNvtxSpans(const TraceModel& model, const std::vector<int32_t>& ranges);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_INNERMOST_NVTX_H_
