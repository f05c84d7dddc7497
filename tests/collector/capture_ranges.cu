// Known answers for capture ranges: STEPS steps (default 20), each an NVTX
// push/pop range "step" around one kernel launched with a grid of as many
// blocks as the step's number (1..STEPS), so a trace says which steps it
// holds. cudaProfilerStart comes before step 6 and cudaProfilerStop after
// step 8. With 'slow', each step also sleeps 100 ms (for start/stop from
// outside). With 'plant=K', step K also runs a kernel 'Spin' that keeps the
// GPU busy for 20 ms (the one slow step among many, for the flight
// recorder's trigger).
//   collector_capture_ranges [STEPS] [slow|plant=K]
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

__global__ void Tick(int* out) {
  if (threadIdx.x == 0) atomicAdd(out, 1);
}

__global__ void Spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  bool slow = argc > 2 && std::strcmp(argv[2], "slow") == 0;
  int plant = argc > 2 && std::strncmp(argv[2], "plant=", 6) == 0 ? std::atoi(argv[2] + 6) : 0;
  int* counter = nullptr;
  if (cudaMalloc(&counter, sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(counter, 0, sizeof(int));
  for (int step = 1; step <= steps; ++step) {
    if (step == 6) cudaProfilerStart();
    nvtxRangePushA("step");
    Tick<<<step, 32>>>(counter);
    if (step == plant) Spin<<<1, 1>>>(20'000'000ull);
    cudaDeviceSynchronize();
    nvtxRangePop();
    if (step == 8) cudaProfilerStop();
    if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  int blocks = 0;
  cudaMemcpy(&blocks, counter, sizeof(int), cudaMemcpyDeviceToHost);
  int want = steps * (steps + 1) / 2;
  std::printf("capture_ranges: %s (%d blocks, want %d)\n", blocks == want ? "ok" : "WRONG", blocks, want);
  cudaFree(counter);
  return blocks == want ? 0 : 1;
}
