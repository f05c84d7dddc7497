// Known-answer CUDA program for record kind `memory`: a fixed set of
// allocations of every tracked kind, copies and memsets (1D, 2D, symbol,
// peer), kernels with pointer arguments launched through the runtime
// (<<<>>>, cudaLaunchKernelEx), directly through the driver and inside a
// CUDA graph, and event record / wait / synchronize / query / elapsed on a
// non-blocking, the per-thread and the legacy stream.
// tools/gpu/collector_check_trace.py (mode memory_ops) asserts the exact
// allocation, memory_access and event_op rows; keep the two in step.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "memory_ops: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)
#define CHECK_CU(call)                                                     \
  do {                                                                     \
    CUresult r_ = (call);                                                  \
    if (r_ != CUDA_SUCCESS) {                                              \
      std::fprintf(stderr, "memory_ops: %s failed: %d\n", #call, (int)r_); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

__device__ float g_sym[256];

// Arguments: 0 and 1 point into one allocation (1 at +1024 bytes), 2 is a
// pageable host pointer (untracked), 3 is an int.
__global__ void k_three(float* a, float* interior, float* host, int n) {
  if (threadIdx.x == 0 && n < 0) a[0] = interior[0] + (host ? 1.0f : 0.0f);
}
__global__ void k_ex(float* m) {
  if (threadIdx.x == 0) m[0] += 1.0f;
}
__global__ void k_driver(float* a) {
  if (threadIdx.x == 0) a[1] += 1.0f;
}
__global__ void k_graph(float* a) {
  if (threadIdx.x == 0) a[2] += 1.0f;
}
__global__ void k_pt(float* a) {
  if (threadIdx.x == 0) a[3] += 1.0f;
}
__global__ void k_legacy(float* a) {
  if (threadIdx.x == 0) a[4] += 1.0f;
}

int main() {
  const size_t kA = 64 << 10, kManaged = 4096, kAsync = 8192, kReg = 16384, kHost = 4096;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *d_a, *m, *pitched, *async, *h_alloc;
  size_t pitch = 0;
  CHECK(cudaMalloc(&d_a, kA));
  CHECK(cudaMallocManaged(&m, kManaged));
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, 1000, 8));
  CHECK(cudaMallocAsync(reinterpret_cast<void**>(&async), kAsync, s));
  CHECK(cudaHostAlloc(&h_alloc, kHost, cudaHostAllocDefault));
  void* host_reg = std::aligned_alloc(4096, kReg);
  CHECK(cudaHostRegister(host_reg, kReg, cudaHostRegisterDefault));
  float* host_page = static_cast<float*>(std::malloc(256));
  CHECK(cudaMemset(d_a, 0, kA));  // legacy stream, before anything on s
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t t0, t1, t2, t3;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  CHECK(cudaEventCreateWithFlags(&t2, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&t3, cudaEventDisableTiming));

  CHECK(cudaEventRecord(t0, s));
  k_three<<<1, 32, 0, s>>>(d_a, d_a + 256, host_page, 16);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = s;
  CHECK(cudaLaunchKernelEx(&config, k_ex, m));
  CHECK(cudaMemset2DAsync(pitched, pitch, 0, 1000, 8, s));
  CHECK(cudaMemcpy2DAsync(pitched, pitch, d_a, 1000, 1000, 8, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaMemcpyToSymbolAsync(g_sym, h_alloc, 1024, 0, cudaMemcpyHostToDevice, s));
  CHECK(cudaMemcpyFromSymbolAsync(h_alloc, g_sym, 1024, 0, cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyPeerAsync(async, 0, d_a, 0, kAsync, s));
  CHECK(cudaMemcpyAsync(host_reg, async, kAsync, cudaMemcpyDeviceToHost, s));
  CHECK(cudaEventRecord(t1, s));
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaEventQuery(t1));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));

  // Per-thread default stream and legacy default stream, with event waits.
  k_pt<<<1, 32, 0, cudaStreamPerThread>>>(d_a);
  CHECK(cudaEventRecord(t2, cudaStreamPerThread));
  k_legacy<<<1, 32>>>(d_a);
  CHECK(cudaEventRecord(t3, 0));
  CHECK(cudaStreamWaitEvent(s, t2, 0));
  CHECK(cudaStreamWaitEvent(s, t3, 0));

  // Directly through the driver: allocation, memset, launch, free.
  CUfunction f = nullptr;
  CHECK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f), reinterpret_cast<const void*>(k_driver)));
  CUdeviceptr dptr = 0;
  CHECK_CU(cuMemAlloc(&dptr, 2048));
  CHECK_CU(cuMemsetD32Async(dptr, 0, 512, s));
  void* args[] = {&d_a};
  CHECK_CU(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr));

  // A graph with one kernel node (captured), launched once.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  k_graph<<<1, 32, 0, s>>>(d_a);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, s));

  CHECK(cudaFreeAsync(async, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK_CU(cuMemFree(dptr));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  for (cudaEvent_t e : {t0, t1, t2, t3}) CHECK(cudaEventDestroy(e));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(m));
  CHECK(cudaFree(pitched));
  CHECK(cudaHostUnregister(host_reg));
  CHECK(cudaFreeHost(h_alloc));
  CHECK(cudaStreamDestroy(s));
  std::free(host_reg);
  std::free(host_page);
  std::printf("memory_ops: ok pitch=%zu elapsed_ms=%.6f\n", pitch, ms);
  return ms > 0.0f ? 0 : 1;
}
