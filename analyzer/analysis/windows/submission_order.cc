#include "analyzer/analysis/windows/submission_order.h"

#include <algorithm>

namespace streamscope {

std::vector<uint32_t> SubmissionOrder(const TraceModel& m, const std::vector<int64_t>& submit) {
  auto before = [&](uint32_t a, uint32_t b) { return submit[a] != submit[b] ? submit[a] < submit[b] : a < b; };
  // The ops grouped by stream (a counting sort; ops on no known stream in a
  // group of their own, last), in op order within each.
  const size_t n = submit.size();
  const size_t groups = m.streams.size() + 1;
  auto group_of = [&](size_t i) {
    return ValidStream(m, m.ops.stream[i]) ? static_cast<size_t>(m.ops.stream[i]) : groups - 1;
  };
  std::vector<size_t> begin(groups + 1, 0);
  for (size_t i = 0; i < n; ++i) ++begin[group_of(i) + 1];
  for (size_t g = 0; g < groups; ++g) begin[g + 1] += begin[g];
  std::vector<uint32_t> grouped(n);
  {
    std::vector<size_t> fill(begin.begin(), begin.end() - 1);
    for (size_t i = 0; i < n; ++i) grouped[fill[group_of(i)]++] = static_cast<uint32_t>(i);
  }
  // Each group's cursor, in a heap by its next op (the earliest on top).
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
