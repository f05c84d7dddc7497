#include "analyzer/analysis/causes/api_names.h"

#include <algorithm>
#include <initializer_list>

namespace streamscope {

std::string_view BaseApiName(std::string_view n) {
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (n.size() > suffix.size() && n.ends_with(suffix)) n.remove_suffix(suffix.size());
  }
  size_t v = n.rfind("_v");
  if (v != std::string_view::npos && v + 2 < n.size() &&
      std::all_of(n.begin() + static_cast<std::ptrdiff_t>(v + 2), n.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    n = n.substr(0, v);
  }
  return n;
}

DeviceDrainingCall DeviceDrainingCallOf(std::string_view n) {
  auto is_any = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (is_any({"cudaMallocHost", "cudaFreeHost", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister",
              "cuMemAllocHost", "cuMemFreeHost", "cuMemHostAlloc", "cuMemHostRegister", "cuMemHostUnregister"})) {
    return DeviceDrainingCall::kPinnedAllocFree;
  }
  if (is_any({"cudaMalloc", "cudaFree", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocArray", "cudaMalloc3DArray",
              "cudaFreeArray", "cudaMallocManaged", "cudaMallocMipmappedArray", "cudaFreeMipmappedArray", "cuMemAlloc",
              "cuMemFree", "cuMemAllocPitch", "cuMemAllocManaged", "cuArrayCreate", "cuArrayDestroy",
              "cuArray3DCreate"})) {
    return DeviceDrainingCall::kAllocFree;
  }
  if (is_any({"cudaDeviceSetLimit", "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig", "cudaThreadSetLimit",
              "cudaThreadSetCacheConfig", "cuCtxSetLimit", "cuCtxSetCacheConfig", "cuCtxSetSharedMemConfig"})) {
    return DeviceDrainingCall::kDeviceConfig;
  }
  return DeviceDrainingCall::kNone;
}

}  // namespace streamscope
