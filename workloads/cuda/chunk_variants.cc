// The chunk variants: every one moves the same chunks H2D, transforms them
// with ChunkTransform and moves them back D2H; they differ only in how the
// work is submitted. Per iteration: `chunks` H2D copies and `chunks` D2H
// copies of chunk_mib MiB each and `chunks` ChunkTransform kernels.
//
//   sequential        one non-blocking stream, pinned memory: no two GPU ops
//                     can overlap.
//   overlapped        chunk c on stream c % streams (non-blocking), pinned:
//                     H2D||kernel, kernel||D2H and H2D||D2H overlap occur.
//   pageable          overlapped with pageable host memory: copies are
//                     staged through driver buffers and hold the host.
//   implicit_sync     overlapped plus cudaMalloc, cudaMemset (legacy, not
//                     Async) and cudaFree of scratch-kib KiB after each chunk:
//                     cudaFree waits for the device to drain.
//   legacy_default    chunk c on blocking stream c % streams, then a
//                     LegacyStreamTick kernel on the legacy default stream:
//                     each tick waits for all blocking-stream work and blocks
//                     the work submitted after it, so nothing overlaps.
//   cpu_starved       overlapped, but before each chunk the host spins for
//                     host-prepare-us in NVTX range "host_prepare": the device
//                     idles for the part of it not covered by GPU work.
//   misleading_timing chunk 0 on stream 0 between cudaEventRecord(start/stop),
//                     the other chunks on the other streams: the event time
//                     covers one chunk, the host time all of them.
//
// Chunk c always uses the same stream and that stream's device buffers, so
// every reuse of a buffer is ordered by its stream: no hazards.
#include <cuda_runtime_api.h>

#include <string_view>
#include <vector>

#include "workloads/cuda/chunk_data.h"
#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"

namespace streamscope::workloads {
namespace {

struct DeviceSlot {
  DeviceWords in;
  DeviceWords out;
};

// H2D, kernel, D2H of one chunk on one stream.
Status SubmitChunk(const ChunkData& data, int chunk, const DeviceSlot& slot, std::uint32_t kernel_iters, int grid,
                   cudaStream_t stream) {
  SS_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(slot.in.get(), data.input(chunk), data.bytes(), cudaMemcpyHostToDevice, stream));
  SS_RETURN_IF_ERROR(LaunchChunkTransform(slot.in.get(), slot.out.get(), data.words(), kernel_iters, grid, stream));
  SS_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(data.output(chunk), slot.out.get(), data.bytes(), cudaMemcpyDeviceToHost, stream));
  return OkStatus();
}

}  // namespace

StatusOr<VariantOutcome> RunChunkVariant(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  const std::string_view v = o.variant;
  const bool sequential = v == "sequential";
  const bool legacy = v == "legacy_default";
  const bool misleading = v == "misleading_timing";
  const int stream_count = sequential ? 1 : o.streams;
  const auto kernel_iters = std::uint32_t(o.kernel_iters);
  const int grid = ChunkTransformGrid(context.device.sm_count);

  // Setup, outside the measured region.
  SS_ASSIGN_OR_RETURN(ChunkData data,
                      ChunkData::Create(o, v == "pageable" ? HostMemoryKind::kPageable : HostMemoryKind::kPinned));
  std::vector<Stream> streams;
  std::vector<DeviceSlot> slots;
  for (int s = 0; s < stream_count; ++s) {
    SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(legacy ? cudaStreamDefault : cudaStreamNonBlocking));
    streams.push_back(std::move(stream));
    DeviceSlot slot;
    SS_ASSIGN_OR_RETURN(slot.in, DeviceWords::Allocate(data.words()));
    SS_ASSIGN_OR_RETURN(slot.out, DeviceWords::Allocate(data.words()));
    slots.push_back(std::move(slot));
  }
  SS_ASSIGN_OR_RETURN(DeviceWords tick_counter, DeviceWords::Allocate(1));
  SS_CUDA_RETURN_IF_ERROR(cudaMemset(tick_counter.get(), 0, tick_counter.bytes()));
  Event timed_start;
  Event timed_stop;
  if (misleading) {
    SS_ASSIGN_OR_RETURN(timed_start, Event::Create(cudaEventDefault));
    SS_ASSIGN_OR_RETURN(timed_stop, Event::Create(cudaEventDefault));
  }
  // Warm-up: load the kernels (lazy module loading) outside the window.
  SS_RETURN_IF_ERROR(LaunchChunkTransform(slots[0].in.get(), slots[0].out.get(), 0, 1, 1, streams[0].get()));
  if (legacy) {
    SS_ASSIGN_OR_RETURN(DeviceWords warm_counter, DeviceWords::Allocate(1));
    SS_RETURN_IF_ERROR(LaunchLegacyStreamTick(warm_counter.get(), cudaStreamLegacy));
    SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  }
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  auto stream_of = [&](int chunk) -> int {
    if (sequential) return 0;
    if (misleading) return chunk == 0 ? 0 : 1 + (chunk - 1) % (stream_count - 1);
    return chunk % stream_count;
  };

  VariantOutcome outcome;
  double event_ms_total = 0;
  MeasuredRegion measured;
  measured.Start();
  for (int it = 0; it < o.iterations; ++it) {
    if (misleading) SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(timed_start.get(), streams[0].get()));
    for (int c = 0; c < o.chunks; ++c) {
      if (v == "cpu_starved") {
        ScopedNvtxRange prepare(kHostPrepareRange);
        BusyWaitMicroseconds(o.host_prepare_us);
      }
      const int s = stream_of(c);
      SS_RETURN_IF_ERROR(SubmitChunk(data, c, slots[s], kernel_iters, grid, streams[s].get()));
      if (misleading && c == 0) {
        SS_CUDA_RETURN_IF_ERROR(cudaEventRecord(timed_stop.get(), streams[0].get()));
      }
      if (legacy) SS_RETURN_IF_ERROR(LaunchLegacyStreamTick(tick_counter.get(), cudaStreamLegacy));
      if (v == "implicit_sync") {
        void* scratch = nullptr;
        const size_t scratch_bytes = size_t(o.scratch_kib) << 10;
        SS_CUDA_RETURN_IF_ERROR(cudaMalloc(&scratch, scratch_bytes));
        const cudaError_t memset_error = cudaMemset(scratch, c & 0xff, scratch_bytes);
        const cudaError_t free_error = cudaFree(scratch);
        SS_CUDA_RETURN_IF_ERROR(memset_error);
        SS_CUDA_RETURN_IF_ERROR(free_error);
      }
    }
    if (misleading) {
      // What the application believes: the time between its two events.
      SS_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(timed_stop.get()));
      float ms = 0;
      SS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, timed_start.get(), timed_stop.get()));
      event_ms_total += ms;
    }
  }
  for (const Stream& stream : streams) SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  if (legacy) SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(cudaStreamLegacy));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();

  outcome.validation = data.Validate();
  if (legacy) {
    std::uint32_t ticks = 0;
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(&ticks, tick_counter.get(), sizeof(ticks), cudaMemcpyDeviceToHost));
    const std::uint32_t want = std::uint32_t(o.chunks) * std::uint32_t(o.iterations);
    if (ticks != want) {
      ValidationResult tick_result;
      tick_result.passed = false;
      tick_result.detail = StringPrintf("legacy-stream ticks: %u, want %u", ticks, want);
      outcome.validation.Merge(tick_result);
    }
  }
  if (misleading) {
    context.annotator.Mark(StringPrintf("result:event_elapsed_ms=%.3f", event_ms_total));
    context.annotator.Mark(StringPrintf("result:host_measured_ms=%.3f", outcome.measured_ms));
    outcome.summary =
        StringPrintf("event_elapsed_ms=%.3f (events on stream 0 around chunk 0 only) host_measured_ms=%.3f",
                     event_ms_total, outcome.measured_ms);
  }
  return outcome;
}

}  // namespace streamscope::workloads
