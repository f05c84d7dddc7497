// Launch-bound microbenchmark: N empty kernels and M small (64-byte) H2D
// copies from pinned memory, interleaved on one stream, then one sync.
// Prints "launch_bound: kernels=N copies=M seconds=S" (the timed part
// excludes CUDA initialization and a warm-up).
// Usage: launch_bound [kernels=200000] [copies=50000] [args]
// With "args" the kernels take two pointers into a cudaMalloc'd block (what
// the memory tracking attributes on every launch); otherwise none.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

__global__ void empty() {}
__global__ void two_pointers(float* a, float* b) {
  if (a == b && threadIdx.x == 1024) a[0] = 0.0f;  // never true: keeps the arguments
}

int main(int argc, char** argv) {
  long kernels = argc > 1 ? std::atol(argv[1]) : 200000;
  long copies = argc > 2 ? std::atol(argv[2]) : 50000;
  bool args = argc > 3 && std::string(argv[3]) == "args";
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void *d, *h;
  cudaMalloc(&d, 4096);
  float* fa = static_cast<float*>(d);
  cudaMallocHost(&h, 64);
  for (int i = 0; i < 100; ++i) empty<<<1, 1, 0, s>>>();
  cudaStreamSynchronize(s);
  auto t0 = std::chrono::steady_clock::now();
  long every = copies > 0 ? kernels / copies : kernels + 1;
  long done_copies = 0;
  for (long i = 0; i < kernels; ++i) {
    if (args) {
      two_pointers<<<1, 1, 0, s>>>(fa, fa + 512);
    } else {
      empty<<<1, 1, 0, s>>>();
    }
    if (every > 0 && i % every == 0 && done_copies < copies) {
      cudaMemcpyAsync(d, h, 64, cudaMemcpyHostToDevice, s);
      ++done_copies;
    }
  }
  while (done_copies < copies) {
    cudaMemcpyAsync(d, h, 64, cudaMemcpyHostToDevice, s);
    ++done_copies;
  }
  cudaStreamSynchronize(s);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cudaError_t err = cudaGetLastError();
  std::printf("launch_bound: kernels=%ld copies=%ld args=%d seconds=%.4f %s\n", kernels, done_copies, args ? 1 : 0,
              secs, err == cudaSuccess ? "ok" : cudaGetErrorString(err));
  cudaFree(d);
  cudaFreeHost(h);
  cudaStreamDestroy(s);
  return err == cudaSuccess ? 0 : 1;
}
