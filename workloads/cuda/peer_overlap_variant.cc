// peer_overlap: one process drives two GPUs. On each device d, `chunks`
// SpinCompute kernels (`blocks` x 128 threads, kernel-iters steps) run on a
// compute stream into two ping-pong buffers; after kernel k its buffer is
// sent to the other device with cudaMemcpyPeerAsync on d's copy stream
// (ordered after the kernel by an event), while kernel k+1 already runs.
// Before a buffer is written again (kernel k+2) the compute stream waits for
// the copy that read it, so there is no hazard. Peer copies therefore
// overlap compute on both devices. At the end each device's receive buffer
// (what the other device computed) is copied back and validated.
//
// With one GPU both sides run on device 0 (the peer copies are then
// device-to-device copies); the summary says `devices=0,0` so that a trace
// of it is never mistaken for a two-GPU run.
#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"
#include "workloads/harness/cpu_reference.h"

namespace streamscope::workloads {
namespace {

// Everything one device owns. Members are destroyed with the device's
// context still alive (the runner keeps `sides` until after validation).
struct DeviceSide {
  int device = 0;
  Stream compute;
  Stream copy;
  std::array<DeviceWords, 2> produced;  // ping-pong outputs of the kernels
  std::array<Event, 2> produced_ready;  // kernel k done (compute stream)
  std::array<Event, 2> sent;            // peer copy of buffer k%2 done (copy stream)
  DeviceWords received;                 // chunks x per_launch words from the other side
};

}  // namespace

StatusOr<VariantOutcome> RunPeerOverlapVariant(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  int device_count = 0;
  SS_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&device_count));
  const int first = context.device.ordinal;
  const int second = device_count >= 2 ? (first + 1) % device_count : first;
  const bool two_gpus = second != first;
  if (two_gpus) {
    int can_access = 0;
    SS_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&can_access, first, second));
    int can_access_back = 0;
    SS_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&can_access_back, second, first));
    if (!can_access || !can_access_back) {
      return UnavailableError(
          StringPrintf("devices %d and %d cannot access each other's memory "
                       "(no peer-to-peer path)",
                       first, second));
    }
  }

  const std::uint64_t per_launch = std::uint64_t(o.blocks) * kSpinBlockThreads;
  const std::uint64_t total = per_launch * std::uint64_t(o.chunks);
  std::array<DeviceSide, 2> sides;
  sides[0].device = first;
  sides[1].device = second;
  for (int d = 0; d < 2; ++d) {
    DeviceSide& side = sides[d];
    SS_CUDA_RETURN_IF_ERROR(cudaSetDevice(side.device));
    if (two_gpus) {
      const cudaError_t e = cudaDeviceEnablePeerAccess(sides[1 - d].device, 0);
      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) SS_CUDA_RETURN_IF_ERROR(e);
      (void)cudaGetLastError();  // clears "already enabled"
    }
    SS_ASSIGN_OR_RETURN(side.compute, Stream::Create(cudaStreamNonBlocking));
    SS_ASSIGN_OR_RETURN(side.copy, Stream::Create(cudaStreamNonBlocking));
    for (int b = 0; b < 2; ++b) {
      SS_ASSIGN_OR_RETURN(side.produced[b], DeviceWords::Allocate(per_launch));
      SS_ASSIGN_OR_RETURN(side.produced_ready[b], Event::Create(cudaEventDisableTiming));
      SS_ASSIGN_OR_RETURN(side.sent[b], Event::Create(cudaEventDisableTiming));
    }
    SS_ASSIGN_OR_RETURN(side.received, DeviceWords::Allocate(total));
    // Warm-up: load the kernel on this device outside the measured region.
    SS_RETURN_IF_ERROR(LaunchSpinCompute(side.produced[0].get(), 0, 1, o.blocks, side.compute.get()));
    SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  }
  SS_ASSIGN_OR_RETURN(HostWords host_out, HostWords::Allocate(2 * total, HostMemoryKind::kPinned));

  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  for (int k = 0; k < o.chunks; ++k) {
    const int b = k % 2;
    for (int d = 0; d < 2; ++d) {
      DeviceSide& side = sides[d];
      DeviceSide& other = sides[1 - d];
      SS_CUDA_RETURN_IF_ERROR(cudaSetDevice(side.device));
      // Buffer b was last read by the peer copy of chunk k-2.
      if (k >= 2) SS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(side.compute.get(), side.sent[b].get(), 0));
      const auto launch = std::uint32_t(d * o.chunks + k);
      SS_RETURN_IF_ERROR(LaunchSpinCompute(side.produced[b].get(), launch, std::uint32_t(o.kernel_iters), o.blocks,
                                           side.compute.get()));
      SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(side.produced_ready[b].get(), side.compute.get()));
      SS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(side.copy.get(), side.produced_ready[b].get(), 0));
      SS_CUDA_RETURN_IF_ERROR(cudaMemcpyPeerAsync(other.received.get() + std::uint64_t(k) * per_launch, other.device,
                                                  side.produced[b].get(), side.device,
                                                  per_launch * sizeof(std::uint32_t), side.copy.get()));
      SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(side.sent[b].get(), side.copy.get()));
    }
  }
  for (DeviceSide& side : sides) {
    SS_CUDA_RETURN_IF_ERROR(cudaSetDevice(side.device));
    SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(side.copy.get()));
    SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(side.compute.get()));
  }
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();

  // received on side r holds what side 1-r computed.
  for (int r = 0; r < 2; ++r) {
    SS_CUDA_RETURN_IF_ERROR(cudaSetDevice(sides[r].device));
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(host_out.get() + r * total, sides[r].received.get(),
                                       total * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  }
  SS_CUDA_RETURN_IF_ERROR(cudaSetDevice(first));
  const Affine f = AffinePower(Affine{kStepMul, kStepAdd}, std::uint64_t(o.kernel_iters));
  outcome.validation = CompareWords("peer-copied kernel outputs", host_out.get(), 2 * total, [&](std::uint64_t i) {
    const std::uint64_t r = i / total;  // receiving side
    const std::uint64_t j = i % total;
    const std::uint64_t sender = 1 - r;
    const auto launch = std::uint32_t(sender * std::uint64_t(o.chunks) + j / per_launch);
    return Mix(Apply(f, SpinSeed(launch, std::uint32_t(j % per_launch))));
  });
  outcome.summary =
      StringPrintf("devices=%d,%d%s", first, second, two_gpus ? "" : " (one GPU: peer copies are device-to-device)");
  return outcome;
}

}  // namespace streamscope::workloads
