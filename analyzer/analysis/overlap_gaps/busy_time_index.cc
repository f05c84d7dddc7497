#include "analyzer/analysis/overlap_gaps/busy_time_index.h"

#include <algorithm>
#include <utility>

namespace streamscope {

void BusyTimeIndex::Union::Build(IntervalList list) {
  busy = Normalize(std::move(list));
  BuildPrefix();
}

void BusyTimeIndex::Union::BuildPrefix() {
  prefix.clear();
  prefix.reserve(busy.size() + 1);
  prefix.push_back(0);
  for (const Interval& x : busy) prefix.push_back(prefix.back() + x.length());
}

int64_t BusyTimeIndex::Union::Before(int64_t t) const {
  size_t i = std::lower_bound(busy.begin(), busy.end(), t, [](const Interval& x, int64_t v) { return x.start < v; }) -
             busy.begin();
  int64_t b = prefix[i];
  if (i > 0 && busy[i - 1].end > t) b -= busy[i - 1].end - t;
  return b;
}

std::vector<int32_t> OpDeviceIds(const TraceModel& model) {
  if (!model.op_devices.empty() || model.ops.size() == 0) return model.op_devices;
  std::vector<int32_t> devices(model.ops.device_id.begin(), model.ops.device_id.end());
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

BusyTimeIndex::BusyTimeIndex(const TraceModel& model) {
  const GpuOps& ops = model.ops;
  devices_ = OpDeviceIds(model);
  per_device_.resize(devices_.size());
  auto slot = [&](int32_t device) {
    return static_cast<size_t>(std::lower_bound(devices_.begin(), devices_.end(), device) - devices_.begin());
  };
  if (std::is_sorted(ops.start_ns.begin(), ops.start_ns.end())) {
    // Finalized models: merge in one pass, no copy of every interval.
    auto merge = [](IntervalList& busy, Interval x) {
      if (!busy.empty() && x.start <= busy.back().end) {
        busy.back().end = std::max(busy.back().end, x.end);
      } else {
        busy.push_back(x);
      }
    };
    for (size_t i = 0; i < ops.size(); ++i) {
      Interval x{ops.start_ns[i], ops.end_ns[i]};
      if (x.empty()) continue;
      merge(per_device_[slot(ops.device_id[i])].busy, x);
      merge(all_.busy, x);
    }
    for (Union& u : per_device_) u.BuildPrefix();
    all_.BuildPrefix();
    return;
  }
  std::vector<IntervalList> lists(devices_.size());
  IntervalList all;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.end_ns[i] <= ops.start_ns[i]) continue;
    lists[slot(ops.device_id[i])].push_back({ops.start_ns[i], ops.end_ns[i]});
    all.push_back({ops.start_ns[i], ops.end_ns[i]});
  }
  for (size_t d = 0; d < devices_.size(); ++d) per_device_[d].Build(std::move(lists[d]));
  all_.Build(std::move(all));
}

int64_t BusyTimeIndex::Idle(int32_t device_id, int64_t s, int64_t e) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device_id);
  if (it == devices_.end() || *it != device_id) return e > s ? e - s : 0;
  return per_device_[it - devices_.begin()].Idle(s, e);
}

}  // namespace streamscope
