// A process that is already a CUPTI client before CUDA initializes (as with
// torch.profiler or Nsight): the collector must say so in one line and let
// the program run unchanged. Prints "other_subscriber: ok" and exits 0.
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdio>

static void CUPTIAPI Callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

__global__ void touch(int* p) { *p = 42; }

int main() {
  CUpti_SubscriberHandle sub;
  if (cuptiSubscribe(&sub, Callback, nullptr) != CUPTI_SUCCESS) {
    std::printf("other_subscriber: could not subscribe first\n");
  }
  int* d = nullptr;
  int h = 0;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return 2;
  touch<<<1, 1>>>(d);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("other_subscriber: %s\n", h == 42 ? "ok" : "wrong");
  return h == 42 ? 0 : 1;
}
