// Host-side launchers of the workload kernels. Kernels have C linkage so the
// trace shows plain names: ChunkTransform, LegacyStreamTick, TinyStep,
// SpinCompute, PersistentWorker. Every launcher goes through
// cudaLaunchKernel and returns its error, so no extra API call is needed to
// check a launch (except LaunchTinyStepThroughDriver: the driver API).
#ifndef STREAMSCOPE_WORKLOADS_CUDA_WORKLOAD_KERNELS_H_
#define STREAMSCOPE_WORKLOADS_CUDA_WORKLOAD_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "workloads/cuda/persistent_queue.h"
#include "workloads/harness/workload_status.h"

namespace streamscope::workloads {

inline constexpr int kChunkBlockThreads = 256;
inline constexpr int kSpinBlockThreads = 128;
inline constexpr int kPersistentBlockThreads = 128;

// Grid of ChunkTransform on a device with `sm_count` SMs: a grid-stride loop
// over 8 full blocks per SM, so that every chunk kernel fills the GPU and
// reads its input progressively over its whole duration.
int ChunkTransformGrid(int sm_count);

// out[i] = Mix(step^kernel_iters(in[i])) for i < words.
Status LaunchChunkTransform(const std::uint32_t* in, std::uint32_t* out, std::uint64_t words,
                            std::uint32_t kernel_iters, int grid, cudaStream_t stream);

// counter[0] += 1, one thread.
Status LaunchLegacyStreamTick(std::uint32_t* counter, cudaStream_t stream);

// lanes[t] = TinyStepValue(lanes[t], step, t) for 32 lanes, one warp.
Status LaunchTinyStep(std::uint32_t* lanes, std::uint32_t step, cudaStream_t stream);

// TinyStep launched the way Triton and other libraries launch their kernels:
// through the CUDA driver API (cuLaunchKernelEx), not the runtime.
// TinyStepDriverFunction looks the kernel up once (a CUfunction).
StatusOr<void*> TinyStepDriverFunction();
Status LaunchTinyStepThroughDriver(void* function, std::uint32_t* lanes, std::uint32_t step, cudaStream_t stream);

// out[g] = Mix(step^kernel_iters(SpinSeed(launch, g))) for the grid's
// blocks * kSpinBlockThreads threads g.
Status LaunchSpinCompute(std::uint32_t* out, std::uint32_t launch, std::uint32_t kernel_iters, int blocks,
                         cudaStream_t stream);

// The persistent kernel: `blocks` blocks take items b, b + blocks, ... from
// the queue; results[item * kPersistentBlockThreads + t].
Status LaunchPersistentWorker(const PersistentQueueView& queue, std::uint32_t* results, std::uint32_t items,
                              std::uint32_t item_iters, std::uint64_t timeout_ns, int blocks, cudaStream_t stream);

// How many PersistentWorker blocks the device can hold at once.
StatusOr<int> PersistentWorkerMaxResidentBlocks(int sm_count);

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_CUDA_WORKLOAD_KERNELS_H_
