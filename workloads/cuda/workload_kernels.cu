// The workload kernels. Each iterates the affine step of workload_math.h one
// step at a time with runtime multiplier and increment, so the compiler can
// neither fold steps nor precompute results; the CPU reference uses the
// closed form.
#include <cuda.h>
#include <cuda/atomic>

#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/workload_kernels.h"
#include "workloads/harness/workload_math.h"

namespace streamscope::workloads {
namespace {

using SystemAtomic = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>;

__device__ __forceinline__ std::uint32_t Steps(std::uint32_t x, std::uint32_t n, std::uint32_t mul, std::uint32_t add) {
#pragma unroll 4
  for (std::uint32_t k = 0; k < n; ++k) x = x * mul + add;
  return x;
}

__device__ __forceinline__ std::uint64_t GlobalTimerNs() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kChunkBlockThreads)
    ChunkTransform(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::uint64_t words,
                   std::uint32_t kernel_iters, std::uint32_t mul, std::uint32_t add) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    out[i] = Mix(Steps(in[i], kernel_iters, mul, add));
  }
}

extern "C" __global__ void LegacyStreamTick(std::uint32_t* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) counter[0] += 1;
}

extern "C" __global__ void TinyStep(std::uint32_t* lanes, std::uint32_t step) {
  const int t = threadIdx.x;
  if (t < kTinyLanes) lanes[t] = TinyStepValue(lanes[t], step, t);
}

extern "C" __global__ void __launch_bounds__(kSpinBlockThreads)
    SpinCompute(std::uint32_t* out, std::uint32_t launch, std::uint32_t kernel_iters, std::uint32_t mul,
                std::uint32_t add) {
  const std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t seed = Hash2(kConcurrentSalt + launch, g);
  out[g] = Mix(Steps(seed, kernel_iters, mul, add));
}

extern "C" __global__ void __launch_bounds__(kPersistentBlockThreads)
    PersistentWorker(PersistentQueueView queue, std::uint32_t* results, std::uint32_t items, std::uint32_t item_iters,
                     std::uint64_t timeout_ns, std::uint32_t mul, std::uint32_t add) {
  __shared__ std::uint32_t seed_shared;
  __shared__ int status_shared;  // 0 go, 1 abort, 2 timed out
  const std::uint64_t start_ns = GlobalTimerNs();
  std::uint32_t finished = 0;
  for (std::uint32_t item = blockIdx.x; item < items; item += gridDim.x) {
    if (threadIdx.x == 0) {
      QueueSlot& slot = queue.slots[item % queue.capacity];
      SystemAtomic seq(slot.seq);
      SystemAtomic abort(queue.control->abort);
      int status = 0;
      while (seq.load(cuda::std::memory_order_acquire) != item + 1) {
        if (abort.load(cuda::std::memory_order_relaxed) != 0) {
          status = 1;
          break;
        }
        if (GlobalTimerNs() - start_ns > timeout_ns) {
          status = 2;
          break;
        }
        __nanosleep(256);
      }
      if (status == 0) {
        seed_shared = SystemAtomic(slot.seed).load(cuda::std::memory_order_relaxed);
        SystemAtomic(slot.ack).store(item + 1, cuda::std::memory_order_release);
      } else if (status == 2) {
        SystemAtomic(queue.control->timeout_item).store(item, cuda::std::memory_order_relaxed);
        SystemAtomic(queue.control->timed_out).store(1, cuda::std::memory_order_release);
      }
      status_shared = status;
    }
    __syncthreads();
    if (status_shared != 0) return;  // uniform: every thread read the same value
    const std::uint32_t x0 = Hash2(seed_shared, threadIdx.x);
    results[std::uint64_t(item) * blockDim.x + threadIdx.x] = Mix(Steps(x0, item_iters, mul, add));
    ++finished;
    // All results of this item written (and seed_shared read) before the
    // next item's wait overwrites the shared values and before the count.
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      SystemAtomic(queue.block_done[blockIdx.x]).store(finished, cuda::std::memory_order_release);
    }
  }
}

int ChunkTransformGrid(int sm_count) { return sm_count * 8; }

Status LaunchChunkTransform(const std::uint32_t* in, std::uint32_t* out, std::uint64_t words,
                            std::uint32_t kernel_iters, int grid, cudaStream_t stream) {
  std::uint32_t mul = kStepMul;
  std::uint32_t add = kStepAdd;
  void* args[] = {&in, &out, &words, &kernel_iters, &mul, &add};
  SS_CUDA_RETURN_IF_ERROR(cudaLaunchKernel(reinterpret_cast<const void*>(&ChunkTransform), dim3(grid),
                                           dim3(kChunkBlockThreads), args, 0, stream));
  return OkStatus();
}

Status LaunchLegacyStreamTick(std::uint32_t* counter, cudaStream_t stream) {
  void* args[] = {&counter};
  SS_CUDA_RETURN_IF_ERROR(
      cudaLaunchKernel(reinterpret_cast<const void*>(&LegacyStreamTick), dim3(1), dim3(1), args, 0, stream));
  return OkStatus();
}

Status LaunchTinyStep(std::uint32_t* lanes, std::uint32_t step, cudaStream_t stream) {
  void* args[] = {&lanes, &step};
  SS_CUDA_RETURN_IF_ERROR(
      cudaLaunchKernel(reinterpret_cast<const void*>(&TinyStep), dim3(1), dim3(kTinyLanes), args, 0, stream));
  return OkStatus();
}

StatusOr<void*> TinyStepDriverFunction() {
  cudaFunction_t function = nullptr;
  SS_CUDA_RETURN_IF_ERROR(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&TinyStep)));
  return reinterpret_cast<void*>(function);
}

Status LaunchTinyStepThroughDriver(void* function, std::uint32_t* lanes, std::uint32_t step, cudaStream_t stream) {
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = kTinyLanes;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = reinterpret_cast<CUstream>(stream);
  void* args[] = {&lanes, &step};
  // The driver entry point through the runtime, so that the program does not
  // link libcuda (it must start, and say why, on a machine without a driver).
  using LaunchKernelEx = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);
  static LaunchKernelEx launch = nullptr;
  if (launch == nullptr) {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    SS_CUDA_RETURN_IF_ERROR(
        cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", &entry, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || entry == nullptr) {
      return InternalError("cuLaunchKernelEx: not found in the CUDA driver");
    }
    launch = reinterpret_cast<LaunchKernelEx>(entry);
  }
  const CUresult result = launch(&config, reinterpret_cast<CUfunction>(function), args, nullptr);
  if (result != CUDA_SUCCESS) {
    return InternalError(StrCat("cuLaunchKernelEx(TinyStep): CUresult ", int(result)));
  }
  return OkStatus();
}

Status LaunchSpinCompute(std::uint32_t* out, std::uint32_t launch, std::uint32_t kernel_iters, int blocks,
                         cudaStream_t stream) {
  std::uint32_t mul = kStepMul;
  std::uint32_t add = kStepAdd;
  void* args[] = {&out, &launch, &kernel_iters, &mul, &add};
  SS_CUDA_RETURN_IF_ERROR(cudaLaunchKernel(reinterpret_cast<const void*>(&SpinCompute), dim3(blocks),
                                           dim3(kSpinBlockThreads), args, 0, stream));
  return OkStatus();
}

Status LaunchPersistentWorker(const PersistentQueueView& queue, std::uint32_t* results, std::uint32_t items,
                              std::uint32_t item_iters, std::uint64_t timeout_ns, int blocks, cudaStream_t stream) {
  PersistentQueueView view = queue;
  std::uint32_t mul = kStepMul;
  std::uint32_t add = kStepAdd;
  void* args[] = {&view, &results, &items, &item_iters, &timeout_ns, &mul, &add};
  SS_CUDA_RETURN_IF_ERROR(cudaLaunchKernel(reinterpret_cast<const void*>(&PersistentWorker), dim3(blocks),
                                           dim3(kPersistentBlockThreads), args, 0, stream));
  return OkStatus();
}

StatusOr<int> PersistentWorkerMaxResidentBlocks(int sm_count) {
  int per_sm = 0;
  SS_CUDA_RETURN_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, reinterpret_cast<const void*>(&PersistentWorker), kPersistentBlockThreads, 0));
  return per_sm * sm_count;
}

}  // namespace streamscope::workloads
