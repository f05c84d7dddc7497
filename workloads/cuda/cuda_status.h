// Converting CUDA runtime errors into Status, in one place. Every CUDA
// call in the workloads goes through SS_CUDA_RETURN_IF_ERROR, so a failure
// names the call, the file and line and the CUDA error.
#ifndef STREAMSCOPE_WORKLOADS_CUDA_CUDA_STATUS_H_
#define STREAMSCOPE_WORKLOADS_CUDA_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include "workloads/harness/workload_status.h"

namespace streamscope::workloads {

// INTERNAL status for a failed CUDA call (exit code 1 in the program).
inline Status CudaErrorStatus(cudaError_t error, const char* call, const char* file, int line) {
  return InternalError(StringPrintf("CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(error),
                                    cudaGetErrorString(error), call, file, line));
}

}  // namespace streamscope::workloads

#define SS_CUDA_RETURN_IF_ERROR(expr)                                                              \
  do {                                                                                             \
    const cudaError_t ss_cuda_error_ = (expr);                                                     \
    if (ss_cuda_error_ != cudaSuccess) {                                                           \
      return ::streamscope::workloads::CudaErrorStatus(ss_cuda_error_, #expr, __FILE__, __LINE__); \
    }                                                                                              \
  } while (0)

#endif  // STREAMSCOPE_WORKLOADS_CUDA_CUDA_STATUS_H_
