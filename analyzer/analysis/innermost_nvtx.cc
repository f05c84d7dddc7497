#include "analyzer/analysis/innermost_nvtx.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <tuple>

namespace streamscope {

std::vector<InnermostNvtxSpan> InnermostNvtxSpans(const TraceModel& model, const std::vector<int32_t>& ranges) {
  constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();
  struct Event {
    int64_t t;
    int32_t range;
    bool is_start;
  };
  std::vector<Event> events;
  events.reserve(ranges.size() * 2);
  for (int32_t r : ranges) {
    const NvtxRange& nr = model.nvtx_ranges[r];
    int64_t end = nr.end_ns.value_or(kMaxTime);
    if (end <= nr.start_ns) continue;
    events.push_back({nr.start_ns, r, true});
    if (end != kMaxTime) events.push_back({end, r, false});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
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
  size_t i = 0;
  while (i < events.size()) {
    int64_t t = events[i].t;
    if (!active.empty()) emit(prev_t, t, active.top());
    for (; i < events.size() && events[i].t == t; ++i) {
      if (events[i].is_start) active.push(events[i].range);
    }
    while (!active.empty() && end_of(active.top()) <= t) active.pop();
    prev_t = t;
  }
  if (!active.empty()) emit(prev_t, kMaxTime, active.top());
  return out;
}

}  // namespace streamscope
