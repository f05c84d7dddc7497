// Idle gaps (docs/DEFINITIONS.md): idle gaps, the complement of each
// device's busy union (and each stream's) inside the window.
//
// Totals are exact over every gap; only gaps of at least the listing
// threshold are kept for listing, each with the op that ended before it and
// the op that started after it. One pass over the ops in start order:
// O(n) after the model's sort. Pure function; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_IDLE_GAPS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_IDLE_GAPS_H_

#include <cstdint>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct IdleGapsOptions {
  int64_t list_threshold_ns = 10'000;  // gaps at least this long are listed
};

struct Gap {
  int64_t start_ns = 0, end_ns = 0;
  int32_t op_before = -1;  // op index whose end starts the gap; -1 at the window start
  int32_t op_after = -1;   // op index whose start ends the gap; -1 at the window end
  int64_t length() const { return end_ns - start_ns; }
};

struct DeviceGaps {
  int32_t device_id = 0;
  int64_t window_ns = 0;
  int64_t busy_ns = 0;                      // union of the device's ops in the window
  int64_t idle_ns = 0;                      // window_ns - busy_ns, the sum of all gaps
  int64_t op_count = 0;                     // ops with time in the window
  int64_t gap_count = 0;                    // all gaps, including the edges
  int64_t listed_count = 0, listed_ns = 0;  // gaps >= threshold
  std::vector<Gap> gaps;                    // gaps >= threshold, by start
};

// A stream's gaps are those between its own ops (from its first to its last
// op in the window); idle_ns counts the whole window.
struct StreamGaps {
  int32_t stream = -1;  // index into TraceModel::streams
  int32_t device_id = 0;
  int64_t busy_ns = 0, idle_ns = 0, op_count = 0;
  int64_t gap_count = 0, between_ops_ns = 0;  // all gaps between its ops
  int64_t listed_count = 0, listed_ns = 0;
  Gap longest;            // longest gap between its ops
  std::vector<Gap> gaps;  // >= threshold, by start
};

struct IdleGapsResult {
  Window window;
  int64_t threshold_ns = 0;
  std::vector<DeviceGaps> devices;  // model.op_devices order
  std::vector<StreamGaps> streams;  // streams with ops in the window, by device then source id
};

IdleGapsResult AnalyzeIdleGaps(const TraceModel& model, const Window& window, const IdleGapsOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_IDLE_GAPS_H_
