#include "analyzer/analysis/causes/host_link_rate.h"

namespace streamscope {

double PcieBytesPerNs(int32_t generation, int32_t width) {
  if (generation < 1 || generation > 6 || width < 1) return 0;
  constexpr double kGigatransfers[] = {2.5, 5, 8, 16, 32, 64};
  double encoding = generation <= 2 ? 8.0 / 10.0 : generation <= 5 ? 128.0 / 130.0 : 1.0;
  // One bit per transfer and lane; 8 bits a byte; GB/s = bytes per ns.
  return kGigatransfers[generation - 1] * encoding * width / 8.0;
}

std::optional<HostLinkRate> RateOfHostLink(const Device::HostLink& link) {
  if (!link.recorded) return std::nullopt;
  if (link.c2c_enabled == 1) return HostLinkRate{kNvlinkC2cBytesPerNs, true, 0, 0};
  int32_t gen = link.pcie_gen_max > 0 ? link.pcie_gen_max : link.pcie_gen_current;
  int32_t width = link.pcie_width_max > 0 ? link.pcie_width_max : link.pcie_width_current;
  double rate = PcieBytesPerNs(gen, width);
  if (rate <= 0) return std::nullopt;
  return HostLinkRate{rate, false, gen, width};
}

std::optional<HostLinkRate> DeviceLinkRate(const TraceModel& model, int32_t device_id) {
  for (const Device& d : model.devices) {
    if (d.id == device_id) return RateOfHostLink(d.link);
  }
  return std::nullopt;
}

std::map<int32_t, double> LinkBytesPerNs(const TraceModel& model) {
  std::map<int32_t, double> rates;
  for (const Device& d : model.devices) {
    if (std::optional<HostLinkRate> r = RateOfHostLink(d.link)) rates[d.id] = r->bytes_per_ns;
  }
  return rates;
}

}  // namespace streamscope
