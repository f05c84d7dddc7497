// Analysis windows the tests build by hand.
#ifndef STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_WINDOWS_TEST_WINDOWS_H_
#define STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_WINDOWS_TEST_WINDOWS_H_

#include <algorithm>
#include <cstdint>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope::testing {

// [start, end), with no label.
inline Window WindowOf(int64_t start, int64_t end) { return Window{start, end, {}}; }

// From the first op's start to the latest op end (ops in start order).
inline Window GpuWindow(const TraceModel& m) {
  Window w;
  w.start_ns = m.ops.start_ns.front();
  for (int64_t e : m.ops.end_ns) w.end_ns = std::max(w.end_ns, e);
  return w;
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_WINDOWS_TEST_WINDOWS_H_
