#include "analyzer/analysis/overlap_gaps/idle_gaps.h"

#include <algorithm>

namespace streamscope {
namespace {

// Running union of one timeline (a device or a stream).
struct Timeline {
  bool seen = false;
  int32_t device = 0;  // of the first op
  int64_t cur_end = 0;
  int32_t cur_end_op = -1;
  int64_t busy = 0, ops = 0;
  int64_t gap_count = 0, gap_ns = 0, listed_count = 0, listed_ns = 0;
  Gap longest;
  std::vector<Gap> gaps;

  void AddGap(const Gap& g, int64_t threshold) {
    if (g.length() <= 0) return;
    ++gap_count;
    gap_ns += g.length();
    if (g.length() > longest.length()) longest = g;
    if (g.length() >= threshold) {
      ++listed_count;
      listed_ns += g.length();
      gaps.push_back(g);
    }
  }
  // `leading` records the gap from the window start to the first op.
  void Add(int64_t s, int64_t e, int32_t op, int32_t op_device, int64_t w0, bool leading, int64_t threshold) {
    ++ops;
    if (!seen) {
      seen = true;
      device = op_device;
      if (leading) AddGap({w0, s, -1, op}, threshold);
      cur_end = e;
      cur_end_op = op;
      busy += e - s;
      return;
    }
    if (s > cur_end) {
      AddGap({cur_end, s, cur_end_op, op}, threshold);
      busy += e - s;
      cur_end = e;
      cur_end_op = op;
    } else if (e > cur_end) {
      busy += e - cur_end;
      cur_end = e;
      cur_end_op = op;
    }
  }
};

}  // namespace

IdleGapsResult AnalyzeIdleGaps(const TraceModel& model, const Window& window, const IdleGapsOptions& options) {
  IdleGapsResult result;
  result.window = window;
  result.threshold_ns = options.list_threshold_ns;
  const int64_t w0 = window.start_ns, w1 = window.end_ns, thr = options.list_threshold_ns;
  const std::vector<int32_t>& devices = model.op_devices;
  std::vector<Timeline> dev(devices.size());
  std::vector<Timeline> str(model.streams.size());
  auto [first, last] = model.OpRangeFor(w0, w1);
  size_t slot = 0;
  for (size_t i = first; i < last; ++i) {
    int64_t s = std::max(model.ops.start_ns[i], w0);
    int64_t e = std::min(model.ops.end_ns[i], w1);
    if (e <= s) continue;  // outside the window, or zero length
    int32_t d = model.ops.device_id[i];
    if (devices[slot] != d) slot = std::lower_bound(devices.begin(), devices.end(), d) - devices.begin();
    int32_t op = static_cast<int32_t>(i);
    dev[slot].Add(s, e, op, d, w0, /*leading=*/true, thr);
    int32_t st = model.ops.stream[i];
    if (st >= 0) str[st].Add(s, e, op, d, w0, /*leading=*/false, thr);
  }
  for (size_t d = 0; d < devices.size(); ++d) {
    Timeline& t = dev[d];
    if (!t.seen) {
      t.AddGap({w0, w1, -1, -1}, thr);
    } else {
      t.AddGap({t.cur_end, w1, t.cur_end_op, -1}, thr);
    }
    DeviceGaps g;
    g.device_id = devices[d];
    g.window_ns = window.length();
    g.busy_ns = t.busy;
    g.idle_ns = g.window_ns - g.busy_ns;
    g.op_count = t.ops;
    g.gap_count = t.gap_count;
    g.listed_count = t.listed_count;
    g.listed_ns = t.listed_ns;
    g.gaps = std::move(t.gaps);
    result.devices.push_back(std::move(g));
  }
  for (size_t s = 0; s < str.size(); ++s) {
    Timeline& t = str[s];
    if (!t.seen) continue;
    StreamGaps g;
    g.stream = static_cast<int32_t>(s);
    g.device_id = t.device;
    g.busy_ns = t.busy;
    g.idle_ns = window.length() - t.busy;
    g.op_count = t.ops;
    g.gap_count = t.gap_count;
    g.between_ops_ns = t.gap_ns;
    g.listed_count = t.listed_count;
    g.listed_ns = t.listed_ns;
    g.longest = t.longest;
    g.gaps = std::move(t.gaps);
    result.streams.push_back(std::move(g));
  }
  std::sort(result.streams.begin(), result.streams.end(), [&](const StreamGaps& a, const StreamGaps& b) {
    if (a.device_id != b.device_id) return a.device_id < b.device_id;
    return model.streams[a.stream].id < model.streams[b.stream].id;
  });
  return result;
}

}  // namespace streamscope
