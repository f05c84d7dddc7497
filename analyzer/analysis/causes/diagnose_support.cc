#include "analyzer/analysis/causes/diagnose_support.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/intervals/interval_set.h"

namespace streamscope::diagnose_support {

int64_t MedianInPlace(std::span<int64_t> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  int64_t hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  int64_t lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + (hi - lo) / 2;
}

OpIndexRange OpsStartingIn(const TraceModel& m, const Window& w) {
  const size_t first = FirstOpStartingAt(m, w.start_ns);
  return OpIndexRange(first, w.end_ns > w.start_ns ? FirstOpStartingAt(m, w.end_ns) : first);
}

// Per op of `ops` (in start order): the time (clipped to the window) during
// which another op of the same device ran. One sweep per device finds the
// time in which at least two ops ran (ends before starts at equal times:
// touching ops never overlap); each op's share of it is two binary searches
// in its prefix sums. O(n log n), no event array to sort.
std::vector<int64_t> SharedTime(const TraceModel& m, const Window& w, OpIndexRange ops) {
  std::vector<int64_t> shared(ops.size(), 0);
  auto clipped_start = [&](int32_t op) { return std::max(m.ops.start_ns[op], w.start_ns); };
  auto clipped_end = [&](int32_t op) { return std::min(m.ops.end_ns[op], w.end_ns); };
  for (int32_t device : m.op_devices) {
    IntervalList multi;  // time with >= 2 ops running, sorted and disjoint
    std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>> running;  // ends
    size_t next = 0;
    auto advance = [&] {  // next op of this device with a non-empty clipped interval
      while (next < ops.size() &&
             (m.ops.device_id[ops[next]] != device || clipped_end(ops[next]) <= clipped_start(ops[next]))) {
        ++next;
      }
    };
    advance();
    constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
    while (next < ops.size() || !running.empty()) {
      int64_t t = std::min(next < ops.size() ? clipped_start(ops[next]) : kInf, running.empty() ? kInf : running.top());
      while (!running.empty() && running.top() == t) running.pop();
      while (next < ops.size() && clipped_start(ops[next]) == t) {
        running.push(clipped_end(ops[next]));
        ++next;
        advance();
      }
      if (running.size() < 2) continue;
      int64_t t_next = std::min(next < ops.size() ? clipped_start(ops[next]) : kInf, running.top());
      if (!multi.empty() && multi.back().end == t) {
        multi.back().end = t_next;
      } else {
        multi.push_back({t, t_next});
      }
    }
    if (multi.empty()) continue;
    std::vector<int64_t> prefix(multi.size() + 1, 0);
    for (size_t i = 0; i < multi.size(); ++i) prefix[i + 1] = prefix[i] + multi[i].length();
    // Time with >= 2 ops running before t, given the index of the first
    // interval starting at or after t.
    auto before_at = [&](size_t i, int64_t t) {
      int64_t b = prefix[i];
      if (i > 0 && multi[i - 1].end > t) b -= multi[i - 1].end - t;
      return b;
    };
    auto starts_before = [](const Interval& x, int64_t v) { return x.start < v; };
    // Clipped starts come in order, so their index only moves forward; an
    // op's end lies a few intervals further on: gallop from there instead of
    // two binary searches over the whole list per op.
    size_t start_index = 0;
    for (size_t k = 0; k < ops.size(); ++k) {
      int32_t op = ops[k];
      if (m.ops.device_id[op] != device) continue;
      int64_t s = clipped_start(op), e = clipped_end(op);
      if (e <= s) continue;
      while (start_index < multi.size() && multi[start_index].start < s) ++start_index;
      size_t lo = start_index, step = 1, hi = lo;
      while (hi < multi.size() && multi[hi].start < e) {
        lo = hi + 1;
        hi += step;
        step *= 2;
      }
      hi = std::min(hi, multi.size());
      size_t end_index =
          static_cast<size_t>(std::lower_bound(multi.begin() + static_cast<std::ptrdiff_t>(lo),
                                               multi.begin() + static_cast<std::ptrdiff_t>(hi), e, starts_before) -
                              multi.begin());
      shared[k] = before_at(end_index, e) - before_at(start_index, s);
    }
  }
  return shared;
}

void CiteOp(DiagnoseFinding& f, int32_t op, int max_evidence) {
  if (op < 0 || static_cast<int>(f.ops.size()) >= max_evidence) return;
  if (std::find(f.ops.begin(), f.ops.end(), op) == f.ops.end()) f.ops.push_back(op);
}

}  // namespace streamscope::diagnose_support
