// Two ordered lists merged by slices of the output, each slice on a thread
// of its own: a merge of tens of millions of items is one long serial pass
// (the dependency graph's events by time, 40M at 10M ops), and every item's
// place is known once the split of each slice's start is.
#ifndef STREAMSCOPE_ANALYZER_BASE_SLICED_MERGE_H_
#define STREAMSCOPE_ANALYZER_BASE_SLICED_MERGE_H_

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>

#include "analyzer/base/threads.h"

namespace streamscope {

// How many of the first `k` items of std::merge(a, b, before) come from
// `a`: the smallest i such that b's (k - i)th item, if any, comes before
// a's ith, if any. std::merge takes from `a` on a tie (an item of `b` goes
// first only when `before` says so), and so does this split.
template <typename T, typename Before>
size_t MergeSplit(std::span<const T> a, std::span<const T> b, size_t k, Before before) {
  size_t lo = k > b.size() ? k - b.size() : 0, hi = std::min(k, a.size());
  while (lo < hi) {
    const size_t i = lo + (hi - lo) / 2, j = k - i;
    if (j == 0 || i == a.size() || before(b[j - 1], a[i])) {
      hi = i;
    } else {
      lo = i + 1;
    }
  }
  return lo;
}

// out = std::merge(a, b, before), out.size() == a.size() + b.size(), cut
// into `slices` slices of the output (SliceCount): the same items in the
// same places as one std::merge.
template <typename T, typename Before>
void MergeInSlices(std::span<const T> a, std::span<const T> b, std::span<T> out, size_t slices, Before before) {
  const size_t n = out.size();
  ForEachSlice(n, std::max<size_t>(slices, 1), [&](size_t, size_t begin, size_t end) {
    const size_t a0 = MergeSplit(a, b, begin, before), a1 = MergeSplit(a, b, end, before);
    const size_t b0 = begin - a0, b1 = end - a1;
    std::merge(a.begin() + static_cast<std::ptrdiff_t>(a0), a.begin() + static_cast<std::ptrdiff_t>(a1),
               b.begin() + static_cast<std::ptrdiff_t>(b0), b.begin() + static_cast<std::ptrdiff_t>(b1),
               out.begin() + static_cast<std::ptrdiff_t>(begin), before);
  });
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_SLICED_MERGE_H_
