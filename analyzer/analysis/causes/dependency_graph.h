// Analysis 10, part 1 (docs/DEFINITIONS.md): the dependency graph of a
// window, with measured durations, for the what-if replay and the critical
// path.
//
// Items are the window's GPU ops (those that start in it) and outermost API
// calls (those that start in it; a driver call inside a runtime call is part
// of its outer call). Each item has a start and an end event; an edge
// u -> v says "v happens no earlier than u + lag". Edges:
//   op_duration    op start -> op end (its measured duration);
//   call_duration  call start -> call end (its measured duration; for a
//                  blocking call, the time it took to return once what it
//                  waited for was done: its "tail");
//   host_gap       previous outermost call on the thread, end -> call start
//                  (the host work between the two calls);
//   submit         submitting call start -> op start (launch latency, plus
//                  the offset of a nested submitting call in its outer call);
//   stream_order   previous op of the op's stream, end -> op start;
//   event_wait     the op an event record covered, end -> the first op
//                  submitted to the waiting stream after cudaStreamWaitEvent
//                  (from the callback API's event records and waits);
//   legacy_stream  legacy default-stream rules: a legacy-stream op after the
//                  last op submitted before it to each blocking stream of its
//                  device, and a blocking-stream op after the last op
//                  submitted before it to the legacy stream;
//   graph          ops of one CUDA graph launch on different streams: each
//                  after the op of the same launch that ended last at or
//                  before its start (the trace holds no graph topology);
//   sync_wait      an op a blocking call waited for, end -> call end;
//   host_handoff   another thread's call, end -> the call that ends a pause
//                  of this thread: a thread pauses (no CUDA call for at
//                  least handoff_min_pause_ns) while another runs, and
//                  resumes within handoff_max_latency_ns (and within half
//                  its pause) of the other thread's last call before that
//                  thread pauses too. The baton pass of PyTorch's autograd
//                  (the main thread blocks in backward() while the engine's
//                  thread launches the backward kernels, and resumes when it
//                  is done) or a queue between a loader and the submitting
//                  thread: nothing CUDA records, so it is inferred from the
//                  pattern. The resuming call's host_gap keeps only the host
//                  time after the handoff, so that work done sooner on the
//                  other thread moves this thread's calls too.
// Blocking calls: stream/event/device/context synchronize (the last op
// submitted before the call to the stream, the stream the event's last
// record covered, or every stream; a sync whose target is unknown waits for
// the op that ended last inside it), synchronous cudaMemcpy/cudaMemset (its
// own ops), an *Async copy from or to pageable memory that held the host
// until its copy ended, and allocation/free/pinned-allocation/device-config
// calls when an op of another call ended within drain_tolerance_ns before
// they returned (every stream). A call only waits for ops that ended before
// it returned.
// Edges from items outside the window (earlier ops and calls) are kept with
// the source's recorded time. An edge whose source was recorded after its
// target is dropped (stats "edge_against_time").
//
// Lags: for each event, the binding in-edge is the one whose source was
// ready last (source time + its natural lag: durations, the host gap and
// the tail for host edges; the window's median launch latency plus the
// nested offset for submit edges; 0 between GPU ops). The binding edge gets
// the recorded distance (target - source), so its lag holds every measured
// latency, queueing and unexplained wait; the others get min(natural,
// recorded distance). Replaying with these lags and nothing changed gives
// back every recorded time (what_if.h); the lags of the binding edges are
// what the what-ifs keep when they change something upstream.
//
// Cost: O(n log n) in the window's ops and calls (plus per-op lookups over
// the streams a legacy-stream op must follow). Memory: 9 bytes an edge
// (source, kind, and a 32-bit lag in columns; lags beyond 32 bits listed
// apart) and 12 an event (first in-edge, place in the order, binding edge;
// recorded times are read from the model), about 5 edges and 4 events an
// op. Thread-safe: reads the model only; the graph is immutable after
// BuildDependencyGraph.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_DEPENDENCY_GRAPH_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_DEPENDENCY_GRAPH_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

enum class DepEdgeKind : uint8_t {
  kOpDuration = 0,
  kCallDuration = 1,
  kHostGap = 2,
  kSubmit = 3,
  kStreamOrder = 4,
  kEventWait = 5,
  kLegacyStream = 6,
  kGraph = 7,
  kSyncWait = 8,
  kHandoff = 9,
};
inline constexpr int kNumDepEdgeKinds = 10;
// "op_duration", "call_duration", "host_gap", "submit", "stream_order",
// "event_wait", "legacy_stream", "graph", "sync_wait", "host_handoff"
std::string_view DepEdgeKindName(DepEdgeKind k);

// Why a call blocks the host, and on what.
enum class BlockingKind : uint8_t {
  kNone = 0,
  kStreamSync = 1,    // cudaStreamSynchronize, cuStreamSynchronize
  kEventSync = 2,     // cudaEventSynchronize, cuEventSynchronize
  kDeviceSync = 3,    // cudaDeviceSynchronize, cudaThreadSynchronize, cuCtxSynchronize
  kSyncCopy = 4,      // cudaMemcpy*/cudaMemset* without Async (and cu* forms): its own ops
  kPageableCopy = 5,  // *Async copy of pageable memory that held the host: its own ops
  kDrain = 6,         // allocation, free, pinned allocation, device config (observed draining)
};
// "none", "stream_sync", "event_sync", "device_sync", "sync_copy",
// "pageable_copy", "drain"
std::string_view BlockingKindName(BlockingKind k);
// Explicit syncs: stream, event and device synchronize.
bool IsExplicitSync(BlockingKind k);

struct DependencyGraphOptions {
  // A drain-class call (cudaMalloc, cudaFree, ...) blocks when an op of
  // another call ended at most this long before the call returned (on the
  // H200, cudaFree returned 6-12 us after the last op it drained ended:
  // tests/data/implicit_sync.sqlite).
  int64_t drain_tolerance_ns = 20'000;
  // A pageable *Async copy call held the host when it returned no earlier
  // than this before its copy ended.
  int64_t pageable_hold_tolerance_ns = 5'000;
  // host_handoff: a pause (no call) of at least this long on both threads,
  // and the resuming call at most handoff_max_latency_ns after the other
  // thread's last call. Measured under the collector (H200, PyTorch 2.11, a
  // small MLP, 300 steps): the autograd engine's thread resumed 65-346 us
  // (median 123) after the main thread's last forward launch, the main
  // thread 167-464 us (median 213) after the engine's last backward launch;
  // between its own calls the main thread paused 38 us (median).
  int64_t handoff_min_pause_ns = 50'000;
  int64_t handoff_max_latency_ns = 1'000'000;
};

struct DepEdge {
  static constexpr int32_t kOutside = -1;
  int32_t from = kOutside;  // event index, or kOutside: a node outside the window
  DepEdgeKind kind = DepEdgeKind::kOpDuration;
  int64_t from_ns = 0;  // the source's recorded time
  int64_t lag_ns = 0;   // target >= source + lag
};

class DependencyGraph;

// The graph's edges, read one at a time (DependencyGraph::edges()): they are
// kept in columns, not as DepEdge structs (13 bytes an edge, not 32).
class DepEdges {
 public:
  explicit DepEdges(const DependencyGraph& g) : g_(&g) {}
  size_t size() const;
  DepEdge operator[](size_t i) const;
  class Iterator {
   public:
    Iterator(const DepEdges* e, size_t i) : e_(e), i_(i) {}
    DepEdge operator*() const { return (*e_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const DepEdges* e_;
    size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  const DependencyGraph* g_;
};

class DependencyGraph {
 public:
  const Window& window() const { return window_; }

  // Items: graph ops 0..op_count()-1, graph calls 0..call_count()-1.
  size_t op_count() const { return op_count_; }
  size_t call_count() const { return calls_.size(); }
  int32_t ModelOp(size_t k) const { return first_model_op_ + static_cast<int32_t>(k); }  // model op index
  int32_t ModelCall(size_t c) const { return calls_[c]; }                                // model api index
  // Graph op / call of a model index, or -1 when it is not in the graph.
  int32_t GraphOp(int32_t model_op) const;
  int32_t GraphCall(int32_t model_api) const;

  // Events: 2 per item, ops first.
  size_t event_count() const { return 2 * (op_count_ + calls_.size()); }
  static int32_t OpStart(size_t k) { return static_cast<int32_t>(2 * k); }
  static int32_t OpEnd(size_t k) { return static_cast<int32_t>(2 * k + 1); }
  int32_t CallStart(size_t c) const { return static_cast<int32_t>(2 * (op_count_ + c)); }
  int32_t CallEnd(size_t c) const { return static_cast<int32_t>(2 * (op_count_ + c) + 1); }
  bool IsOpEvent(int32_t e) const { return static_cast<size_t>(e) < 2 * op_count_; }
  bool IsEndEvent(int32_t e) const { return (e & 1) != 0; }
  // The graph op (IsOpEvent) or graph call of an event.
  size_t ItemOf(int32_t e) const {
    return IsOpEvent(e) ? static_cast<size_t>(e) / 2 : static_cast<size_t>(e) / 2 - op_count_;
  }
  int64_t Recorded(int32_t e) const {
    const size_t item = static_cast<size_t>(e) >> 1;
    if (item < op_count_) {
      const int64_t start = op_start_[item];
      return (e & 1) != 0 ? std::max(start, op_end_[item]) : start;  // an end before its start: at the start
    }
    const auto a = static_cast<size_t>(calls_[item - op_count_]);
    return (e & 1) != 0 ? api_end_[a] : api_start_[a];
  }

  // In-edges of an event; edge indices are global (EdgeIndex + i).
  uint32_t EdgeBegin(int32_t e) const { return edge_begin_[e]; }
  uint32_t EdgeEnd(int32_t e) const { return edge_begin_[e + 1]; }
  DepEdges edges() const { return DepEdges(*this); }
  size_t edge_count() const { return edge_from_.size(); }
  // Edge `i`'s parts (what edges()[i] holds): its source event (kOutside
  // for a source outside the window), kind, lag and source's recorded time.
  int32_t EdgeFrom(uint32_t i) const { return edge_from_[i] < 0 ? DepEdge::kOutside : edge_from_[i]; }
  DepEdgeKind EdgeKind(uint32_t i) const { return edge_kind_[i]; }
  int64_t EdgeLag(uint32_t i) const {
    const int32_t lag = edge_lag_[i];
    return lag != kWideLag ? lag : WideLag(i);
  }
  int64_t EdgeSourceNs(uint32_t i) const {
    const int32_t f = edge_from_[i];
    return f >= 0 ? Recorded(f) : outside_ns_[static_cast<size_t>(-1 - f)];
  }
  // The target event of edge `i` (a binary search: edges are grouped by target).
  int32_t EdgeTarget(uint32_t i) const;
  // Events in an order that respects every edge (by recorded time).
  const std::vector<int32_t>& order() const { return order_; }
  // The binding in-edge of an event (global edge index), -1 for an event
  // without in-edges (a source: it keeps its recorded time).
  int32_t Binding(int32_t e) const { return binding_[e]; }

  // Per graph call: host thread, blocking kind, and the stream it syncs
  // (kStreamSync; -1 otherwise or unknown).
  int64_t CallTid(size_t c) const { return tids_[call_tid_[c]]; }
  BlockingKind CallBlocking(size_t c) const { return call_blocking_[c]; }
  int32_t CallSyncStream(size_t c) const { return call_sync_stream_[c]; }
  // Per graph op: the graph call that submitted it (-1: outside the window
  // or unknown), and the model api index of the submitting call (-1 unknown).
  int32_t OpSubmitter(size_t k) const { return op_submitter_[k]; }
  int32_t OpSubmitterApi(size_t k) const { return op_submitter_api_[k]; }

  // The window's last GPU op end as recorded: the latest end of the ops that
  // intersect the window (those that started before it included).
  int64_t recorded_end_ns() const { return recorded_end_ns_; }
  // The latest end of the window's ops that are not in the graph (started
  // before the window): a floor for any replay.
  int64_t fixed_end_ns() const { return fixed_end_ns_; }
  // Median submit lag of the ops whose submission bound their start.
  int64_t launch_latency_ns() const { return launch_latency_ns_; }
  // Counters: edges per kind ("edges_submit", ...) and inputs left out
  // ("edge_against_time", "op_end_before_start", "sync_target_unknown", ...).
  const std::map<std::string, int64_t>& stats() const { return stats_; }

  // Frees what only replays read: edge lags, in-edge ranges, the order,
  // call lookups, blocking kinds, sync streams and op submitters (at 10M
  // ops about 0.6 GiB, room for the critical path's segments). Afterwards
  // only the recorded times, items, binding edges and the edges' sources,
  // kinds and source times may be read: what FindCriticalPath reads.
  void DropReplayColumns();

 private:
  friend class DependencyGraphBuilder;
  Window window_;
  // The graph's ops are the model's ops first_model_op_ .. + op_count_ - 1
  // (those that start in the window: a run of the model's start order).
  size_t op_count_ = 0;
  int32_t first_model_op_ = 0;
  std::vector<int32_t> calls_;
  std::vector<int32_t> call_lookup_;  // by model api index - first_model_api_
  int32_t first_model_api_ = 0;
  // Recorded times are read from the model's columns (8 bytes an event
  // less): the graph must not outlive its model (moving the model is fine).
  const int64_t* op_start_ = nullptr;  // at first_model_op_
  const int64_t* op_end_ = nullptr;
  const int64_t* api_start_ = nullptr;  // by model api index
  const int64_t* api_end_ = nullptr;
  std::vector<uint32_t> edge_begin_;
  // Per edge: the source event, or -1 - k for a source outside the window
  // whose recorded time is outside_ns_[k] (rare: an edge from before the
  // window, or one dropped from a cycle).
  std::vector<int32_t> edge_from_;
  std::vector<DepEdgeKind> edge_kind_;
  // Lags in 32 bits (about +-2.1 s); a wider one is kWideLag here and
  // listed in wide_lags_ (edge, lag), by edge: 4 bytes an edge, not 8.
  static constexpr int32_t kWideLag = std::numeric_limits<int32_t>::min();
  int64_t WideLag(uint32_t i) const;
  std::vector<int32_t> edge_lag_;
  std::vector<std::pair<uint32_t, int64_t>> wide_lags_;
  std::vector<int64_t> outside_ns_;
  std::vector<int32_t> order_;
  std::vector<int32_t> binding_;
  std::vector<int32_t> call_tid_;  // index into tids_ (4 bytes a call, not 8)
  std::vector<int64_t> tids_;
  std::vector<BlockingKind> call_blocking_;
  std::vector<int32_t> call_sync_stream_;
  std::vector<int32_t> op_submitter_, op_submitter_api_;
  int64_t recorded_end_ns_ = 0, fixed_end_ns_ = INT64_MIN, launch_latency_ns_ = 0;
  std::map<std::string, int64_t> stats_;
};

inline size_t DepEdges::size() const { return g_->edge_count(); }
inline DepEdge DepEdges::operator[](size_t i) const {
  const auto e = static_cast<uint32_t>(i);
  return {g_->EdgeFrom(e), g_->EdgeKind(e), g_->EdgeSourceNs(e), g_->EdgeLag(e)};
}

// The window's end under event times `time_of(event)` (recorded or
// replayed): the latest end of the graph's ops or the fixed end of the ops
// from before the window, whichever is later (recorded_end_ns() without any
// op), and the graph op that ends last (-1: one from before the window).
struct GraphEnd {
  int64_t end_ns = 0;
  int32_t end_op = -1;
};
template <typename TimeOf>
GraphEnd EndOfGraph(const DependencyGraph& g, TimeOf time_of) {
  constexpr int64_t kMinEnd = std::numeric_limits<int64_t>::min();
  GraphEnd r;
  int64_t graph_end = kMinEnd;
  for (size_t k = 0; k < g.op_count(); ++k) {
    const int64_t end = time_of(DependencyGraph::OpEnd(k));
    if (r.end_op < 0 || end > graph_end) {
      graph_end = end;
      r.end_op = static_cast<int32_t>(k);
    }
  }
  if (r.end_op >= 0 && graph_end < g.fixed_end_ns()) r.end_op = -1;
  r.end_ns = std::max(graph_end, g.fixed_end_ns());
  if (r.end_ns == kMinEnd) r.end_ns = g.recorded_end_ns();  // no op at all
  return r;
}

// `model` must be finalized.
DependencyGraph BuildDependencyGraph(const TraceModel& model, const Window& window,
                                     const DependencyGraphOptions& options = {});

// The outermost API call on its thread that contains api call `a` (itself
// when it is outermost), -1 for a call that ends before it starts. Built
// once per trace.
struct OuterCalls {
  explicit OuterCalls(const TraceModel& m);
  std::vector<int32_t> outer;           // per api call
  std::vector<int32_t> prev_on_thread;  // per outermost call: the previous outermost call, or -1
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_DEPENDENCY_GRAPH_H_
