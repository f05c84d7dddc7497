// A device's host link: PCIe generation and width (current and maximum) and
// whether it is attached over NVLink-C2C (Grace Hopper). The analyzer turns
// them into the theoretical ceiling of host<->device copies.
//
// Sources, in order: NVML (libnvidia-ml.so.1, dlopen'ed at run time so the
// collector has no link-time dependency and records without it), then
// /sys/bus/pci/devices/<bus id>/{current,max}_link_{speed,width} for the
// PCIe figures NVML did not give. Either may be missing (containers,
// gVisor): the record then says so (source none) and the figures stay unset.
// Never fails and never throws. NVML initialization can take a while, so
// callers run this off the application's threads.
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_HOST_LINK_PROBE_H_
#define STREAMSCOPE_COLLECTOR_HOST_LINK_PROBE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collector/trace_records.h"

namespace streamscope::collector {

class TraceWriter;

struct HostLinkProbeOptions {
  std::string nvml_library = "libnvidia-ml.so.1";  // "" skips NVML
  std::string sysfs_pci_devices = "/sys/bus/pci/devices";
};

// The link of device `device_id`, whose PCI bus id is `pci_bus_id`
// ("0000:3B:00.0"; "" when unknown: nothing can be probed).
HostLinkRecord ProbeHostLink(uint32_t device_id, const std::string& pci_bus_id,
                             const HostLinkProbeOptions& options = {});

// PCIe generation of a sysfs link speed ("16.0 GT/s PCIe", "8 GT/s",
// "2.5 GT/s"); nullopt for anything else ("Unknown", empty).
std::optional<int64_t> PcieGenerationOfSpeed(std::string_view speed);

// ProbeHostLink on a detached thread started with every signal blocked (so
// the application's signals never land on it), handing the record to
// `writer` (never destroyed: it drops and counts what arrives after capture
// ended). A thread that cannot start is a missing row, never an error.
void ProbeHostLinkInBackground(TraceWriter* writer, uint32_t device_id, std::string pci_bus_id);

// Waits at most `timeout_ms` for background probes still running (capture
// is ending: their rows should make it into the trace); true when none is
// left.
bool WaitForHostLinkProbes(int timeout_ms);

// A bus id as sysfs names its directory: lower case, 4-digit domain
// ("00000000:3B:00.0" -> "0000:3b:00.0").
std::string SysfsBusId(std::string_view pci_bus_id);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_HOST_LINK_PROBE_H_
