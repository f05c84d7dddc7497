#include "analyzer/analysis/busy_time_index.h"

#include <algorithm>
#include <utility>

namespace streamscope {

void BusyTimeIndex::Union::Build(IntervalList list) {
  // Ops come sorted by start, so a linear merge is enough; sort otherwise.
  bool sorted = std::is_sorted(list.begin(), list.end(), [](const Interval& a, const Interval& b) {
    return a.start < b.start;
  });
  if (sorted) {
    busy.clear();
    for (const Interval& x : list) {
      if (x.empty()) continue;
      if (!busy.empty() && x.start <= busy.back().end) {
        busy.back().end = std::max(busy.back().end, x.end);
      } else {
        busy.push_back(x);
      }
    }
  } else {
    busy = Normalize(std::move(list));
  }
  prefix.clear();
  prefix.reserve(busy.size() + 1);
  prefix.push_back(0);
  for (const Interval& x : busy) prefix.push_back(prefix.back() + x.length());
}

int64_t BusyTimeIndex::Union::Before(int64_t t) const {
  size_t i = std::lower_bound(busy.begin(), busy.end(), t,
                              [](const Interval& x, int64_t v) { return x.start < v; }) -
             busy.begin();
  int64_t b = prefix[i];
  if (i > 0 && busy[i - 1].end > t) b -= busy[i - 1].end - t;
  return b;
}

BusyTimeIndex::BusyTimeIndex(const TraceModel& model) {
  const GpuOps& ops = model.ops;
  devices_.assign(ops.device_id.begin(), ops.device_id.end());
  std::sort(devices_.begin(), devices_.end());
  devices_.erase(std::unique(devices_.begin(), devices_.end()), devices_.end());
  std::vector<IntervalList> lists(devices_.size());
  IntervalList all;
  all.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.end_ns[i] <= ops.start_ns[i]) continue;
    size_t slot = std::lower_bound(devices_.begin(), devices_.end(), ops.device_id[i]) -
                  devices_.begin();
    lists[slot].push_back({ops.start_ns[i], ops.end_ns[i]});
    all.push_back({ops.start_ns[i], ops.end_ns[i]});
  }
  per_device_.resize(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) per_device_[d].Build(std::move(lists[d]));
  all_.Build(std::move(all));
}

int64_t BusyTimeIndex::Idle(int32_t device_id, int64_t s, int64_t e) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device_id);
  if (it == devices_.end() || *it != device_id) return e > s ? e - s : 0;
  return per_device_[it - devices_.begin()].Idle(s, e);
}

}  // namespace streamscope
