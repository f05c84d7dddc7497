// Device properties through the CUDA driver API, resolved at run time from
// the already-loaded driver (never linked, so a process that does not use
// CUDA never loads it because of us). Fills the device table in both
// injection modes: CUPTI's DEVICE record needs attaching before cuInit and
// lacks concurrent-kernel support.
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_DEVICE_PROBE_H_
#define STREAMSCOPE_COLLECTOR_DEVICE_PROBE_H_

#include <string>
#include "collector/status.h"

#include "collector/trace_records.h"

namespace streamscope::collector {

// Properties of CUDA device `ordinal`. Needs an initialized driver.
StatusOr<DeviceRecord> ProbeDevice(int ordinal);

// PCI bus id of CUDA device `ordinal` as the driver writes it
// ("0000:3B:00.0", cuDeviceGetPCIBusId). Needs an initialized driver.
StatusOr<std::string> DevicePciBusId(int ordinal);

// Number of CUDA devices; an error before the process initialized CUDA.
StatusOr<int> DeviceCount();

// "13000"-style driver version (cuDriverGetVersion), or an error.
StatusOr<int> DriverVersion();

// Formats a 16-byte UUID as 'GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx'.
std::string FormatGpuUuid(const unsigned char bytes[16]);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_DEVICE_PROBE_H_
