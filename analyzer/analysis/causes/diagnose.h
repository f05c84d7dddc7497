// Diagnose (docs/DEFINITIONS.md): why overlap is missing, or why it did
// not pay off, as an ordered list of findings; the first significant one is
// the primary cause.
//
// Causes are checked in a fixed order (steps), and findings keep that order:
//   1 hardware       copy_engines (async_engine_count < 2: H2D||D2H
//                    impossible; 0: copies cannot overlap kernels),
//                    no_concurrent_kernels (concurrent_kernels == 0 with
//                    kernels on several streams), copy_bandwidth_bound
//                    (copy_bound.h: copies of one direction keep a copy
//                    engine busy most of the window near the reference
//                    rate: the host link is the limit), hardware_queue
//                    (hardware_queues.h: kernels of independent streams held
//                    behind each other's work in shared hardware queues);
//   2 memory_type    pageable_copies (a copy's source or destination is
//                    pageable host memory), compared with the same device's
//                    pinned copies of the same direction and similar size in
//                    this trace, else the reference's (a control trace), else
//                    the device's host link rate (a theoretical ceiling),
//                    else with nothing (the rate is unknown: never a constant);
//                    copies below latency_bound_copy_bytes are judged by
//                    their time per copy, larger ones per byte;
//   3 dependencies   same_stream (a category pair that could overlap —
//                    compute|H2D, compute|D2H, H2D|D2H — barely did, and one
//                    stream holds >= same_stream_share of both categories'
//                    time), event_wait (ops that started later than they were
//                    ready because of a cudaStreamWaitEvent on their stream),
//                    round_trip (round_trip.h: each iteration the host read
//                    back a result, synchronized and decided before the next
//                    launch), sync_between (explicit synchronizations inside
//                    the window followed by more submissions: the device
//                    drained);
//   4 hidden_sync    legacy_default_stream (hidden_sync.h, serialization), implicit_sync_call
//                    (hidden_sync.h, except pageable copies, which step 2 owns),
//                    lazy_module_loading (hardware_queues.h: a kernel's first
//                    launch waited for the running work and held the
//                    device's later launches with it);
//   5 cpu_starvation GPU idle while the submitting thread did host work
//                    (gap_causes.h's host_* causes, minus time in calls already
//                    blamed by steps 3-4);
//   6 contention     the same operations (kernel name; copy direction and
//                    size; memset size) took longer when they overlapped
//                    other ops than when they ran alone (alone: in this trace,
//                    else the reference's);
//   7 small_work     launch-bound kernel groups (launch_stats.h): GPU work shorter
//                    than its launch cost; small_grid (small_grid.h: kernels
//                    with at most half as many blocks as the device has SMs
//                    left SMs empty while the GPU counted as busy).
// Steps 6-7 explain overlap that brings no gain; they run on every trace but
// only report with evidence.
//
// impact_ns is the time the cause cost on the GPU timeline (per cause, see
// the finding's summary). Costs of idle time come from the idle partition
// (gap_causes.h; idle_partition.h says which causes each finding owns), so
// that they add up to at most the window's idle time; costs measured on
// busy time (slow copies, contention, copies not overlapped) are a separate
// budget (IdleBudgetOf). A finding is significant when impact_ns >=
// max(min_impact_ns, min_impact_share x GPU span), the GPU span being the
// window clipped to its first op start and last op end (so that host-only
// start-up time in a whole-trace window does not dilute every cause). Significant findings
// come first (in step order), then minor ones (in step order).
// Pure function of the model and the analyses it reads (DiagnoseInputs, for
// the same model and window); thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/graph_memory.h"
#include "analyzer/analysis/causes/hidden_sync.h"
#include "analyzer/analysis/causes/host_link_rate.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct WindowDetections;  // window_detections.h

enum class DiagnoseStep : uint8_t {
  kHardware = 0,
  kMemoryType = 1,
  kDependencies = 2,
  kHiddenSync = 3,
  kCpuStarvation = 4,
  kContention = 5,
  kSmallWork = 6,
};
inline constexpr int kNumDiagnoseSteps = 7;
// "hardware", "memory_type", "dependencies", "hidden_sync", "cpu_starvation",
// "contention", "small_work"
std::string_view DiagnoseStepName(DiagnoseStep s);

enum class DiagnoseCause : uint8_t {
  kCopyEngines = 0,
  kNoConcurrentKernels = 1,
  kPageableCopies = 2,
  kSameStream = 3,
  kEventWait = 4,
  kSyncBetween = 5,
  kLegacyDefaultStream = 6,
  kImplicitSyncCall = 7,
  kCpuStarvation = 8,
  kContention = 9,
  kSmallWork = 10,
  kCopyBandwidthBound = 11,  // step hardware
  kRoundTrip = 12,           // step dependencies
  kHardwareQueue = 13,       // step hardware
  kLazyLoading = 14,         // step hidden_sync
  kSmallGrid = 15,           // step small_work
};
// "copy_engines", "no_concurrent_kernels", "pageable_copies", "same_stream",
// "event_wait", "sync_between", "legacy_default_stream", "implicit_sync_call",
// "cpu_starvation", "contention", "small_work", "copy_bandwidth_bound",
// "round_trip", "hardware_queue", "lazy_module_loading", "small_grid"
std::string_view DiagnoseCauseName(DiagnoseCause c);
DiagnoseStep StepOf(DiagnoseCause c);

// Facts from another trace (a compare's control) that a diagnosis may
// compare against when its own trace lacks them.
struct DiagnoseReference {
  std::string source;  // the trace's path
  // Median duration of ops that ran alone, by OpKey().
  std::map<std::string, int64_t> alone_median_ns;
  // Per copy category: ns per byte of pinned (non-pageable) copies; 0 = none.
  std::array<double, kNumOpCategories> pinned_ns_per_byte{};
};

// The key that makes two ops "the same operation": "compute:<kernel name>",
// "H2D:<bytes>", "memset:<bytes>", ...
std::string OpKey(const TraceModel& model, int32_t op);

struct DiagnoseOptions {
  double min_impact_share = 0.01;  // of the GPU span
  int64_t min_impact_ns = 1'000;
  // Copies smaller than this on average are latency-bound: judged by their
  // time per copy, never per byte (below ~64 KiB a host copy does not reach
  // half its link's peak rate).
  int64_t latency_bound_copy_bytes = 64 << 10;
  // Pinned copies of "similar size": within this factor of the pageable
  // copies' average size.
  double similar_size_factor = 4.0;
  double same_stream_share = 0.9;       // of both categories' time on one stream
  double same_stream_max_hidden = 0.1;  // pair counts as "not overlapped" below this hidden share
  int64_t dependency_tolerance_ns = 5'000;
  double overlapped_fraction = 0.5;    // op counts as overlapped when others ran this share of it
  double alone_fraction = 0.05;        // ... as alone when others ran at most this share
  double contention_min_ratio = 1.25;  // overlapped median / alone median
  // Above this, the ops "alone" did other work under the same name (a small
  // warm-up launch of the same kernel), not the same work uncontended:
  // sharing SMs, DRAM or a copy engine with a few other ops does not slow an
  // op down by an order of magnitude.
  double contention_max_ratio = 8.0;
  int max_evidence = 8;                          // ops and calls cited per finding
  const DiagnoseReference* reference = nullptr;  // not owned; may be null
  // copy_bandwidth_bound: the copies of one direction keep a copy engine
  // busy at least this share of the GPU span ...
  double copy_bound_min_busy_share = 0.5;
  // ... and at least this many times as long as the device's kernels ran
  // (a pipeline whose copies and kernels take as long as each other is
  // bound by both: event_pipeline.sqlite, 757 us of H2D vs 752 us of kernels) ...
  double copy_bound_min_compute_ratio = 1.5;
  // ... at least this share of the reference rate (copy_bound.h).
  double copy_bound_min_rate_share = 0.7;
  // small_grid: a kernel with at most half as many blocks as SMs counts
  // when it runs at least this long (shorter ones are launch-bound:
  // small_work's).
  int64_t small_grid_min_kernel_ns = 50'000;
};

// What each cause found, as data: render/diagnose_render.cc words the
// finding's summary and remedy from it (DiagnoseSummary, DiagnoseRemedy).
struct CopyEnginesFacts {
  int32_t device_id = 0;
  std::string device_name;              // "" when not recorded
  int engines = 0;                      // 0: copies cannot overlap kernels; 1: H2D and D2H cannot overlap
  int64_t copy_ns = 0, compute_ns = 0;  // engines == 0
  int64_t h2d_ns = 0, d2h_ns = 0;       // engines == 1
};
struct NoConcurrentKernelsFacts {
  int32_t device_id = 0;
  std::string device_name;
  int64_t kernel_streams = 0;
};
struct PageableCopiesFacts {
  // Where the pinned rate that pageable copies are compared with came from,
  // in this order: the same device's pinned copies of similar size in this
  // trace; in the reference trace (a compare's control, measured too); the
  // device's host link (host_link_rate.h: a theoretical ceiling, bandwidth-
  // bound copies only). kNone: none of them: the reference rate is unknown
  // (never a constant).
  enum class Reference : uint8_t { kNone, kThisTrace, kReferenceTrace, kDeviceLink };
  struct Direction {
    OpCategory category = OpCategory::kHtoD;
    int64_t count = 0, bytes = 0, ns = 0;
    Reference reference = Reference::kNone;
    std::string reference_source;  // kReferenceTrace: its path
    HostLinkRate link;             // kDeviceLink: the link and its rate (= GB/s)
    // Latency-bound (average size < latency_bound_copy_bytes): judged per
    // copy (median_ns vs pinned_median_ns), not per byte.
    bool latency_bound = false;
    int64_t median_ns = 0, pinned_median_ns = 0;         // per copy; pinned: similar size, 0 = none
    double slowdown = 0;                                 // bandwidth-bound: per byte, pageable / pinned
    int64_t op_ns = 0, pinned_op_ns = 0, avg_bytes = 0;  // one average copy, pageable vs pinned
    int64_t extra_ns = 0;
  };
  std::vector<Direction> directions;  // in category order
  int64_t host_held_calls = 0, host_held_ns = 0;
};
struct CopyBoundFacts {
  // kThisTrace: the fastest pinned copies of the direction in this trace
  // (90th percentile rate of bandwidth-bound ones); kDeviceLink: the host
  // link's theoretical ceiling (host_link_rate.h).
  enum class Reference : uint8_t { kThisTrace, kDeviceLink };
  int32_t device_id = 0;
  OpCategory category = OpCategory::kDtoH;
  int64_t copies = 0, bytes = 0;
  int64_t busy_ns = 0;               // union of the direction's copies in the window
  int64_t span_ns = 0;               // the window's GPU span
  int64_t compute_ns = 0;            // union of the device's kernels in the window
  int64_t exposed_ns = 0;            // the direction's copies running while no kernel ran
  double achieved_bytes_per_ns = 0;  // bandwidth-bound copies: bytes / their time
  Reference reference = Reference::kThisTrace;
  double reference_bytes_per_ns = 0;
  std::optional<HostLinkRate> link;  // the device's host link; nullopt when not recorded
  double link_bytes_per_ns = 0;
  int64_t link_floor_ns = 0;  // the direction's bytes at the link's ceiling (0: link unknown)
  int copy_engines = -1;      // the device's async engine count, -1 unknown
};
struct SameStreamFacts {
  struct Device {
    int32_t device_id = 0;
    std::vector<OpCategory> categories;  // that shared the stream
    int64_t stream_id = -1;              // -1: unknown stream
    int64_t stream_ops = 0;
    int64_t hideable_ns = 0;
  };
  std::vector<Device> devices;
};
struct EventWaitDelays {
  int64_t delayed_ops = 0, delay_ns = 0, idle_ns = 0;
};
struct CallCount {
  std::string name;  // base API name
  int64_t calls = 0;
};
struct SyncBetweenFacts {
  int64_t syncs = 0, idle_ns = 0;
  std::vector<CallCount> calls;  // by name
};
struct RoundTripFacts {
  int64_t iterations = 0;        // gaps with a round trip
  int64_t idle_ns = 0;           // the partition's round_trip time
  int64_t per_iteration_ns = 0;  // idle_ns / iterations
  int64_t readback_bytes = 0;    // bytes read back, median of the longest round trips
  std::vector<CallCount> calls;  // the waiting calls, by name
  bool pytorch = false;          // the trace comes from PyTorch (aten ops): its remedies
  // What-if (diagnose_ranking.h): the read-backs gone (the estimate), the
  // host work removed alone, and both together; -1 = not estimated.
  int64_t readback_saving_ns = -1, host_alone_saving_ns = -1, together_saving_ns = -1;
};
struct HardwareQueueFacts {
  int32_t device_id = 0;  // the device with the most held kernels
  std::string device_name;
  int32_t sm_count = 0;
  int64_t held_kernels = 0;  // all devices
  int64_t delay_ns = 0;      // union of their delays in the window
  int64_t streams = 0;       // the device's streams with ops in the window
  int connections = 8;       // hardware queues per device (CUDA_DEVICE_MAX_CONNECTIONS)
  bool connections_recorded = false;
  int64_t max_concurrent_kernels = 0;  // on the device, in the window
  // Lazy module loading stalls of the device in the window (hardware_queues.h;
  // not counted in delay_ns): their time, and the first launch of the
  // longest (model op index, -1 for none).
  int64_t load_stall_ns = 0;
  int32_t load_stall_kernel = -1;
};
struct LazyLoadingFacts {
  int64_t stalls = 0, waiting_kernels = 0;
  int64_t wait_ns = 0;     // union of the waiting kernels' waits in the window
  int64_t stalled_ns = 0;  // union of the stalls in the window
  int32_t device_id = 0;   // the longest stall's device and first launch (model op index)
  int32_t first_launch = -1;
};
struct LegacyStreamFacts {
  int64_t blocking_waited_for_legacy = 0, legacy_waited_for_blocking = 0, delay_ns = 0;
};
struct ImplicitSyncFacts {
  std::vector<CallCount> calls;         // by name, the observed ones
  std::vector<ImplicitSyncKind> kinds;  // of the observed calls, in kind order
  int64_t waited_ns = 0, idle_ns = 0;
};
struct CpuStarvationFacts {
  struct HostWork {
    GapCause cause = GapCause::kHostUnannotated;
    std::string detail;  // NVTX range or call name
    int64_t ns = 0, gaps = 0;
  };
  std::vector<HostWork> top;  // the largest (at most 3), largest first
  int64_t idle_ns = 0;
};
struct ContentionFacts {
  struct Group {
    int32_t example_op = -1;                  // an op of the group (names it)
    std::string reference_source;             // "" = alone times from this trace
    int64_t overlapped_ns = 0, alone_ns = 0;  // medians
    double ratio = 0;
    int64_t overlapped_ops = 0;
    bool pageable = false;
  };
  std::vector<Group> groups;  // the largest excess first (at most 3)
  int64_t extra_ns = 0;
};
struct SmallWorkFacts {
  struct Group {
    StringId name = kNoString;
    int64_t count = 0, gpu_median_ns = 0, launch_median_ns = 0;
  };
  std::vector<Group> groups;  // the first (at most 3) launch-bound groups
  int64_t idle_ns = 0;
};
struct SmallGridFacts {
  struct Group {
    StringId name = kNoString;
    int64_t launches = 0, ns = 0, max_blocks = 0;
  };
  int32_t device_id = 0;
  std::string device_name;
  int32_t sm_count = 0;
  int64_t kernels = 0;         // small-grid kernels in the window
  int64_t underfilled_ns = 0;  // small_grid.h
  int64_t empty_ns = 0;        // the SM time left empty (the measured cost)
  std::vector<Group> groups;   // by name, the longest total first (at most 3)
};
using DiagnoseFacts =
    std::variant<std::monostate, CopyEnginesFacts, NoConcurrentKernelsFacts, PageableCopiesFacts, SameStreamFacts,
                 EventWaitDelays, SyncBetweenFacts, LegacyStreamFacts, ImplicitSyncFacts, CpuStarvationFacts,
                 ContentionFacts, SmallWorkFacts, CopyBoundFacts, RoundTripFacts, HardwareQueueFacts, LazyLoadingFacts,
                 SmallGridFacts>;

struct DiagnoseFinding {
  DiagnoseCause cause = DiagnoseCause::kSameStream;
  int64_t impact_ns = 0;
  bool significant = false;
  DiagnoseFacts facts;                        // the cause's own figures, worded by render/
  std::vector<int32_t> ops;                   // op indices cited (at most max_evidence)
  std::vector<int32_t> calls;                 // api indices cited (at most max_evidence)
  std::vector<int64_t> tids;                  // host threads involved
  std::map<std::string, double> figures;      // named numbers (ns, counts, ratios)
  std::map<std::string, std::string> labels;  // named texts (API names, NVTX ranges)
  // What-if estimate (analysis/causes/what_if.h): how much earlier the window's
  // last GPU op would end with this cause removed. An estimate on the
  // trace's dependency graph, never a measurement (only `compare` against
  // a control run measures a saving). Unset when the cause has no what-if.
  bool saving_estimated = false;
  int64_t estimated_saving_ns = 0;
};

// Something a diagnosis could not check, and why (render/ words it).
struct DiagnoseNote {
  enum class Kind : uint8_t {
    kNoOpsInWindow,       // no GPU op starts inside the window
    kCopyEnginesUnknown,  // `value`: the device whose copy engine count is not recorded
    kFirstOfWindows,      // compare diagnosed the first of `value` windows
  };
  Kind kind = Kind::kNoOpsInWindow;
  int64_t value = 0;
};

// Causes acting on the same gaps (diagnose_ranking.h): the host's waits
// (explicit syncs, copies that held it), its work between calls and the
// launch calls' blocking, removed alone and all together. Reported when the
// combination saves clearly more than the best of them alone and more than
// their savings alone add up to (causes on different gaps just add up).
struct CombinedEstimate {
  // Replayed together: at least two of the three were present, and the idle
  // time they leave could hold a significant gain (else nothing is replayed).
  bool evaluated = false;
  // Savings; -1: that cause is absent from the window.
  int64_t waits_alone_ns = -1, host_alone_ns = -1, launches_alone_ns = -1;
  int64_t together_ns = 0;
  int64_t waits_cost_ns = 0, host_cost_ns = 0, launches_cost_ns = 0;  // measured
  // together >= 1.25 x the best alone, and together - the sum alone is significant
  bool reported = false;
  int64_t best_alone_ns() const { return std::max({waits_alone_ns, host_alone_ns, launches_alone_ns, int64_t{0}}); }
  int64_t sum_alone_ns() const {
    return std::max<int64_t>(0, waits_alone_ns) + std::max<int64_t>(0, host_alone_ns) +
           std::max<int64_t>(0, launches_alone_ns);
  }
};

struct DiagnoseResult {
  Window window;
  int64_t gpu_span_ns = 0;  // first op start to last op end, inside the window
  int64_t busy_ns = 0;      // all devices
  int64_t overlap_ns = 0;   // time at least two ops overlapped (any pair), all devices
  // The idle partition (gap_causes.h) of the window, all devices: its
  // total, and the window edges and first launches reported apart.
  int64_t idle_ns = 0, idle_apart_ns = 0;
  std::vector<DiagnoseFinding> findings;  // significant first, each group in step order
  std::vector<DiagnoseNote> notes;        // what could not be checked, and why
  // Indices into `findings`, largest estimated saving first (findings
  // without an estimate after, by measured impact). Filled by the ranking;
  // empty means "not ranked" (then `findings` order is the ranking).
  std::vector<int32_t> ranked;
  // Once ranked (diagnose_ranking.h): the index of the primary cause in
  // `findings`, -1 for none.
  int32_t primary_index = -1;
  // Once ranked: how many of `ranked` lead (a significant saving, or a
  // significant finding without an estimate); the rest are lesser.
  int32_t leading_count = 0;
  // Once ranked with a dependency graph: the causes acting together.
  CombinedEstimate combined;
  // Ranked without one: the window's graph did not fit in memory (findings
  // by measured cost, no estimated saving).
  std::optional<GraphOverMemory> over_memory;
  // Unranked: the first finding when significant. Ranked: the largest
  // estimated saving (diagnose_ranking.h says how findings without an
  // estimate take part).
  const DiagnoseFinding* primary() const {
    if (!ranked.empty()) return primary_index >= 0 ? &findings[primary_index] : nullptr;
    return !findings.empty() && findings.front().significant ? &findings.front() : nullptr;
  }
  // The findings in ranking order (the check order when not ranked).
  std::vector<int32_t> RankOrder() const {
    if (!ranked.empty()) return ranked;
    std::vector<int32_t> order;
    for (size_t i = 0; i < findings.size(); ++i) order.push_back(static_cast<int32_t>(i));
    return order;
  }
};

// What the diagnosis reads: the results of other analyses of the same
// model and window, which the caller runs (the pipeline's plan lists them:
// WithDependencies in pipeline/analysis_plan.h).
struct DiagnoseInputs {
  const OverlapResult& overlap;
  const GapCausesResult& gap_causes;
  const HiddenSyncResult& hidden_sync;
  const LaunchStatsResult& launch_stats;
  // Step 6: AnalyzeContention (contention.h) with the same options.
  const std::optional<DiagnoseFinding>& contention;
  // Steps 1 and 4, hardware_queue and lazy_module_loading: the window's
  // detections (window_detections.h), which the what-ifs read too.
  const WindowDetections& detections;
};

DiagnoseResult AnalyzeDiagnose(const TraceModel& model, const Window& window, const DiagnoseOptions& options,
                               const DiagnoseInputs& inputs);
// Drops the whole-trace facts AnalyzeDiagnose builds once per trace (its
// next call builds them again), as ForgetHiddenSyncFacts does.
void ForgetDiagnoseFacts(const TraceModel& model);

// Reference facts (alone durations, pinned copy rates) of a trace's windows.
DiagnoseReference BuildDiagnoseReference(const TraceModel& model, const std::vector<Window>& windows,
                                         const DiagnoseOptions& options = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_H_
