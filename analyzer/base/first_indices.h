// The first few of many items in an order, without sorting (or indexing)
// all of them: a report shows the 10 longest of millions of path segments.
#ifndef STREAMSCOPE_ANALYZER_BASE_FIRST_INDICES_H_
#define STREAMSCOPE_ANALYZER_BASE_FIRST_INDICES_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace streamscope {

// The first `count` of the indices [0, n) in the order `before(a, b)` (a
// strict total order on indices: break ties by index), in that order.
// O(n log count) time and O(count) memory: a heap of the `count` kept so
// far, its top the last of them, which each later index is checked against.
template <typename Before>
std::vector<size_t> FirstIndices(size_t n, size_t count, Before before) {
  count = std::min(count, n);
  std::vector<size_t> kept;
  kept.reserve(count);
  if (count == 0) return kept;
  for (size_t i = 0; i < n; ++i) {
    if (kept.size() < count) {
      kept.push_back(i);
      std::push_heap(kept.begin(), kept.end(), before);
    } else if (before(i, kept.front())) {
      std::pop_heap(kept.begin(), kept.end(), before);
      kept.back() = i;
      std::push_heap(kept.begin(), kept.end(), before);
    }
  }
  std::sort_heap(kept.begin(), kept.end(), before);
  return kept;
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_FIRST_INDICES_H_
