#include "analyzer/analysis/windows/submission_order.h"

#include "analyzer/base/grouped_order.h"

namespace streamscope {

std::vector<uint32_t> SubmissionOrder(const TraceModel& m, const std::vector<int64_t>& submit) {
  // A group per stream, and one (the last) for the ops on no known stream.
  const size_t groups = m.streams.size() + 1;
  return OrderMergingGroups(
      submit.size(), groups,
      [&](size_t i) { return ValidStream(m, m.ops.stream[i]) ? static_cast<size_t>(m.ops.stream[i]) : groups - 1; },
      [&](size_t i) { return submit[i]; });
}

}  // namespace streamscope
