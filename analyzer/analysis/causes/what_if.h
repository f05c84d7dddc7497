// Analysis 10, part 2 (docs/DEFINITIONS.md): what removing one cause would
// save, estimated by replaying the window's dependency graph
// (dependency_graph.h).
//
// Replay: events in the graph's order; an event's time is the latest of its
// in-edges' source time + lag (an edge from outside the window: its recorded
// source time + lag); an event without in-edges keeps its recorded time. The
// replayed end is the latest replayed end of the window's ops (ops that
// started before the window keep their recorded ends). With nothing changed
// the replay gives back every recorded time.
//
// What-ifs, each one change and one replay; saving = recorded GPU span -
// replayed GPU span, a span running from the window's first op start to its
// last op end (so host work before the first GPU op, i.e. start-up, is never
// a saving: removing it moves the whole span, not its length). An estimate:
// only a measured comparison against a control run, `compare`, proves a
// saving:
//   host_work     the host time between consecutive calls of a submitting
//                 thread, inside the window, spent in the innermost NVTX
//                 range `name` (kNoString: outside any range), is removed
//                 from the host_gap edges. Measured cost: that host time.
//   sync          blocking calls named `name` (on sync stream `stream`, -1:
//                 any) no longer wait: their sync_wait edges are dropped and
//                 they return after their tail. Explicit syncs and the
//                 implicitly synchronizing calls (sync copies, drains) each
//                 make their own cause. Measured cost: host time blocked
//                 (from the call's start to the end of what it waited for).
//   pageable_copy copies from or to pageable memory on device `device_id`
//                 (-1: all) take bytes / pinned rate; an *Async call that was
//                 held by its copy no longer waits for it. The pinned rate is
//                 the median rate of the same device's pinned (non-pageable)
//                 copies of the same direction and of similar size (within
//                 similar_size_factor) in the trace, else the device's link
//                 rate (options.link_bytes_per_ns, filled by the caller from
//                 the device's link; copies of link_rate_min_bytes or more
//                 only: smaller ones are latency-bound), else no estimate
//                 (estimable false when no copy has a rate). Measured
//                 cost: the copies' time.
//   same_stream   stream `stream` split in one stream per engine class
//                 (kernels, memsets and results read back: device-to-host
//                 copies of at most kResultReadBackMaxBytes, which need the
//                 kernel before them; H2D; D2H — one class with H2D when
//                 the device has one copy engine; other copies): stream
//                 order between ops of different classes is dropped, each
//                 op follows the previous op of its class. Assumes the copy
//                 and compute on the stream are independent. Measured cost:
//                 the hideable time, min(copy time, compute time) on it.
//   first_launch  first-launch (module load) outlier calls in the window
//                 (steady_state.h) take their kernel's median call time; the
//                 ops they submitted are submitted that much earlier.
//                 Measured cost: the calls' excess time.
//   legacy_stream the legacy default stream's implicit ordering dropped (as
//                 if the blocking streams were non-blocking and the legacy
//                 stream's work ran on its own non-blocking stream): every
//                 legacy_stream edge is removed. Measured cost: the delay the
//                 bound ones imposed (target start - its time without them:
//                 the latest other in-edge), summed.
//   launch_blocking the calls that only submit work (they submitted an op
//                 and wait for nothing: kernel and graph launches, async
//                 copies of pinned memory, async memsets) return at once:
//                 their call_duration edges take lag 0; their ops are still
//                 submitted at the call's start plus the launch latency. An
//                 upper bound for fewer launches (graphs, fused kernels).
//                 Not a candidate of its own: the ranking removes it together
//                 with the waits and the host work (causes acting on the
//                 same gaps). Measured cost: the calls' host time.
//   readback      the round trips' read-backs are gone (a loop that tests
//                 its result every k iterations, with k large): the calls
//                 that waited for a small device-to-host copy (at most
//                 kResultReadBackMaxBytes: explicit syncs, copies that held
//                 the host) and the calls that submitted those copies take
//                 no time and wait for nothing, and the host time before
//                 each of them shrinks to the thread's median host gap (the
//                 way to the read-back: PyTorch's .item() dispatch); the
//                 copies stay, and so does the host work after the waits
//                 (the next iteration's). Not a candidate of its own:
//                 the round trip finding's estimate. Measured cost: the
//                 calls' host time.
//   hardware_queue the kernels held behind other streams' work in shared
//                 hardware queues (hardware_queues.h) start when they are
//                 ready: the in-edge that set each one's start (stream
//                 order or submission, whose recorded lag holds the wait)
//                 takes the lag that starts it at its ready time (its call
//                 returned, its stream's previous op ended), as if each
//                 stream had a queue of its own. Measured cost: the union
//                 of their delays.
//   lazy_loading  the kernels that waited in lazy module loading stalls
//                 (hardware_queues.h) start earlier by their wait in the
//                 stall, as with the modules loaded at start-up; what held
//                 them after it stays. Measured cost: the union of the
//                 waits.
// Cost: one replay per cause, O(events + edges). Thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_WHAT_IF_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_WHAT_IF_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct WindowDetections;  // window_detections.h

// Changes to one replay; empty vectors change nothing.
struct ReplayEdits {
  // The edges (graph.edges()) whose lag changes, and their lags: a cause
  // changes few edges of many (a copy of every lag took 8 bytes an edge).
  // In any order; of an edge listed twice, the later lag holds. The lags in
  // 4 bytes each while they fit (host work edits millions: 39 MiB less at
  // 10M ops).
  std::vector<uint32_t> lag_edge;
  NarrowInt64Column lag;
  // A bit per edge (edge i: word i / 64, bit i % 64): set = ignored (a
  // byte per edge took 48 MB at 10M ops).
  std::vector<uint64_t> removed;
  void Remove(uint32_t edge) { removed[edge >> 6] |= uint64_t{1} << (edge & 63); }
  bool Removed(uint32_t edge) const { return ((removed[edge >> 6] >> (edge & 63)) & 1) != 0; }
  struct Added {
    int32_t to, from;  // events (from may be DepEdge::kOutside)
    int64_t from_ns, lag;
  };
  std::vector<Added> added;  // `from` must come before `to` in graph.order()
};

struct ReplayResult {
  std::vector<int64_t> t;  // per event
  // Per event (with keep_binding): the in-edge that set its time (global
  // edge index; edges().size() + k for added edge k), -1 for a source.
  std::vector<int32_t> binding;
  int64_t end_ns = 0;    // latest end of the window's ops
  int64_t start_ns = 0;  // earliest start of the window's ops (end_ns without ops)
  int32_t end_op = -1;   // graph op that ends last (-1: one from before the window)
};

ReplayResult Replay(const DependencyGraph& graph, const ReplayEdits& edits = {}, bool keep_binding = false);
// The same replay, its span only (end_ns, start_ns, end_op; `t` and
// `binding` left empty): it keeps only the times still to be read, in rings
// of the latest events and a map of the few read later
// (DependencyGraphOptions::replay_ring_log2): about 10 MB at any size, not
// 8 bytes an event (what the what-ifs read).
ReplayResult ReplaySpan(const DependencyGraph& graph, const ReplayEdits& edits = {});

// The saving of a replay: recorded GPU span minus replayed GPU span.
int64_t SpanSaving(const DependencyGraph& graph, const ReplayResult& replayed);

enum class WhatIfKind : uint8_t {
  kHostWork = 0,
  kSync = 1,
  kPageableCopy = 2,
  kSameStream = 3,
  kFirstLaunch = 4,
  kLegacyStream = 5,
  kLaunchBlocking = 6,
  kReadback = 7,
  kHardwareQueue = 8,
  kLazyLoading = 9,
};
inline constexpr int kNumWhatIfKinds = 10;
// "host_work", "sync", "pageable_copy", "same_stream", "first_launch",
// "legacy_stream", "launch_blocking", "readback", "hardware_queue",
// "lazy_loading"
std::string_view WhatIfKindName(WhatIfKind k);

struct WhatIfCause {
  WhatIfKind kind = WhatIfKind::kHostWork;
  StringId name = kNoString;                    // host_work: NVTX range (kNoString: unannotated); sync: API name
  BlockingKind blocking = BlockingKind::kNone;  // sync: what kind of call
  int32_t stream = -1;                          // sync: sync stream (-1 any); same_stream: the stream
                                                // legacy_stream: no parameter
  int32_t device_id = -1;                       // pageable_copy: device (-1 all)
  friend bool operator==(const WhatIfCause&, const WhatIfCause&) = default;
};

struct WhatIfOptions {
  DependencyGraphOptions graph;
  SteadyStateOptions first_launch;  // first-launch outlier thresholds
  double similar_size_factor = 4.0;
  // Host<->device link rate per device id, bytes per ns (= GB/s), from the
  // device's link (PCIe generation and width, NVLink-C2C); no entry: unknown.
  std::map<int32_t, double> link_bytes_per_ns;
  // A link rate is a bandwidth ceiling: copies smaller than this are
  // latency-bound (a few us whatever the link) and keep their measured time.
  int64_t link_rate_min_bytes = 64 << 10;
  int64_t min_cost_ns = 1;  // candidate causes below this measured cost are not listed
  // Candidate causes replayed per kind, those of largest cost first (host
  // time of an NVTX range, call time of a sync, hideable time of a stream):
  // a trace with thousands of NVTX range names costs 16 replays, not thousands.
  int max_causes_per_kind = 16;
  int max_listed = 8;  // ops and calls kept per estimate
  // Replay the window once with nothing changed first (WhatIfResult::
  // replayed_end_ns and replay_error: how closely the graph gives back the
  // recorded end). The diagnosis' ranking reads neither and leaves it out:
  // a whole replay, one of about eight at 10M ops.
  bool replay_unchanged = true;
};

// Where a pageable copy estimate's pinned rate came from.
enum class WhatIfRateSource : uint8_t {
  kNone = 0,                    // no rate known: the copies keep their measured time
  kThisTrace = 1,               // pinned copies in this trace
  kDeviceLink = 2,              // the device's host link (host_link_rate.h)
  kThisTraceAndDeviceLink = 3,  // some copies from each
};

struct WhatIfEstimate {
  WhatIfCause cause;
  int64_t measured_cost_ns = 0;
  int64_t estimated_saving_ns = 0;  // recorded end - replayed end (negative: later)
  bool estimable = true;            // false: no rate known (pageable copies)
  // pageable_copy: where the rate came from and the copies left at their
  // measured time.
  WhatIfRateSource rate_source = WhatIfRateSource::kNone;
  int64_t unestimated_ops = 0;
  int64_t op_count = 0, call_count = 0;  // involved
  std::vector<int32_t> ops, calls;       // op / api indices, the first max_listed
};

struct WhatIfResult {
  Window window;
  int64_t recorded_end_ns = 0;  // the window's last GPU op end
  int64_t replayed_end_ns = 0;  // replayed with nothing removed (0: not replayed, options.replay_unchanged)
  // |replayed - recorded| / (recorded end - window start); 0 for an empty window.
  double replay_error = 0;
  int64_t launch_latency_ns = 0;
  std::vector<WhatIfEstimate> estimates;  // largest estimated saving first
  std::map<std::string, int64_t> graph_stats;
};

// The causes present in the window (each with a measured cost >= min_cost_ns).
std::vector<WhatIfCause> FindWhatIfCauses(const TraceModel& model, const DependencyGraph& graph,
                                          const WhatIfOptions& options = {});

// Replays the window once per cause. Ranked: largest estimated saving first
// (ties: larger measured cost, then kind order); inestimable causes last.
WhatIfResult EstimateSavings(const TraceModel& model, const Window& window, const std::vector<WhatIfCause>& causes,
                             const WhatIfOptions& options = {});
// Every cause FindWhatIfCauses finds.
WhatIfResult EstimateSavings(const TraceModel& model, const Window& window, const WhatIfOptions& options = {});
// The same on a graph already built (BuildDependencyGraph with
// options.graph), e.g. shared with FindCriticalPath: the graph is the
// costly part (about 5 events and edges per op).
WhatIfResult EstimateSavings(const TraceModel& model, const DependencyGraph& graph,
                             const std::vector<WhatIfCause>& causes, const WhatIfOptions& options = {});
WhatIfResult EstimateSavings(const TraceModel& model, const DependencyGraph& graph, const WhatIfOptions& options = {});

// Removes every cause of `causes` together, in one replay: the saving of
// removing them all (e.g. every call by which the host waits for the GPU
// each iteration: dropping one of two waits on the same work saves
// nothing). Costs and evidence add up; estimable when every cause is.
WhatIfEstimate EstimateTogether(const TraceModel& model, const DependencyGraph& graph,
                                const std::vector<WhatIfCause>& causes, const WhatIfOptions& options = {});

// The what-ifs of one graph under one set of options, sharing what every
// call above builds first (host gaps by NVTX range, ops per call, first
// launches: at 1M ops a few tenths of a second each time). The same results
// as the free functions. `model` and `graph` must outlive it.
// `detections`: the graph's window's (window_detections.h), found once for
// the diagnosis and these what-ifs (hardware_queue, lazy_loading); it must
// outlive the session. nullptr, or another window's: found here.
class WhatIfSession {
 public:
  WhatIfSession(const TraceModel& model, const DependencyGraph& graph, WhatIfOptions options = {},
                const WindowDetections* detections = nullptr);
  ~WhatIfSession();
  WhatIfSession(const WhatIfSession&) = delete;
  WhatIfSession& operator=(const WhatIfSession&) = delete;
  WhatIfResult EstimateSavings() const;  // EstimateSavings(model, graph, options)
  // The candidate causes EstimateSavings() replays (FindWhatIfCauses before
  // the measured-cost filter), and EstimateSavings() over a subset of them:
  // a caller that reads only some estimates skips the other replays (about
  // a second each at 10M ops) and gets the same figures for the rest.
  std::vector<WhatIfCause> Candidates() const;
  WhatIfResult EstimateSavings(const std::vector<WhatIfCause>& causes) const;
  WhatIfEstimate EstimateTogether(const std::vector<WhatIfCause>& causes) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_WHAT_IF_H_
