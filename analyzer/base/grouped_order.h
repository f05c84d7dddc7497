// Items in key order, when they come in that order within groups already:
// GPU ops submitted to a stream, or ending on it, come in the stream's order.
// Each group is sorted only when it is out of order, then the groups merged.
// Every key is then read walking a group forward: a sort of all the items
// through their keys jumps about the keys, which at 100M ops in 4 GiB live
// in spill files, where a jump is a read from the disk.
#ifndef STREAMSCOPE_ANALYZER_BASE_GROUPED_ORDER_H_
#define STREAMSCOPE_ANALYZER_BASE_GROUPED_ORDER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace streamscope {

// The items [0, n) by (key(i), i). group_of(i) is in [0, groups); key(i)
// returns a value ordered by <. O(n log groups) when every group is in
// order, O(n log n) at worst; 4 bytes an item besides the result.
template <typename GroupOf, typename Key>
std::vector<uint32_t> OrderMergingGroups(size_t n, size_t groups, GroupOf group_of, Key key) {
  auto before = [&](uint32_t a, uint32_t b) {
    const auto ka = key(a), kb = key(b);
    return ka < kb || (!(kb < ka) && a < b);
  };
  // The items grouped (a counting sort), in index order within each group.
  std::vector<size_t> begin(groups + 1, 0);
  for (size_t i = 0; i < n; ++i) ++begin[static_cast<size_t>(group_of(i)) + 1];
  for (size_t g = 0; g < groups; ++g) begin[g + 1] += begin[g];
  std::vector<uint32_t> grouped(n);
  {
    std::vector<size_t> fill(begin.begin(), begin.end() - 1);
    for (size_t i = 0; i < n; ++i) grouped[fill[static_cast<size_t>(group_of(i))]++] = static_cast<uint32_t>(i);
  }
  // Each group's cursor, in a heap whose top holds the earliest next item.
  struct Cursor {
    size_t at, end;
  };
  std::vector<Cursor> heap;
  for (size_t g = 0; g < groups; ++g) {
    auto first = grouped.begin() + static_cast<std::ptrdiff_t>(begin[g]);
    auto last = grouped.begin() + static_cast<std::ptrdiff_t>(begin[g + 1]);
    if (first == last) continue;
    if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
    heap.push_back({begin[g], begin[g + 1]});
  }
  if (heap.size() == 1) return grouped;  // one group: already in order
  auto later = [&](const Cursor& a, const Cursor& b) { return before(grouped[b.at], grouped[a.at]); };
  std::make_heap(heap.begin(), heap.end(), later);
  std::vector<uint32_t> order;
  order.reserve(n);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Cursor& c = heap.back();
    order.push_back(grouped[c.at]);
    if (++c.at == c.end) {
      heap.pop_back();
    } else {
      std::push_heap(heap.begin(), heap.end(), later);
    }
  }
  return order;
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_GROUPED_ORDER_H_
