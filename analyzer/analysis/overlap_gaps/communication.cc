#include "analyzer/analysis/overlap_gaps/communication.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "analyzer/intervals/interval_set.h"

namespace streamscope {

bool IsCommunicationKernel(std::string_view name) {
  static constexpr std::string_view kNeedle = "nccl";
  if (name.size() < kNeedle.size()) return false;
  for (size_t i = 0; i + kNeedle.size() <= name.size(); ++i) {
    bool match = true;
    for (size_t j = 0; j < kNeedle.size() && match; ++j) {
      match = std::tolower(static_cast<unsigned char>(name[i + j])) == kNeedle[j];
    }
    if (match) return true;
  }
  return false;
}

bool CommunicationKernelNames::Contains(StringId name) {
  if (name < 0 || static_cast<size_t>(name) >= model_.strings.size()) return false;
  if (known_.empty()) known_.assign(model_.strings.size(), -1);
  int8_t& known = known_[static_cast<size_t>(name)];
  if (known < 0) known = IsCommunicationKernel(model_.strings.Get(name)) ? 1 : 0;
  return known == 1;
}

namespace {

struct DeviceIntervals {
  IntervalList comm, compute, p2p;
  int64_t comm_kernels = 0, compute_kernels = 0, p2p_copies = 0;
  std::map<StringId, CommKernelStat> by_name;
};

}  // namespace

CommunicationResult AnalyzeCommunication(const TraceModel& model, const Window& window) {
  CommunicationResult all = AnalyzeCommunicationAllDevices(model, window);
  CommunicationResult result;
  for (DeviceCommunication& d : all.devices) {
    if (d.comm_kernels > 0 || d.p2p_copies > 0) result.devices.push_back(std::move(d));
  }
  return result;
}

CommunicationResult AnalyzeCommunicationAllDevices(const TraceModel& model, const Window& window) {
  const GpuOps& ops = model.ops;
  const Interval w = window.interval();
  CommunicationKernelNames communication(model);
  std::map<int32_t, DeviceIntervals> devices;
  auto [first, last] = model.OpRangeFor(w.start, w.end);
  for (size_t i = first; i < last; ++i) {
    Interval clipped{std::max(ops.start_ns[i], w.start), std::min(ops.end_ns[i], w.end)};
    if (clipped.empty()) continue;
    OpCategory category = ops.category[i];
    if (category == OpCategory::kKernel) {
      StringId name = ops.name[i];
      const bool comm = communication.Contains(name);
      DeviceIntervals& d = devices[ops.device_id[i]];
      if (comm) {
        d.comm.push_back(clipped);
        ++d.comm_kernels;
        CommKernelStat& s = d.by_name[name];
        s.name = name;
        ++s.count;
        s.total_ns += clipped.length();
      } else {
        d.compute.push_back(clipped);
        ++d.compute_kernels;
      }
    } else if (category == OpCategory::kPtoP) {
      DeviceIntervals& d = devices[ops.device_id[i]];
      d.p2p.push_back(clipped);
      ++d.p2p_copies;
    }
  }

  CommunicationResult result;
  for (auto& [device_id, d] : devices) {
    DeviceCommunication out;
    out.device_id = device_id;
    out.comm_kernels = d.comm_kernels;
    out.compute_kernels = d.compute_kernels;
    out.p2p_copies = d.p2p_copies;
    IntervalList comm = Normalize(std::move(d.comm));
    IntervalList compute = Normalize(std::move(d.compute));
    IntervalList p2p = Normalize(std::move(d.p2p));
    out.comm_ns = TotalLength(comm);
    out.compute_ns = TotalLength(compute);
    out.overlapped_ns = TotalLength(Intersect(comm, compute));
    out.exposed_comm_ns = out.comm_ns - out.overlapped_ns;
    int64_t possible = std::min(out.comm_ns, out.compute_ns);
    out.hidden_share = possible > 0 ? static_cast<double>(out.overlapped_ns) / static_cast<double>(possible) : 0;
    out.p2p_ns = TotalLength(p2p);
    out.p2p_overlapped_ns = TotalLength(Intersect(p2p, compute));
    for (auto& [name, s] : d.by_name) out.by_name.push_back(s);
    std::sort(out.by_name.begin(), out.by_name.end(), [](const CommKernelStat& a, const CommKernelStat& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    result.devices.push_back(std::move(out));
  }
  return result;
}

}  // namespace streamscope
