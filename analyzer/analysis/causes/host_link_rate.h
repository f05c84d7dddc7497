// The theoretical per-direction bandwidth of a device's host link, from the
// trace's device_link facts: PCIe generation and width (per-lane 2.5, 5, 8,
// 16, 32, 64 GT/s; 8b/10b encoding for generations 1-2, 128b/130b for 3-5,
// 1b/1b flits for 6), or NVLink-C2C (Grace Hopper, 450 GB/s per direction).
// A ceiling: protocol overhead keeps real copies below it (pinned PCIe
// copies typically reach 80-90 %). The analyses prefer a rate measured in
// the trace and use this one only without it.
// Pure functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_HOST_LINK_RATE_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_HOST_LINK_RATE_H_

#include <cstdint>
#include <map>
#include <optional>

#include "analyzer/model/trace_model.h"

namespace streamscope {

// What the link is is data: render/host_link_render.h HostLinkName words it
// ("PCIe 5.0 x16", "NVLink-C2C").
struct HostLinkRate {
  double bytes_per_ns = 0;  // = GB/s, one direction
  bool nvlink_c2c = false;  // NVLink-C2C, else PCIe
  int32_t pcie_gen = 0;     // PCIe: the generation and width the rate is for
  int32_t pcie_width = 0;
};

// Bytes per ns of one direction of a PCIe link; 0 for a generation outside
// 1-6 or a width below 1.
double PcieBytesPerNs(int32_t generation, int32_t width);

inline constexpr double kNvlinkC2cBytesPerNs = 450.0;

// The link's rate: NVLink-C2C when the device is attached over it, else
// PCIe at the maximum generation and width (a GPU may train its link down
// while idle, so the state at start-up understates it), else the current
// ones; nullopt when the trace has no usable link facts.
std::optional<HostLinkRate> RateOfHostLink(const Device::HostLink& link);

// RateOfHostLink for the device `device_id` of the model; nullopt when the
// device or its link is unknown.
std::optional<HostLinkRate> DeviceLinkRate(const TraceModel& model, int32_t device_id);

// bytes per ns per device id, for the devices whose link rate is known
// (what_if.h's WhatIfOptions::link_bytes_per_ns).
std::map<int32_t, double> LinkBytesPerNs(const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_HOST_LINK_RATE_H_
