// launch_individual and launch_graph: the same sequence of `kernels` TinyStep
// kernels (one warp each, a few instructions), repeated `iterations` times
// on one non-blocking stream, followed by one 128-byte D2H of the lane
// state. launch_individual calls cudaLaunchKernel kernels x iterations
// times; launch_graph captures the sequence once (NVTX range "graph_build",
// before the measured region), uploads it and replays it `iterations` times
// with cudaGraphLaunch. Same kernel names, counts and order, so the same
// result: each kernel's update depends on the previous one's.
#include <cuda_runtime_api.h>

#include <array>

#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"
#include "workloads/harness/cpu_reference.h"

namespace streamscope::workloads {
namespace {

// Captures `kernels` TinyStep launches on `stream` into *exec. Ends the
// capture on every path, so a failed launch leaves the stream usable.
Status BuildGraph(std::uint32_t* lanes, int kernels, cudaStream_t stream, GraphExec* exec) {
  ScopedNvtxRange range(kGraphBuildRange);
  SS_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  Status launched = OkStatus();
  for (int k = 0; k < kernels && launched.ok(); ++k) {
    launched = LaunchTinyStep(lanes, std::uint32_t(k), stream);
  }
  Graph graph;
  const cudaError_t end_error = cudaStreamEndCapture(stream, graph.out());
  SS_RETURN_IF_ERROR(launched);
  SS_CUDA_RETURN_IF_ERROR(end_error);
  SS_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(exec->out(), graph.get(), 0));
  SS_CUDA_RETURN_IF_ERROR(cudaGraphUpload(exec->get(), stream));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return OkStatus();
}

}  // namespace

StatusOr<VariantOutcome> RunLaunchVariant(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  const bool use_graph = o.variant == "launch_graph";

  SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(cudaStreamNonBlocking));
  SS_ASSIGN_OR_RETURN(DeviceWords lanes, DeviceWords::Allocate(kTinyLanes));
  SS_ASSIGN_OR_RETURN(DeviceWords warm_lanes, DeviceWords::Allocate(kTinyLanes));
  SS_ASSIGN_OR_RETURN(HostWords result, HostWords::Allocate(kTinyLanes, HostMemoryKind::kPinned));
  std::array<std::uint32_t, kTinyLanes> initial;
  for (int t = 0; t < kTinyLanes; ++t) initial[t] = TinyInitial(t);
  SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(lanes.get(), initial.data(), lanes.bytes(), cudaMemcpyHostToDevice));
  // Warm-up on other memory: loads the kernel outside the window.
  SS_RETURN_IF_ERROR(LaunchTinyStep(warm_lanes.get(), 0, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  GraphExec exec;
  if (use_graph) SS_RETURN_IF_ERROR(BuildGraph(lanes.get(), o.kernels, stream.get(), &exec));
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  for (int it = 0; it < o.iterations; ++it) {
    if (use_graph) {
      SS_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec.get(), stream.get()));
      continue;
    }
    for (int k = 0; k < o.kernels; ++k) {
      SS_RETURN_IF_ERROR(LaunchTinyStep(lanes.get(), std::uint32_t(k), stream.get()));
    }
  }
  SS_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(result.get(), lanes.get(), lanes.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();

  const std::array<std::uint32_t, kTinyLanes> want = TinySequenceReference(o.kernels, o.iterations);
  outcome.validation =
      CompareWords("tiny-kernel lane states", result.get(), kTinyLanes, [&](std::uint64_t t) { return want[t]; });
  outcome.summary = StringPrintf("kernel_launches=%lld", static_cast<long long>(o.kernels) * o.iterations);
  return outcome;
}

}  // namespace streamscope::workloads
