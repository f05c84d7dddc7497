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

#include "analyzer/base/threads.h"

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
// ties by index, and the merge equals a stable sort) into out[0 .. n): a
// heap of the runs, its top the run with the earliest next item.
// O(n log runs).
template <typename Before>
void MergeRunsInto(const std::vector<uint32_t>& items, std::vector<IndexRun> runs, Before before, uint32_t* out) {
  auto later = [&](const IndexRun& a, const IndexRun& b) { return before(items[b.pos], items[a.pos]); };
  std::make_heap(runs.begin(), runs.end(), later);
  while (!runs.empty()) {
    std::pop_heap(runs.begin(), runs.end(), later);
    IndexRun& r = runs.back();
    *out++ = items[r.pos];
    if (++r.pos == r.stop) {
      runs.pop_back();
    } else {
      std::push_heap(runs.begin(), runs.end(), later);
    }
  }
}

template <typename Before>
std::vector<uint32_t> MergeRuns(const std::vector<uint32_t>& items, std::vector<IndexRun> runs, Before before) {
  size_t n = 0;
  for (const IndexRun& r : runs) n += r.stop - r.pos;
  std::vector<uint32_t> order(n);
  MergeRunsInto(items, std::move(runs), before, order.data());
  return order;
}

// MergeRuns' order, made in `slices` parts of the output side by side: the
// parts are cut at pivots (items at evenly spaced places of a sample of
// every run, about 64 per slice), each run split at each pivot by binary
// search; part s holds the items from pivot s - 1 up to pivot s, merged
// on its own.
template <typename Before>
std::vector<uint32_t> MergeRunsInSlices(const std::vector<uint32_t>& items, std::vector<IndexRun> runs, Before before,
                                        size_t slices) {
  size_t n = 0;
  for (const IndexRun& r : runs) n += r.stop - r.pos;
  if (slices <= 1 || runs.size() <= 1 || n < slices) return MergeRuns(items, std::move(runs), before);
  const size_t step = std::max<size_t>(1, n / (64 * slices));
  std::vector<uint32_t> sample;
  for (const IndexRun& r : runs) {
    for (size_t p = r.pos; p < r.stop; p += step) sample.push_back(items[p]);
  }
  std::sort(sample.begin(), sample.end(), before);
  // cut[s * runs + k]: where part s starts in run k (part `slices`: its end).
  const size_t k_runs = runs.size();
  std::vector<size_t> cut((slices + 1) * k_runs), out_begin(slices + 1, 0);
  for (size_t k = 0; k < k_runs; ++k) {
    cut[k] = runs[k].pos;
    cut[slices * k_runs + k] = runs[k].stop;
  }
  for (size_t s = 1; s < slices; ++s) {
    const uint32_t pivot = sample[sample.size() * s / slices];
    for (size_t k = 0; k < k_runs; ++k) {
      const auto first = items.begin() + static_cast<std::ptrdiff_t>(runs[k].pos);
      const auto last = items.begin() + static_cast<std::ptrdiff_t>(runs[k].stop);
      cut[s * k_runs + k] = static_cast<size_t>(std::lower_bound(first, last, pivot, before) - items.begin());
    }
  }
  for (size_t s = 0; s < slices; ++s) {
    out_begin[s + 1] = out_begin[s];
    for (size_t k = 0; k < k_runs; ++k) out_begin[s + 1] += cut[(s + 1) * k_runs + k] - cut[s * k_runs + k];
  }
  std::vector<uint32_t> order(n);
  ForEachTask(slices, slices, [&](size_t, size_t s) {
    std::vector<IndexRun> part;
    for (size_t k = 0; k < k_runs; ++k) {
      if (cut[s * k_runs + k] < cut[(s + 1) * k_runs + k])
        part.push_back({cut[s * k_runs + k], cut[(s + 1) * k_runs + k]});
    }
    MergeRunsInto(items, std::move(part), before, order.data() + out_begin[s]);
  });
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
