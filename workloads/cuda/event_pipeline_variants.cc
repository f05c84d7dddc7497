// event_pipeline and racy: three stages on three non-blocking streams (H2D,
// compute, D2H) over `slots` device input and output buffers, chained with
// cudaEventRecord / cudaStreamWaitEvent. Per iteration: `chunks` H2D, kernel
// and D2H of chunk_mib MiB each, as in the chunk variants.
//
// For chunk i (slot j = i % slots), in submission order:
//   1. H2D stream waits kernel_done[j]   (input slot j is no longer read by
//                                         chunk i - slots)      [i >= slots]
//   2. H2D into in[j];           record h2d_done[j]
//   3. compute stream waits h2d_done[j]  (input has arrived)
//      compute stream waits d2h_done[j]  (output slot j was copied out by
//                                         chunk i - slots)      [i >= slots]
//   4. ChunkTransform in[j] -> out[j];  record kernel_done[j]
//   5. D2H stream waits kernel_done[j];  D2H out[j];  record d2h_done[j]
// Every wait is needed: dropping one lets a stage read or overwrite a buffer
// that another stream still uses. event_pipeline does all of them (zero
// hazards, stages overlap). racy drops wait 1: H2D refills an input slot
// while the kernel of chunk i - slots may still read it (its default kernel
// is 4x longer than a copy, so the refill lands during the read); its
// validation may fail, and the exit code says so.
//
// cudaStreamWaitEvent calls in the whole run, with n = chunks * iterations
// (the slot index runs on across iterations): 2n + 2 max(0, n - slots) for
// event_pipeline, 2n + max(0, n - slots) for racy.
#include <cuda_runtime_api.h>

#include <array>
#include <vector>

#include "workloads/cuda/chunk_data.h"
#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"

namespace streamscope::workloads {

StatusOr<VariantOutcome> RunEventPipelineVariant(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  const bool racy = o.variant == "racy";
  const auto kernel_iters = std::uint32_t(o.kernel_iters);
  const int grid = ChunkTransformGrid(context.device.sm_count);

  SS_ASSIGN_OR_RETURN(ChunkData data, ChunkData::Create(o, HostMemoryKind::kPinned));
  enum Stage { kH2d = 0, kCompute = 1, kD2h = 2 };
  std::array<Stream, 3> streams;
  for (Stream& s : streams) {
    SS_ASSIGN_OR_RETURN(s, Stream::Create(cudaStreamNonBlocking));
  }
  struct Slot {
    DeviceWords in;
    DeviceWords out;
    Event h2d_done;
    Event kernel_done;
    Event d2h_done;
  };
  std::vector<Slot> slots(o.slots);
  for (Slot& slot : slots) {  // braces: SS_ASSIGN_OR_RETURN is several statements
    SS_ASSIGN_OR_RETURN(slot.in, DeviceWords::Allocate(data.words()));
    SS_ASSIGN_OR_RETURN(slot.out, DeviceWords::Allocate(data.words()));
    SS_ASSIGN_OR_RETURN(slot.h2d_done, Event::Create(cudaEventDisableTiming));
    SS_ASSIGN_OR_RETURN(slot.kernel_done, Event::Create(cudaEventDisableTiming));
    SS_ASSIGN_OR_RETURN(slot.d2h_done, Event::Create(cudaEventDisableTiming));
  }
  SS_RETURN_IF_ERROR(LaunchChunkTransform(slots[0].in.get(), slots[0].out.get(), 0, 1, 1, streams[kCompute].get()));
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  const cudaStream_t h2d = streams[kH2d].get();
  const cudaStream_t compute = streams[kCompute].get();
  const cudaStream_t d2h = streams[kD2h].get();
  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  const long total = long(o.chunks) * o.iterations;
  for (long i = 0; i < total; ++i) {
    const int c = int(i % o.chunks);
    Slot& slot = slots[i % o.slots];
    const bool reused = i >= o.slots;
    if (reused && !racy) SS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(h2d, slot.kernel_done.get(), 0));
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(slot.in.get(), data.input(c), data.bytes(), cudaMemcpyHostToDevice, h2d));
    SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.h2d_done.get(), h2d));

    SS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(compute, slot.h2d_done.get(), 0));
    if (reused) SS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(compute, slot.d2h_done.get(), 0));
    SS_RETURN_IF_ERROR(LaunchChunkTransform(slot.in.get(), slot.out.get(), data.words(), kernel_iters, grid, compute));
    SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.kernel_done.get(), compute));

    SS_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(d2h, slot.kernel_done.get(), 0));
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(data.output(c), slot.out.get(), data.bytes(), cudaMemcpyDeviceToHost, d2h));
    SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.d2h_done.get(), d2h));
  }
  for (const Stream& s : streams) SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();
  outcome.validation = data.Validate();
  return outcome;
}

}  // namespace streamscope::workloads
