// Items in key order, when they come in that order within groups already:
// GPU ops submitted to a stream, or ending on it, come in the stream's order.
// The items are grouped (a counting sort), and the runs in order merged with
// a heap. Every key is then read walking a run forward: a sort of all the
// items through their keys jumps about the keys, which at 100M ops in 4 GiB
// live in spill files, where a jump is a read from the disk.
#ifndef STREAMSCOPE_ANALYZER_BASE_GROUPED_ORDER_H_
#define STREAMSCOPE_ANALYZER_BASE_GROUPED_ORDER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace streamscope {

// The items [0, n) grouped: group g's items are items[begin[g] .. begin[g + 1]),
// in index order. group_of(i) is in [0, groups).
struct GroupedIndices {
  std::vector<size_t> begin;
  std::vector<uint32_t> items;
};
template <typename GroupOf>
GroupedIndices GroupIndices(size_t n, size_t groups, GroupOf group_of) {
  GroupedIndices out;
  out.begin.assign(groups + 1, 0);
  for (size_t i = 0; i < n; ++i) ++out.begin[static_cast<size_t>(group_of(i)) + 1];
  for (size_t g = 0; g < groups; ++g) out.begin[g + 1] += out.begin[g];
  out.items.resize(n);
  std::vector<size_t> fill(out.begin.begin(), out.begin.end() - 1);
  for (size_t i = 0; i < n; ++i) out.items[fill[static_cast<size_t>(group_of(i))]++] = static_cast<uint32_t>(i);
  return out;
}

// A run items[pos .. stop) already in order.
struct IndexRun {
  size_t pos, stop;
};
// The runs' items merged in the order `before` (a strict total order: break
// ties by index, and the merge equals a stable sort): a heap of the runs,
// its top the run with the earliest next item. O(n log runs).
template <typename Before>
std::vector<uint32_t> MergeRuns(const std::vector<uint32_t>& items, std::vector<IndexRun> runs, Before before) {
  auto later = [&](const IndexRun& a, const IndexRun& b) { return before(items[b.pos], items[a.pos]); };
  size_t n = 0;
  for (const IndexRun& r : runs) n += r.stop - r.pos;
  std::make_heap(runs.begin(), runs.end(), later);
  std::vector<uint32_t> order;
  order.reserve(n);
  while (!runs.empty()) {
    std::pop_heap(runs.begin(), runs.end(), later);
    IndexRun& r = runs.back();
    order.push_back(items[r.pos]);
    if (++r.pos == r.stop) {
      runs.pop_back();
    } else {
      std::push_heap(runs.begin(), runs.end(), later);
    }
  }
  return order;
}

// The items [0, n) by (key(i), i). group_of(i) is in [0, groups); key(i)
// returns a value ordered by <. Each group is sorted only when it is out of
// order, then the groups merged. O(n log groups) when every group is in
// order, O(n log n) at worst; 4 bytes an item besides the result.
template <typename GroupOf, typename Key>
std::vector<uint32_t> OrderMergingGroups(size_t n, size_t groups, GroupOf group_of, Key key) {
  auto before = [&](uint32_t a, uint32_t b) {
    const auto ka = key(a), kb = key(b);
    return ka < kb || (!(kb < ka) && a < b);
  };
  GroupedIndices grouped = GroupIndices(n, groups, group_of);
  std::vector<IndexRun> runs;
  for (size_t g = 0; g < groups; ++g) {
    auto first = grouped.items.begin() + static_cast<std::ptrdiff_t>(grouped.begin[g]);
    auto last = grouped.items.begin() + static_cast<std::ptrdiff_t>(grouped.begin[g + 1]);
    if (first == last) continue;
    if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
    runs.push_back({grouped.begin[g], grouped.begin[g + 1]});
  }
  if (runs.size() == 1) return std::move(grouped.items);  // one group: already in order
  return MergeRuns(grouped.items, std::move(runs), before);
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_GROUPED_ORDER_H_
