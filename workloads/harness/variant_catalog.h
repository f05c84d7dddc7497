// The catalog of reference workload variants: names, the property each one
// guarantees, and which parameters it takes. Header-only and free of CUDA so
// that both the workloads program and the `streamscope workloads` command
// (which never links CUDA) read the same list. Keep in sync with
// workloads/README.md.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_VARIANT_CATALOG_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_VARIANT_CATALOG_H_

#include <array>
#include <string_view>

namespace streamscope::workloads {

// Parameters a variant may take (bit set). Each one is a command-line flag
// --<key> and an NVTX mark "param:<key>=<value>".
enum ParamBit : unsigned {
  kParamChunks = 1u << 0,         // chunks
  kParamChunkMib = 1u << 1,       // chunk-mib
  kParamIterations = 1u << 2,     // iterations
  kParamStreams = 1u << 3,        // streams
  kParamKernelIters = 1u << 4,    // kernel-iters
  kParamHostPrepareUs = 1u << 5,  // host-prepare-us
  kParamKernels = 1u << 6,        // kernels
  kParamSlots = 1u << 7,          // slots
  kParamBlocks = 1u << 8,         // blocks
  kParamItems = 1u << 9,          // items
  kParamItemIters = 1u << 10,     // item-iters
  kParamTimeoutMs = 1u << 11,     // timeout-ms
  kParamScratchKib = 1u << 12,    // scratch-kib
  kParamStartupMs = 1u << 13,     // startup-ms
};

inline constexpr unsigned kChunkParams = kParamChunks | kParamChunkMib | kParamIterations | kParamKernelIters;

struct VariantInfo {
  std::string_view name;
  // The property the variant guarantees, in one line.
  std::string_view property;
  // Parameter bits the variant accepts.
  unsigned params;
  // Its validation may legitimately fail (the racy variant).
  bool validation_may_fail;
  // "expect:<...>" marks written into the trace, separated by ';'.
  std::string_view expectations;
};

inline constexpr std::array<VariantInfo, 20> kVariants = {{
    {"sequential", "control: H2D, kernel, D2H per chunk on ONE stream, pinned memory; no two GPU ops overlap",
     kChunkParams, false, "no_overlap"},
    {"overlapped",
     "same work as sequential on N non-blocking streams, pinned: H2D||kernel, kernel||D2H and "
     "H2D||D2H overlap occur",
     kChunkParams | kParamStreams, false, "overlap:H2D|kernel;overlap:kernel|D2H;overlap:H2D|D2H"},
    {"pageable",
     "same as overlapped but pageable host memory: copies are pageable, hold the host thread and "
     "run slower",
     kChunkParams | kParamStreams, false, "pageable_copies_hold_host"},
    {"legacy_default",
     "chunks on 2 blocking streams with a tiny kernel on the legacy default stream between "
     "submissions: no op overlaps a legacy-stream op, the streams serialize",
     kChunkParams | kParamStreams, false, "legacy_stream_serializes;no_overlap"},
    {"implicit_sync",
     "overlapped plus cudaMalloc, cudaMemset (not Async) and cudaFree inside the loop: implicit "
     "synchronizations in the measured range",
     kChunkParams | kParamStreams | kParamScratchKib, false,
     "implicit_sync:cudaMalloc;implicit_sync:cudaMemset;implicit_sync:cudaFree"},
    {"cpu_starved",
     "host work (busy loop in NVTX range host_prepare) before each chunk submission: device idle "
     "gaps caused by the CPU",
     kChunkParams | kParamStreams | kParamHostPrepareUs, false, "cpu_starvation:host_prepare"},
    {"launch_individual", "many tiny kernels launched one by one on one stream: launch-bound, gaps between kernels",
     kParamKernels | kParamIterations, false, "launch_bound;inter_kernel_gaps"},
    {"launch_graph",
     "the same tiny-kernel sequence captured once as a CUDA graph and replayed: same kernels, "
     "smaller gaps",
     kParamKernels | kParamIterations, false, "graph_removes_gaps"},
    {"event_pipeline",
     "H2D, kernel and D2H stages on 3 streams chained by cudaEventRecord/cudaStreamWaitEvent over "
     "ring buffers: every wait is needed, stages overlap",
     kChunkParams | kParamSlots, false, "event_waits_real;overlap:H2D|kernel;overlap:kernel|D2H;zero_hazards"},
    {"concurrent_kernels",
     "independent small-grid kernels on several non-blocking streams: kernel||kernel overlap "
     "across streams",
     kParamStreams | kParamIterations | kParamKernelIters | kParamBlocks, false, "overlap:kernel|kernel"},
    {"persistent_kernel",
     "ONE long kernel fed work items through a host-written queue in mapped pinned memory, with a "
     "device and host timeout",
     kParamItems | kParamItemIters | kParamBlocks | kParamSlots | kParamTimeoutMs, false,
     "single_kernel;no_launch_gaps"},
    {"racy",
     "event_pipeline WITHOUT the wait that keeps an input slot from being refilled while a kernel "
     "still reads it: a real hazard, validation may fail",
     kChunkParams | kParamSlots, true, "hazard:input_slot_refilled_during_read"},
    {"misleading_timing",
     "events recorded on one stream around 1 chunk while the other chunks run on another stream: "
     "event time < real time, validation passes",
     kChunkParams | kParamStreams, false, "timing_misses_other_streams"},
    {"peer_overlap",
     "one process drives two GPUs: kernels on each device while the previous kernel's output is "
     "sent to the other device with peer copies; P2P||kernel on both devices (one GPU: D2D)",
     kParamChunks | kParamKernelIters | kParamBlocks, false, "overlap:kernel|P2P;two_devices"},
    {"library_gemm",
     "cuBLAS SGEMMs and a kernel launched with cuLaunchKernelEx (driver API, as Triton does) after "
     "host work in NVTX range host_prepare every step: every kernel has a submitter; the GPU "
     "waits for the CPU in host_prepare",
     kParamIterations | kParamKernels | kParamHostPrepareUs, false, "every_op_submitted;cpu_starvation:host_prepare"},
    {"long_startup",
     "a long host start-up after CUDA init, before any GPU op, then a short steady state of NVTX "
     "'step' ranges: the steady state is the window, the start-up is reported apart",
     kParamIterations | kParamStartupMs, false, "steady_state:step;startup_apart"},
    {"tiny_sync",
     "iterative loop: graph launch, an 8-byte D2H copy to pageable memory and a stream sync every "
     "iteration: the per-iteration sync costs most; the tiny copy is latency-bound",
     kParamIterations | kParamKernels, false, "primary:sync_per_iteration;tiny_copy_latency_bound"},
    {"convergence_loop",
     "convergence loop as jacobiCudaGraphs writes it: graph launch, an 8-byte D2H copy to pinned "
     "memory, a stream sync and a host test every iteration: a round trip per iteration",
     kParamIterations | kParamKernels, false, "primary:round_trip"},
    {"convergence_every16",
     "convergence_loop's work, the residual read back and tested every 16 iterations (the remedy): "
     "compare with convergence_loop",
     kParamIterations | kParamKernels, false, "no_round_trip_per_iteration"},
    {"slow_first_launch",
     "~0.1 ms kernels launched with no warm-up: the first launch loads the module and is far slower "
     "than the rest; the loop is not launch-bound",
     kParamKernels, false, "first_launch_outlier;not_launch_bound"},
}};

inline const VariantInfo* FindVariant(std::string_view name) {
  for (const VariantInfo& v : kVariants) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_HARNESS_VARIANT_CATALOG_H_
