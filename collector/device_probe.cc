#include "collector/device_probe.h"

#include <cuda.h>
#include <dlfcn.h>
#include "collector/status.h"

#include <cstdio>
#include <mutex>

namespace streamscope::collector {
namespace {

struct DriverApi {
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetUuid)(CUuuid*, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) = nullptr;
  bool ok = false;
};

DriverApi ResolveDriver() {
  DriverApi a;
  // RTLD_NOLOAD: only use a driver the process has already loaded.
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return a;
  a.cuDeviceGet = reinterpret_cast<decltype(a.cuDeviceGet)>(dlsym(h, "cuDeviceGet"));
  a.cuDeviceGetName = reinterpret_cast<decltype(a.cuDeviceGetName)>(dlsym(h, "cuDeviceGetName"));
  a.cuDeviceGetUuid = reinterpret_cast<decltype(a.cuDeviceGetUuid)>(dlsym(h, "cuDeviceGetUuid_v2"));
  if (a.cuDeviceGetUuid == nullptr) {
    a.cuDeviceGetUuid = reinterpret_cast<decltype(a.cuDeviceGetUuid)>(dlsym(h, "cuDeviceGetUuid"));
  }
  a.cuDeviceTotalMem = reinterpret_cast<decltype(a.cuDeviceTotalMem)>(dlsym(h, "cuDeviceTotalMem_v2"));
  a.cuDeviceGetAttribute = reinterpret_cast<decltype(a.cuDeviceGetAttribute)>(dlsym(h, "cuDeviceGetAttribute"));
  a.cuDriverGetVersion = reinterpret_cast<decltype(a.cuDriverGetVersion)>(dlsym(h, "cuDriverGetVersion"));
  a.cuDeviceGetCount = reinterpret_cast<decltype(a.cuDeviceGetCount)>(dlsym(h, "cuDeviceGetCount"));
  a.cuDeviceGetPCIBusId = reinterpret_cast<decltype(a.cuDeviceGetPCIBusId)>(dlsym(h, "cuDeviceGetPCIBusId"));
  a.ok = a.cuDeviceGet && a.cuDeviceGetName && a.cuDeviceGetAttribute;
  return a;
}

// Resolved again until it works: a collector started from the process
// itself (streamscope_record_start) may run before the driver is loaded.
DriverApi Driver() {
  static std::mutex mu;
  static DriverApi api;
  std::lock_guard<std::mutex> lock(mu);
  if (!api.ok) api = ResolveDriver();
  return api;
}

}  // namespace

std::string FormatGpuUuid(const unsigned char b[16]) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

StatusOr<int> DriverVersion() {
  const DriverApi d = Driver();
  int v = 0;
  if (d.cuDriverGetVersion == nullptr || d.cuDriverGetVersion(&v) != CUDA_SUCCESS) {
    return UnavailableError("cuDriverGetVersion unavailable");
  }
  return v;
}

StatusOr<int> DeviceCount() {
  const DriverApi d = Driver();
  int n = 0;
  if (d.cuDeviceGetCount == nullptr || d.cuDeviceGetCount(&n) != CUDA_SUCCESS) {
    return UnavailableError("CUDA driver not loaded or not initialized");
  }
  return n;
}

StatusOr<std::string> DevicePciBusId(int ordinal) {
  const DriverApi d = Driver();
  if (!d.ok || d.cuDeviceGetPCIBusId == nullptr) return UnavailableError("CUDA driver not loaded");
  CUdevice dev;
  if (d.cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS) return NotFoundError(StrCat("no CUDA device ", ordinal));
  char bus[32] = {};
  if (d.cuDeviceGetPCIBusId(bus, sizeof(bus) - 1, dev) != CUDA_SUCCESS || bus[0] == 0) {
    return UnavailableError("cuDeviceGetPCIBusId failed");
  }
  return std::string(bus);
}

StatusOr<DeviceRecord> ProbeDevice(int ordinal) {
  const DriverApi d = Driver();
  if (!d.ok) return UnavailableError("CUDA driver not loaded");
  CUdevice dev;
  if (d.cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS) {
    return NotFoundError(StrCat("no CUDA device ", ordinal));
  }
  DeviceRecord r;
  r.id = static_cast<uint32_t>(ordinal);
  char name[256] = {};
  if (d.cuDeviceGetName(name, sizeof(name) - 1, dev) == CUDA_SUCCESS) r.name = name;
  if (r.name.empty()) r.name = StrCat("device ", ordinal);
  CUuuid uuid;
  if (d.cuDeviceGetUuid && d.cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
    r.uuid = FormatGpuUuid(reinterpret_cast<const unsigned char*>(uuid.bytes));
  }
  size_t total = 0;
  if (d.cuDeviceTotalMem && d.cuDeviceTotalMem(&total, dev) == CUDA_SUCCESS) {
    r.global_memory_bytes = static_cast<int64_t>(total);
  }
  auto attr = [&](CUdevice_attribute a) -> std::optional<int64_t> {
    int v = 0;
    if (d.cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) return std::nullopt;
    return v;
  };
  r.compute_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  r.compute_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  r.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  r.async_engine_count = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  r.concurrent_kernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  r.global_memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  std::optional<int64_t> bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  if (r.global_memory_clock_khz && bus_bits && *r.global_memory_clock_khz > 0) {
    // Double data rate: 2 transfers per clock; KB/s like CUPTI's DEVICE record.
    r.global_memory_bandwidth_kbps = *r.global_memory_clock_khz * 2 * (*bus_bits / 8);
  }
  r.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  r.max_shared_memory_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  r.pci_bus_id = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  r.pci_device_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  return r;
}

}  // namespace streamscope::collector
