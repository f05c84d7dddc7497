#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_LOWER_MEDIAN_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_LOWER_MEDIAN_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace streamscope {

// The lower median of `values` (an element of the list, so deterministic for
// integers); 0 for an empty list. diagnose_support::Median averages the two
// middle values instead.
inline int64_t LowerMedian(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_LOWER_MEDIAN_H_
