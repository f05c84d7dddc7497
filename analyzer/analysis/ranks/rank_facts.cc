#include "analyzer/analysis/ranks/rank_facts.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "analyzer/intervals/interval_set.h"

namespace streamscope {
namespace {

std::optional<int64_t> MetadataInt(const TraceModel& model, const std::string& key, bool non_negative) {
  auto it = model.metadata.find(key);
  if (it == model.metadata.end()) return std::nullopt;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || (non_negative && value < 0)) return std::nullopt;
  return value;
}

std::string Metadata(const TraceModel& model, const std::string& key) {
  auto it = model.metadata.find(key);
  return it == model.metadata.end() ? std::string() : it->second;
}

}  // namespace

std::string CollectiveOf(std::string_view name) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    size_t at = name.find(prefix);
    if (at == std::string_view::npos) continue;
    size_t from = at + prefix.size(), to = from;
    while (to < name.size() && std::isalpha(static_cast<unsigned char>(name[to]))) ++to;
    return std::string(name.substr(from, to - from));
  }
  return "";
}

RankFacts ComputeRankFacts(const TraceModel& model, const std::vector<Window>& windows,
                           const std::vector<const CommunicationResult*>& communication, bool windows_are_steps) {
  RankFacts f;
  f.path = model.path;
  f.format = model.format;
  f.pid = model.pid;
  f.rank = MetadataInt(model, "env:RANK", true);
  f.host = Metadata(model, "host");
  f.clock_domain = Metadata(model, "clock_domain");
  f.start_wall_time_ns = MetadataInt(model, "start_wall_time_ns", false);
  f.start_trace_ns = MetadataInt(model, "start_trace_ns", false);
  f.windows_are_steps = windows_are_steps;
  const GpuOps& ops = model.ops;
  std::map<StringId, int32_t> name_index;
  CommunicationKernelNames communication_names(model);
  for (size_t k = 0; k < windows.size(); ++k) {
    const Window& window = windows[k];
    RankWindowFacts wf;
    wf.origin = window.origin;
    wf.start_ns = window.start_ns;
    wf.end_ns = window.end_ns;
    std::map<int32_t, RankDeviceFigures> devices;
    for (const DeviceCommunication& d : communication[k]->devices) {
      RankDeviceFigures& x = devices[d.device_id];
      x.comm_ns = d.comm_ns;
      x.compute_ns = d.compute_ns;
      x.overlapped_ns = d.overlapped_ns;
    }
    auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns);
    std::map<int32_t, IntervalList> busy;
    for (size_t i = first; i < last; ++i) {
      Interval clipped{std::max(ops.start_ns[i], window.start_ns), std::min(ops.end_ns[i], window.end_ns)};
      if (clipped.empty()) continue;
      busy[ops.device_id[i]].push_back(clipped);
      if (ops.category[i] != OpCategory::kKernel || !communication_names.Contains(ops.name[i])) continue;
      std::string_view name = model.strings.Get(ops.name[i]);
      auto [it, added] = name_index.emplace(ops.name[i], static_cast<int32_t>(f.comm_names.size()));
      if (added) f.comm_names.emplace_back(name);
      f.comm_kernels.push_back({it->second, ops.device_id[i], ops.start_ns[i], ops.end_ns[i]});
    }
    // Every device that ran anything in the trace counts for the whole
    // window, busy or not.
    for (int32_t device : model.op_devices) busy[device];
    for (auto& [device, list] : busy) {
      RankDeviceFigures& x = devices[device];
      int64_t b = TotalLength(Normalize(std::move(list)));
      x.window_ns = window.length();
      x.busy_ns = b;
      x.idle_ns = window.length() - b;
    }
    for (auto& [device, x] : devices) {
      x.device_id = device;
      wf.devices.push_back(x);
    }
    f.windows.push_back(std::move(wf));
  }
  std::stable_sort(f.comm_kernels.begin(), f.comm_kernels.end(), [](const CommKernelFact& a, const CommKernelFact& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
  });
  return f;
}

}  // namespace streamscope
