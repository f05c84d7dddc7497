#include "collector/kernel_param_layout.h"

#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
#include <cstddef>

namespace streamscope::collector {
namespace {

// The runtime launches with a CUkernel handle cast to CUfunction (observed:
// cuFuncGetParamInfo rejects every runtime-launched handle), so a handle
// cuFuncGetParamInfo refuses is tried as a CUkernel.
using FuncGetParamInfoFn = CUresult (*)(CUfunction, size_t, size_t*, size_t*);
using KernelGetParamInfoFn = CUresult (*)(CUkernel, size_t, size_t*, size_t*);
struct LayoutApi {
  FuncGetParamInfoFn func = nullptr;
  KernelGetParamInfoFn kernel = nullptr;
};
const LayoutApi& GetLayoutApi() {
  static const LayoutApi api = [] {
    LayoutApi a;
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (cuda != nullptr) {
      a.func = reinterpret_cast<FuncGetParamInfoFn>(dlsym(cuda, "cuFuncGetParamInfo"));
      a.kernel = reinterpret_cast<KernelGetParamInfoFn>(dlsym(cuda, "cuKernelGetParamInfo"));
    }
    return a;
  }();
  return api;
}
std::atomic<int64_t> g_layouts_func{0}, g_layouts_kernel{0}, g_layout_error{0};

// Reads parameters 0, 1, ... until the driver says the index is past the
// end (CUDA_ERROR_INVALID_VALUE). A kernel without parameters fails at 0
// with that same error, which also means "not this kind of handle" for
// some handles: the caller treats an empty layout from index 0 as unknown
// unless no other reading works.
template <typename Get>
CUresult ReadLayout(Get get, ParamLayout* layout) {
  layout->clear();
  constexpr size_t kMaxParams = 4096;
  for (size_t i = 0; i < kMaxParams; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = get(i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE && i > 0) return CUDA_SUCCESS;
    if (r != CUDA_SUCCESS) return r;
    layout->push_back(ParamSlot{static_cast<uint32_t>(offset), static_cast<uint32_t>(size)});
  }
  return CUDA_SUCCESS;
}

}  // namespace

bool KernelParamLayout(const void* function, ParamLayout* layout) {
  const LayoutApi& api = GetLayoutApi();
  CUresult r = CUDA_ERROR_NOT_SUPPORTED, rk = CUDA_ERROR_NOT_SUPPORTED;
  if (api.func != nullptr) {
    auto f = static_cast<CUfunction>(const_cast<void*>(function));
    r = ReadLayout([&](size_t i, size_t* o, size_t* n) { return api.func(f, i, o, n); }, layout);
    if (r == CUDA_SUCCESS) {
      g_layouts_func.fetch_add(1);
      return true;
    }
  }
  if (api.kernel != nullptr) {
    auto k = static_cast<CUkernel>(const_cast<void*>(function));
    rk = ReadLayout([&](size_t i, size_t* o, size_t* n) { return api.kernel(k, i, o, n); }, layout);
    if (rk == CUDA_SUCCESS) {
      g_layouts_kernel.fetch_add(1);
      return true;
    }
  }
  layout->clear();
  // Both refused index 0 as out of range: a kernel without parameters.
  if (r == CUDA_ERROR_INVALID_VALUE && (rk == CUDA_ERROR_INVALID_VALUE || api.kernel == nullptr)) {
    return true;
  }
  int64_t expected = 0;
  g_layout_error.compare_exchange_strong(expected, static_cast<int64_t>(r));
  return false;
}

ParamLayoutCounts KernelParamLayoutCounts() {
  return {g_layouts_func.load(), g_layouts_kernel.load(), g_layout_error.load()};
}

}  // namespace streamscope::collector
