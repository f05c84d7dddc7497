// concurrent_kernels: `streams` non-blocking streams each run `iterations`
// SpinCompute kernels of `blocks` blocks x 128 threads (kernel-iters
// dependent steps per thread, about 0.2 ms at the defaults), then copy their
// own outputs back. Launches are interleaved across streams, and together
// the grids use a small fraction of the SMs, so kernels of different
// streams run at the same time. Launch L = s * iterations + k writes part k
// of stream s's own output allocation, so streams share no allocation.
#include <cuda_runtime_api.h>

#include <vector>

#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"
#include "workloads/harness/cpu_reference.h"

namespace streamscope::workloads {

StatusOr<VariantOutcome> RunConcurrentKernelsVariant(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  if (o.streams * o.blocks > context.device.sm_count * 4) {
    return InvalidArgumentError(
        StringPrintf("streams x blocks = %d is too many blocks to run together on %d SMs (limit %d)",
                     o.streams * o.blocks, context.device.sm_count, context.device.sm_count * 4));
  }
  const std::uint64_t per_launch = std::uint64_t(o.blocks) * kSpinBlockThreads;
  const std::uint64_t per_stream = per_launch * o.iterations;
  const std::uint64_t total = per_stream * o.streams;

  // Each stream has its own output allocation (and launch L writes its own
  // part of it), so no allocation is shared by two streams.
  std::vector<Stream> streams;
  std::vector<DeviceWords> outs;
  for (int s = 0; s < o.streams; ++s) {
    SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(cudaStreamNonBlocking));
    streams.push_back(std::move(stream));
    SS_ASSIGN_OR_RETURN(DeviceWords out, DeviceWords::Allocate(per_stream));
    outs.push_back(std::move(out));
  }
  SS_ASSIGN_OR_RETURN(HostWords host_out, HostWords::Allocate(total, HostMemoryKind::kPinned));
  SS_ASSIGN_OR_RETURN(DeviceWords warm, DeviceWords::Allocate(per_launch));
  SS_RETURN_IF_ERROR(LaunchSpinCompute(warm.get(), 0, 1, o.blocks, streams[0].get()));
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  for (int k = 0; k < o.iterations; ++k) {
    for (int s = 0; s < o.streams; ++s) {
      const auto launch = std::uint32_t(s * o.iterations + k);
      SS_RETURN_IF_ERROR(LaunchSpinCompute(outs[s].get() + std::uint64_t(k) * per_launch, launch,
                                           std::uint32_t(o.kernel_iters), o.blocks, streams[s].get()));
    }
  }
  for (int s = 0; s < o.streams; ++s) {
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host_out.get() + s * per_stream, outs[s].get(),
                                            per_stream * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                            streams[s].get()));
  }
  for (const Stream& s : streams) SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();

  const Affine f = AffinePower(Affine{kStepMul, kStepAdd}, std::uint64_t(o.kernel_iters));
  outcome.validation = CompareWords("spin kernel outputs", host_out.get(), total, [&](std::uint64_t i) {
    return Mix(Apply(f, SpinSeed(std::uint32_t(i / per_launch), std::uint32_t(i % per_launch))));
  });
  return outcome;
}

}  // namespace streamscope::workloads
