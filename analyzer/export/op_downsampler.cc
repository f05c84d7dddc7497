#include "analyzer/export/op_downsampler.h"

#include <algorithm>

#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/track_layout.h"

namespace streamscope {

OpCategory DrawBlock::dominant() const {
  int best = 0;
  for (int c = 1; c < kNumOpCategories; ++c) {
    if (by_category[c] > by_category[best]) best = c;
  }
  return static_cast<OpCategory>(best);
}

DownsampleResult DownsampleOps(const TraceModel& model, const Window& window, int64_t resolution_ns) {
  DownsampleResult out;
  out.resolution_ns = resolution_ns;
  const GpuOps& ops = model.ops;
  std::vector<std::vector<int32_t>> per_stream(model.streams.size());
  auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns + 1);
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(ops.start_ns[i], ops.end_ns[i], window)) continue;
    int32_t s = ops.stream[i];
    if (s < 0 || static_cast<size_t>(s) >= per_stream.size()) continue;
    per_stream[s].push_back(static_cast<int32_t>(i));
    ++out.ops;
  }
  std::vector<int32_t> order;
  for (size_t s = 0; s < per_stream.size(); ++s) {
    if (!per_stream[s].empty()) order.push_back(static_cast<int32_t>(s));
  }
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const Stream& x = model.streams[a];
    const Stream& y = model.streams[b];
    return x.device_id != y.device_id ? x.device_id < y.device_id : x.id < y.id;
  });
  for (int32_t s : order) {
    StreamBlocks sb;
    sb.stream = s;
    sb.ops = static_cast<int64_t>(per_stream[s].size());
    LaneAssigner lanes;
    DrawBlock agg;
    auto flush = [&] {
      if (agg.count == 0) return;
      agg.lane = lanes.Place(agg.start_ns, agg.end_ns);
      if (agg.count > 1) {
        agg.op = -1;
        ++out.aggregates;
        out.ops_in_aggregates += agg.count;
      }
      sb.blocks.push_back(agg);
      agg = DrawBlock{};
    };
    for (int32_t i : per_stream[s]) {
      int64_t st = ops.start_ns[i], en = std::max(ops.start_ns[i], ops.end_ns[i]);
      bool small = resolution_ns > 0 && en - st < resolution_ns;
      // An aggregate covers at most one resolution step of time, so zooming
      // in still shows where the work was (blocks act as pixel columns).
      if (small && agg.count > 0 && st - agg.end_ns < resolution_ns && en - agg.start_ns <= resolution_ns) {
        agg.end_ns = std::max(agg.end_ns, en);
      } else {
        flush();
        agg.start_ns = st;
        agg.end_ns = en;
        agg.op = i;
      }
      ++agg.count;
      agg.busy_ns += en - st;
      ++agg.by_category[static_cast<int>(ops.category[i])];
      if (!small) flush();
    }
    flush();
    sb.lanes = std::max(1, lanes.lanes());
    out.blocks += static_cast<int64_t>(sb.blocks.size());
    out.streams.push_back(std::move(sb));
  }
  return out;
}

DownsampleResult DownsampleToFit(const TraceModel& model, const Window& window, int64_t max_blocks) {
  DownsampleResult r = DownsampleOps(model, window, 0);
  if (max_blocks < 0 || r.blocks <= max_blocks) return r;
  // Each stream keeps about max_blocks / streams blocks across the window.
  int64_t streams = std::max<int64_t>(1, static_cast<int64_t>(r.streams.size()));
  int64_t per_stream = std::max<int64_t>(1, max_blocks / streams);
  int64_t resolution = std::max<int64_t>(1, window.length() / per_stream);
  for (int attempt = 0; attempt < 40; ++attempt) {
    r = DownsampleOps(model, window, resolution);
    if (r.blocks <= max_blocks) break;
    resolution *= 2;
  }
  return r;
}

}  // namespace streamscope
