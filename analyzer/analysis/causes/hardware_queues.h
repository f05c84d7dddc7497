// Streams serialized by shared hardware queues (docs/DEFINITIONS.md,
// diagnose step 1). The driver feeds a device's streams through a few
// hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default, at most
// 32); streams that share a queue are served in submission order, so a
// kernel can wait behind another stream's kernel that its own stream never
// asked for (a false dependency): the simpleHyperQ pattern, 32 streams of
// one-block kernels of which at most 16 ran at a time.
//
// A kernel K that starts inside the window is held by a shared queue when:
//   - its stream is not the legacy default stream and K is not part of a
//     CUDA graph (graph nodes follow edges the trace does not hold);
//   - its submitting call is known; K was ready at max(that call's end, the
//     end of the previous op on its stream; the end of a lazy module loading
//     stall of its device it was ready in: a kernel's first launch, whose
//     call returned while the device ran other work, after which nothing
//     started on the device until that work ended) and started
//     min_delay_ns or more later;
//   - no event wait (cudaStreamWaitEvent) was made on its stream between the
//     previous op's submission and K's (else the event-wait step owns it);
//   - an op W of another stream of the same device, not on the legacy
//     default stream, ended within tolerance_ns before K started and after
//     K was ready (K started when W ended);
//   - the device had room: the kernels running on it just before W ended,
//     W included, had fewer blocks in all than it has SMs (an SM idle: K's
//     first block would have fit whatever its resources);
//   - the device ran ops of more streams in the window than it has
//     hardware queues (the trace's CUDA_DEVICE_MAX_CONNECTIONS, recorded by
//     the collector as metadata env:CUDA_DEVICE_MAX_CONNECTIONS; 8 when not
//     recorded): with a queue per stream nothing is shared.
// Devices whose SM count is not recorded, and traces without the kernels'
// grids (TraceModel::kernel_blocks, which every importer fills), are not
// checked; a kernel whose grid is unknown counts as filling the device.
// Cost: one pass over the window's ops; the sweep that checks the device's
// room runs only when some kernel is a candidate. Pure function of the
// model; thread-safe. The pipeline runs this check and FindLoadStalls once
// per window (window_detections.h) for the diagnosis and the what-ifs.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_HARDWARE_QUEUES_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_HARDWARE_QUEUES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct HardwareQueueOptions {
  // Below this a start after the ready time is launch latency.
  int64_t min_delay_ns = 20'000;
  // How soon after W's end K may start to count as "started when W ended":
  // the kernels one end releases start one after another, about 2 us apart
  // (simpleHyperQ on an H100: 9 released kernels within 20 us).
  int64_t tolerance_ns = 50'000;
  // The driver's default queue count (CUDA_DEVICE_MAX_CONNECTIONS unset).
  int default_connections = 8;
};

struct QueueHeldKernel {
  int32_t op = -1;         // the held kernel (model op index)
  int32_t waited_op = -1;  // the op of another stream whose end released it
  int64_t ready_ns = 0;    // when it could have started
  int64_t delay_ns = 0;    // its start - ready_ns
};

// Lazy module loading stalled a device: a kernel's first launch (its call
// returned at start_ns) waited for the work running then to end (end_ns),
// and nothing else started on the device meanwhile.
struct LoadStall {
  int32_t device_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  int32_t first_launch = -1;  // the kernel (model op index)
};

struct HardwareQueueResult {
  std::vector<QueueHeldKernel> held;  // by op index
  // Where the check looked for held kernels: lazy-loading stalls on the
  // crowded devices (a kernel ready in one counts as ready at its end).
  std::vector<LoadStall> load_stalls;
  // The hardware queues of the trace's devices and whether the trace
  // recorded the setting (else the driver's default is assumed).
  int connections = 8;
  bool connections_recorded = false;
};

HardwareQueueResult FindQueueHeldKernels(const TraceModel& model, const Window& window,
                                         const HardwareQueueOptions& options = {});

// Lazy module loading stalls on any device (SMs and grids known) that held
// kernels: a stall as above, and the kernels (not its first launch) that
// were ready in it by min_delay_ns or more before its end and started at
// its end (within tolerance_ns) or later. Each waiting kernel's ready_ns is
// when its wait in the stall began (its ready time, or the stall's start),
// delay_ns that wait's length, waited_op the stall's first launch.
struct LoadStallResult {
  std::vector<LoadStall> stalls;         // those that held a kernel
  std::vector<QueueHeldKernel> waiting;  // by op index
};
LoadStallResult FindLoadStalls(const TraceModel& model, const Window& window, const HardwareQueueOptions& options = {});

// The diagnosis finding (cause lazy_module_loading), or nullopt when no
// kernel waited in a stall. Its measured cost: the union of the waits in
// the window (busy time: the device ran the work the load waited for).
std::optional<DiagnoseFinding> LoadStallFinding(const TraceModel& model, const Window& window,
                                                const LoadStallResult& stalls, int max_evidence);

// The diagnosis finding (cause hardware_queue), or nullopt when no kernel
// was held. Its measured cost: the union of the held kernels' delays in
// the window (time on a busy device: idle_partition.h counts none of it).
std::optional<DiagnoseFinding> HardwareQueueFinding(const TraceModel& model, const Window& window,
                                                    const HardwareQueueResult& held, int max_evidence);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_HARDWARE_QUEUES_H_
