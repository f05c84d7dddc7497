// The work a compare run did in its windows (pipeline/compare.h "same
// work"): GPU ops that start inside the windows, by kernel name, copy
// direction and memsets; and how two runs' work differs, over the whole
// windows or per instance when the runs' windows hold different numbers of
// repeated instances (steps).
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_WORK_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_WORK_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct WorkSummary {
  std::map<std::string, int64_t> kernels;                            // name -> instances
  std::array<int64_t, kNumOpCategories> copy_count{}, copy_bytes{};  // copy categories
  int64_t memset_count = 0, memset_bytes = 0;
};

struct WorkDifference {
  std::string kind;  // "kernel", "copy", "memset"
  std::string key;   // kernel name, copy direction ("H2D"), "memset"
  int64_t expected_count = 0, actual_count = 0;
  int64_t expected_bytes = 0, actual_bytes = 0;  // copies and memsets
  // Compared per instance (the runs' windows hold different numbers of
  // instances): the counts above are over each run's windows, these its
  // instances. 0 = compared over the whole windows.
  int64_t expected_instances = 0, actual_instances = 0;
};

// GPU ops that start inside the windows.
WorkSummary WorkIn(const TraceModel& model, const std::vector<Window>& windows);

// Differences of `actual` from `expected`, kernels by name, then copies by
// direction, then memsets.
std::vector<WorkDifference> DiffWork(const WorkSummary& expected, const WorkSummary& actual);

// The same per instance: `expected` over `expected_instances` instances vs
// `actual` over `actual_instances` (counts and bytes compared
// cross-multiplied, so 24 launches in 12 steps equal 20 in 10); the
// differences carry both instance counts. At most one instance each:
// DiffWork.
std::vector<WorkDifference> DiffWorkPerInstance(const WorkSummary& expected, int64_t expected_instances,
                                                const WorkSummary& actual, int64_t actual_instances);

// Work that is not part of every instance on either side (fewer ops than
// instances in both runs: a logging copy on 2 of 12 steps), compared per
// instance. Such a difference depends on where the windows cut the loop (a
// kernel sequence's repeats need not start where a step does), so compare
// lists it apart instead of calling the work different.
bool IsOccasional(const WorkDifference& d);

// Fewer small device-to-host copies in the actual run (on average at most
// kSmallReadbackBytes each on both sides): results read back less often, the
// remedy for a round trip per iteration (test every k iterations). Listed
// apart, not counted as different work: the kernels and other copies decide that.
inline constexpr int64_t kSmallReadbackBytes = kResultReadBackMaxBytes;
bool IsFewerReadbacks(const WorkDifference& d);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_WORK_H_
