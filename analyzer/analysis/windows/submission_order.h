// The GPU ops in the order they were submitted: by submit time (one per
// op, given), ties by op index. A stream runs its ops in the order they were
// submitted, so each stream's ops come in that order already, nearly always:
// they are merged stream by stream (base/grouped_order.h), not sorted all
// through their times (at 100M ops in 4 GiB, where the times live in a
// spill file, 18 s against 7.5 s).
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_WINDOWS_SUBMISSION_ORDER_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_WINDOWS_SUBMISSION_ORDER_H_

#include <cstdint>
#include <vector>

#include "analyzer/model/trace_model.h"

namespace streamscope {

// `submit` has one time per op of `m`. Ops on no known stream are ordered
// like the others.
std::vector<uint32_t> SubmissionOrder(const TraceModel& m, const std::vector<int64_t>& submit);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_WINDOWS_SUBMISSION_ORDER_H_
