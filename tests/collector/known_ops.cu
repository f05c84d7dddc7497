// Known-answer CUDA program for the collector's GPU tests: a fixed set of
// kernels, copies, memsets, syncs and NVTX ranges on the legacy default
// stream, the per-thread default stream, a blocking and a non-blocking
// (priority) stream. tools/gpu/collector_check_trace.py asserts that a trace
// holds exactly these operations; keep the two in step.
//
// Flags: --exit-code N (exit with N after the work), --wait-signal (print
// "ready" and sleep up to 30 s so a test can signal or kill the process).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "known_ops: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void k_legacy(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * 2.0f + 1.0f;
}
__global__ void k_ptds(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}
__global__ void k_blocking(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= 1.0f;
}
__global__ void k_nonblocking(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 0.5f;
}

int main(int argc, char** argv) {
  int exit_code = 0;
  bool wait_signal = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--exit-code") && i + 1 < argc) exit_code = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--wait-signal")) wait_signal = true;
  }
  const size_t kB1 = 1 << 20, kB2 = 256 << 10, kB3 = 512 << 10, kB4 = 64 << 10;
  const int n = static_cast<int>(kB1 / sizeof(float));
  float *d_a, *d_b, *h_pin;
  CHECK(cudaMalloc(&d_a, kB1));
  CHECK(cudaMalloc(&d_b, kB1));
  CHECK(cudaMallocHost(&h_pin, kB1));
  float* h_page = static_cast<float*>(std::malloc(kB1));
  for (int i = 0; i < n; ++i) h_page[i] = 1.0f;

  nvtxRangeId_t whole = nvtxRangeStartA("startend");

  // Legacy default stream: pageable H2D, kernel, memset, pinned D2H, device sync.
  nvtxRangePushA("legacy");
  CHECK(cudaMemcpy(d_a, h_page, kB1, cudaMemcpyHostToDevice));
  k_legacy<<<(n + 255) / 256, 256>>>(d_a, n);
  CHECK(cudaMemset(d_b, 0, kB2));
  CHECK(cudaMemcpy(h_pin, d_a, kB1, cudaMemcpyDeviceToHost));
  CHECK(cudaDeviceSynchronize());
  nvtxRangePop();
  if (h_pin[0] != 3.0f) {
    std::fprintf(stderr, "known_ops: wrong result %f\n", h_pin[0]);
    return 1;
  }

  // Per-thread default stream (explicit handle): kernel, pinned async H2D, stream sync.
  nvtxRangePushA("per_thread");
  k_ptds<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(d_a, n);
  CHECK(cudaMemcpyAsync(d_b, h_pin, kB3, cudaMemcpyHostToDevice, cudaStreamPerThread));
  CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  nvtxRangePop();

  // Blocking stream: two kernels, async memset, pinned async D2H, event sync.
  cudaStream_t s1, s2;
  cudaEvent_t ev;
  CHECK(cudaStreamCreate(&s1));
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, greatest));
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  nvtxRangePushA("blocking");
  k_blocking<<<(n + 255) / 256, 256, 0, s1>>>(d_a, n);
  k_blocking<<<(n + 255) / 256, 256, 0, s1>>>(d_a, n);
  CHECK(cudaMemsetAsync(d_b, 1, kB2, s1));
  CHECK(cudaMemcpyAsync(h_pin, d_b, kB3, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaEventRecord(ev, s1));
  CHECK(cudaEventSynchronize(ev));
  nvtxRangePop();

  // Non-blocking priority stream: wait on the event, three kernels,
  // pageable async D2H, stream sync; nested NVTX range.
  nvtxRangePushA("non_blocking");
  nvtxRangePushA("inner");
  CHECK(cudaStreamWaitEvent(s2, ev, 0));
  for (int i = 0; i < 3; ++i) k_nonblocking<<<(n + 255) / 256, 256, 0, s2>>>(d_a, n);
  CHECK(cudaMemcpyAsync(h_page, d_a, kB4, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaStreamSynchronize(s2));
  nvtxRangePop();
  nvtxRangePop();
  nvtxRangeEnd(whole);
  nvtxMarkA("done");

  CHECK(cudaEventDestroy(ev));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFreeHost(h_pin));
  std::free(h_page);
  std::printf("known_ops: ok\n");
  std::fflush(stdout);
  if (wait_signal) {
    std::printf("ready\n");
    std::fflush(stdout);
    for (int i = 0; i < 300; ++i) usleep(100 * 1000);
  }
  return exit_code;
}
