#include "analyzer/analysis/causes/innermost_nvtx.h"
#include "analyzer/model/saturating.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <tuple>

namespace streamscope {

std::vector<InnermostNvtxSpan> InnermostNvtxSpans(const TraceModel& model, const std::vector<int32_t>& ranges) {
  // Starts (with their range) and ends sorted apart and walked together (the
  // ranges come sorted by start, so the starts usually need no sort; the
  // order of events at one time does not matter below).
  struct Start {
    int64_t t;
    int32_t range;
  };
  std::vector<Start> starts;
  std::vector<int64_t> ends;
  starts.reserve(ranges.size());
  ends.reserve(ranges.size());
  for (int32_t r : ranges) {
    const NvtxRange& nr = model.nvtx_ranges[r];
    int64_t end = nr.end_ns.value_or(kMaxTime);
    if (end <= nr.start_ns) continue;
    starts.push_back({nr.start_ns, r});
    if (end != kMaxTime) ends.push_back(end);
  }
  auto earlier = [](const Start& a, const Start& b) { return a.t < b.t; };
  if (!std::is_sorted(starts.begin(), starts.end(), earlier)) std::sort(starts.begin(), starts.end(), earlier);
  std::sort(ends.begin(), ends.end());
  auto innermost_less = [&](int32_t a, int32_t b) {
    const NvtxRange& ra = model.nvtx_ranges[a];
    const NvtxRange& rb = model.nvtx_ranges[b];
    return std::tie(ra.start_ns, ra.depth, a) < std::tie(rb.start_ns, rb.depth, b);
  };
  std::priority_queue<int32_t, std::vector<int32_t>, decltype(innermost_less)> active(innermost_less);
  auto end_of = [&](int32_t r) { return model.nvtx_ranges[r].end_ns.value_or(kMaxTime); };
  std::vector<InnermostNvtxSpan> out;
  auto emit = [&](int64_t s, int64_t e, int32_t r) {
    if (e <= s) return;
    if (!out.empty() && out.back().range == r && out.back().end == s) {
      out.back().end = e;
    } else {
      out.push_back({s, e, r});
    }
  };
  int64_t prev_t = kMinTime;
  size_t i = 0, j = 0;
  while (i < starts.size() || j < ends.size()) {
    const int64_t t = j == ends.size() || (i < starts.size() && starts[i].t < ends[j]) ? starts[i].t : ends[j];
    if (!active.empty()) emit(prev_t, t, active.top());
    for (; i < starts.size() && starts[i].t == t; ++i) active.push(starts[i].range);
    while (j < ends.size() && ends[j] == t) ++j;
    while (!active.empty() && end_of(active.top()) <= t) active.pop();
    prev_t = t;
  }
  if (!active.empty()) emit(prev_t, kMaxTime, active.top());
  return out;
}

}  // namespace streamscope
