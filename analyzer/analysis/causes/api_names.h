// API call names as the analyses compare them. Pure; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_API_NAMES_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_API_NAMES_H_

#include <cstdint>
#include <string_view>

namespace streamscope {

// The call without the suffixes CUDA adds for per-thread default streams
// and for versions: "cudaMemcpy_ptds" -> "cudaMemcpy", "cuMemAlloc_v2" ->
// "cuMemAlloc", "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync".
std::string_view BaseApiName(std::string_view name);

// Calls that wait for the whole device before they run (hidden_sync.h's
// implicit syncs), by group; kNone for any other call. Takes a BaseApiName.
enum class DeviceDrainingCall : int8_t { kNone, kPinnedAllocFree, kAllocFree, kDeviceConfig };
DeviceDrainingCall DeviceDrainingCallOf(std::string_view base_name);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_API_NAMES_H_
