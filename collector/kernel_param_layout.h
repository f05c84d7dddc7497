// Parameter layouts of launched kernels, read from the CUDA driver the
// process already loaded (cuFuncGetParamInfo / cuKernelGetParamInfo, CUDA >=
// 12.4): what the memory tracking needs to find pointer arguments.
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_KERNEL_PARAM_LAYOUT_H_
#define STREAMSCOPE_COLLECTOR_KERNEL_PARAM_LAYOUT_H_

#include <cstdint>

#include "collector/kernel_args.h"

namespace streamscope::collector {

// Layout of the kernel behind `function` (a CUfunction, or the CUkernel the
// runtime launches with, cast to CUfunction). False if the driver knows
// neither; an empty layout with true is a kernel without parameters.
bool KernelParamLayout(const void* function, ParamLayout* layout);

// Process-wide counts since load, for collector_stat.
struct ParamLayoutCounts {
  int64_t read_as_function = 0;  // cuFuncGetParamInfo worked
  int64_t read_as_kernel = 0;    // cuKernelGetParamInfo worked
  int64_t first_error = 0;       // CUresult of the first layout that failed (0: none)
};
ParamLayoutCounts KernelParamLayoutCounts();

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_KERNEL_PARAM_LAYOUT_H_
