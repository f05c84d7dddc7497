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
// the streams a legacy-stream op must follow). Memory: the structural edges
// (op_duration, call_duration, stream_order, submit, host_gap: all but a
// few hundredths of them) are implicit: their sources are read from the
// model's columns and its cached facts (stream predecessors, outermost
// calls), their lags computed from recorded times and the binding edge, and
// a byte an item says which of them are present. The other edges
// (event_wait, legacy_stream, graph, sync_wait, host_handoff) are explicit:
// 9 bytes an edge (source, kind and a 32-bit lag in columns; lags beyond 32
// bits listed apart). Per event about 5.7 bytes: its place in the order
// (4), its binding edge as a place among its in-edges (1), the item's
// implicit edges (0.5), which events have explicit in-edges (a bit, a rank
// per 64 events, a first edge per such event); recorded times are read
// from the model. About 4 events and 5 edges an op. (Every edge explicit
// and 12 bytes an event took twice the memory: at 10M ops the graph held
// 1.4 GiB, now 0.7, the model's facts it builds included.) Thread-safe:
// reads the model only; the graph is immutable after BuildDependencyGraph.
//
// Edge indices: explicit edges first (0 .. explicit_edge_count()-1, grouped
// by target), then one reserved index per implicit edge a graph could have:
// the duration edge of each item, the stream_order and submit edges of each
// op, the host_gap edge of each call (edge_count() counts them all; absent
// ones are never an in-edge nor a binding). An event's in-edges come in a
// fixed order (the order binding ties are broken in): an op start's
// stream_order, submit, then its explicit edges; an op end's op_duration; a
// call start's explicit edges (a handoff), then its host_gap; a call end's
// call_duration, then its explicit edges (sync_wait).
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_DEPENDENCY_GRAPH_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_DEPENDENCY_GRAPH_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
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
  // A replay keeps the times of the latest 2^replay_ring_log2 op events and
  // call events (by index) in rings, and the few events read after leaving
  // their ring in a map (DependencyGraph::FarRead): its memory is bounded by
  // the rings, not the window (at 10M ops 10 MB, not 200).
  int replay_ring_log2 = 20;
};

struct DepEdge {
  static constexpr int32_t kOutside = -1;
  int32_t from = kOutside;  // event index, or kOutside: a node outside the window
  DepEdgeKind kind = DepEdgeKind::kOpDuration;
  int64_t from_ns = 0;  // the source's recorded time
  int64_t lag_ns = 0;   // target >= source + lag
};

class DependencyGraph;

// The graph's edges, read one at a time by index (DependencyGraph::edges()):
// they are kept in columns or implicit, not as DepEdge structs. Not
// iterable: some indices are reserved for implicit edges that are absent
// (iterate an event's InEdges()).
class DepEdges {
 public:
  explicit DepEdges(const DependencyGraph& g) : g_(&g) {}
  size_t size() const;
  DepEdge operator[](size_t i) const;

 private:
  const DependencyGraph* g_;
};

// An event's in-edges (global edge indices), in their fixed order: up to two
// implicit edges before the explicit ones and one after (see the header).
class InEdgeList {
 public:
  class Iterator {
   public:
    Iterator(const InEdgeList* l, uint32_t k) : l_(l), k_(k) {}
    uint32_t operator*() const { return l_->At(k_); }
    Iterator& operator++() {
      ++k_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return k_ != o.k_; }

   private:
    const InEdgeList* l_;
    uint32_t k_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }
  uint32_t size() const { return before_count + (explicit_end - explicit_begin) + after_count; }
  uint32_t At(uint32_t k) const {
    if (k < before_count) return before[k];
    k -= before_count;
    if (k < explicit_end - explicit_begin) return explicit_begin + k;
    return after;
  }

  uint32_t before[2] = {0, 0};
  uint32_t before_count = 0;
  uint32_t explicit_begin = 0, explicit_end = 0;
  uint32_t after = 0;
  uint32_t after_count = 0;
};

class DependencyGraph {
 public:
  const Window& window() const { return window_; }

  // Items: graph ops 0..op_count()-1, graph calls 0..call_count()-1.
  size_t op_count() const { return op_count_; }
  size_t call_count() const { return call_count_; }
  int32_t ModelOp(size_t k) const { return first_model_op_ + static_cast<int32_t>(k); }  // model op index
  int32_t ModelCall(size_t c) const {                                                    // model api index
    return calls_identity_ ? first_model_api_ + static_cast<int32_t>(c) : calls_[c];
  }
  // Graph op / call of a model index, or -1 when it is not in the graph.
  int32_t GraphOp(int32_t model_op) const {
    const int64_t k = static_cast<int64_t>(model_op) - first_model_op_;
    return k >= 0 && static_cast<size_t>(k) < op_count_ ? static_cast<int32_t>(k) : -1;
  }
  int32_t GraphCall(int32_t model_api) const {
    const int64_t k = static_cast<int64_t>(model_api) - first_model_api_;
    if (calls_identity_) return k >= 0 && static_cast<size_t>(k) < call_count_ ? static_cast<int32_t>(k) : -1;
    return k >= 0 && static_cast<size_t>(k) < call_lookup_.size() ? call_lookup_[static_cast<size_t>(k)] : -1;
  }

  // Events: 2 per item, ops first.
  size_t event_count() const { return 2 * (op_count_ + call_count_); }
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
    const auto a = static_cast<size_t>(ModelCall(item - op_count_));
    return (e & 1) != 0 ? api_end_[a] : api_start_[a];
  }

  // Edges: explicit ones first, then the implicit ones' reserved indices
  // (see the header). edge_count() counts both, present or not.
  size_t edge_count() const { return ImplicitBase() + item_count() + 2 * op_count_ + call_count_; }
  size_t explicit_edge_count() const { return edge_from_.size(); }
  DepEdges edges() const { return DepEdges(*this); }
  // The in-edges of an event, implicit and explicit, in their fixed order.
  InEdgeList InEdges(int32_t e) const;
  // Whether edge `i` is an edge of the graph (a reserved index may not be).
  bool EdgePresent(uint32_t i) const;
  // The implicit edges' indices (present or not).
  uint32_t OpDurationEdge(size_t k) const { return DurationEdge(k); }
  uint32_t CallDurationEdge(size_t c) const { return DurationEdge(op_count_ + c); }
  uint32_t StreamOrderEdge(size_t k) const { return ImplicitBase() + static_cast<uint32_t>(item_count() + k); }
  uint32_t SubmitEdge(size_t k) const { return ImplicitBase() + static_cast<uint32_t>(item_count() + op_count_ + k); }
  uint32_t HostGapEdge(size_t c) const {
    return ImplicitBase() + static_cast<uint32_t>(item_count() + 2 * op_count_ + c);
  }
  // Edge `i`'s parts (what edges()[i] holds): its source event (kOutside
  // for a source outside the window), kind, lag and source's recorded time.
  int32_t EdgeFrom(uint32_t i) const {
    if (i >= ImplicitBase()) return ImplicitOf(i).from;
    return edge_from_[i] < 0 ? DepEdge::kOutside : edge_from_[i];
  }
  DepEdgeKind EdgeKind(uint32_t i) const { return i >= ImplicitBase() ? ImplicitOf(i).kind : edge_kind_[i]; }
  int64_t EdgeLag(uint32_t i) const;
  int64_t EdgeSourceNs(uint32_t i) const {
    if (i >= ImplicitBase()) return ImplicitOf(i).from_ns;
    const int32_t f = edge_from_[i];
    return f >= 0 ? Recorded(f) : outside_ns_[static_cast<size_t>(-1 - f)];
  }
  // Edge `i`'s source, kind and source time, decoded once; its lag is
  // left 0 (not read: a graph whose replay columns were dropped has none).
  DepEdge EdgeSource(uint32_t i) const {
    if (i >= ImplicitBase()) {
      const Implicit e = ImplicitOf(i);
      return {e.from, e.kind, e.from_ns, 0};
    }
    return {EdgeFrom(i), edge_kind_[i], EdgeSourceNs(i), 0};
  }
  // The target event of edge `i` (explicit edges: a binary search, they are
  // grouped by target).
  int32_t EdgeTarget(uint32_t i) const;
  // An implicit edge, decoded: its kind, target, source (event, kOutside
  // when outside the window or cut from a cycle; and its recorded time) and
  // its natural lag without the launch latency (see AssignLags).
  struct Implicit {
    DepEdgeKind kind;
    int32_t target;
    int32_t from;
    int64_t from_ns;
    int64_t natural;  // op_duration, stream_order: the lag; submit: the nested offset; else ImplicitNatural
  };
  Implicit ImplicitOf(uint32_t i) const;
  // Its lag: the recorded distance for the binding edge, else
  // min(natural, distance) (a call_duration edge's natural lag is its tail,
  // read from the call's sync_wait edges).
  int64_t ImplicitLag(const Implicit& e, uint32_t i) const {
    const int64_t distance = Recorded(e.target) - e.from_ns;
    if (Binding(e.target) == static_cast<int32_t>(i)) return distance;
    return std::min(ImplicitNatural(e), distance);
  }
  // Its natural lag (the launch latency included); reads explicit in-edges.
  int64_t ImplicitNatural(const Implicit& e) const;
  // The replay's loop body: visit(edge, source event or kOutside, source
  // time, lag) for each in-edge of event v, in the fixed order; the source
  // time is the source's recorded time (EdgeSourceNs; Recorded(source)
  // inside the window), which a replay that keeps each event's time as an
  // offset from its recorded time adds to. The same edges, sources and lags
  // as InEdges() with EdgeFrom() and EdgeLag(), computed per kind of event
  // without decoding each edge's index.
  template <typename Visit>
  void VisitInEdges(int32_t v, Visit&& visit) const;
  // Events in an order that respects every edge (by recorded time).
  const std::vector<int32_t>& order() const { return order_; }
  // The binding in-edge of an event (global edge index), -1 for an event
  // without in-edges (a source: it keeps its recorded time).
  int32_t Binding(int32_t e) const {
    const uint8_t place = binding_place_[e];
    if (place == kNoBinding) return -1;
    if (place == kWideBinding) return WideBinding(e);
    return static_cast<int32_t>(InEdges(e).At(place));
  }

  // Per graph call: host thread, blocking kind, and the stream it syncs
  // (kStreamSync; -1 otherwise or unknown).
  int64_t CallTid(size_t c) const { return (*api_tid_)[static_cast<size_t>(ModelCall(c))]; }
  BlockingKind CallBlocking(size_t c) const { return call_blocking_[c]; }
  int32_t CallSyncStream(size_t c) const {
    auto it = std::lower_bound(sync_stream_.begin(), sync_stream_.end(), std::make_pair(static_cast<int32_t>(c), -1));
    return it != sync_stream_.end() && it->first == static_cast<int32_t>(c) ? it->second : -1;
  }
  // Per graph op: the graph call that submitted it (-1: outside the window
  // or unknown), and the model api index of the submitting call (-1 unknown).
  int32_t OpSubmitter(size_t k) const {
    const int32_t a = op_submitter_api_[k];
    return a < 0 ? -1 : GraphCall(outer_call_[a]);
  }
  int32_t OpSubmitterApi(size_t k) const { return op_submitter_api_[k]; }

  // Replay rings (DependencyGraphOptions::replay_ring_log2): event e's ring
  // is that of the op events (e < RingSplit(), index e) or that of the call
  // events (index e - RingSplit()). Processing the events in order(), an
  // event's time is in its ring while the highest index processed in that
  // ring is less than ring_size() above its own. FarRead(e): a later event
  // reads e's time after that, from outside the ring. Found while the order
  // is checked: an edge whose target is recorded before the start of the
  // item a ring above its source cannot be one, and the few others are
  // checked along the order (the edges' sources do not depend on a
  // replay's edits; a replay checks the sources of edges it adds).
  int32_t RingSplit() const { return static_cast<int32_t>(2 * op_count_); }
  int64_t ring_size() const { return int64_t{1} << replay_ring_log2_; }
  bool FarRead(int32_t e) const {
    return !far_read_.empty() && ((far_read_[static_cast<size_t>(e) >> 6] >> (e & 63)) & 1) != 0;
  }
  size_t far_read_count() const { return far_read_count_; }

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

  // Frees what only replays read: explicit edges' lags, in-edge ranges, the
  // order, the far reads, blocking kinds and sync streams (at 10M ops about
  // 0.5 GiB, room for the critical path's segments). Afterwards only the
  // recorded times, items, binding edges and the edges' sources, kinds and
  // source times may be read: what FindCriticalPath reads.
  void DropReplayColumns();

 private:
  friend class DependencyGraphBuilder;
  Window window_;
  // The graph's ops are the model's ops first_model_op_ .. + op_count_ - 1
  // (those that start in the window: a run of the model's start order).
  size_t op_count_ = 0;
  int32_t first_model_op_ = 0;
  // The graph's calls: the model's outermost calls that start in the
  // window. When every call there is outermost (no driver call inside a
  // runtime call), graph call c is model call first_model_api_ + c and
  // neither table is kept (8 bytes a call).
  size_t call_count_ = 0;
  bool calls_identity_ = false;
  std::vector<int32_t> calls_;
  std::vector<int32_t> call_lookup_;  // by model api index - first_model_api_
  int32_t first_model_api_ = 0;
  // Recorded times are read from the model's columns (8 bytes an event
  // less): the graph must not outlive its model (moving the model is fine).
  const int64_t* op_start_ = nullptr;  // at first_model_op_
  const int64_t* op_end_ = nullptr;
  const int64_t* api_start_ = nullptr;  // by model api index
  const int64_t* api_end_ = nullptr;
  const NarrowInt64Column* api_tid_ = nullptr;  // by model api index
  size_t item_count() const { return op_count_ + call_count_; }
  // Items: ops 0 .. op_count_-1, then calls (an event's item is event / 2).
  uint32_t DurationEdge(size_t item) const { return ImplicitBase() + static_cast<uint32_t>(item); }
  DepEdgeKind DurationKind(size_t item) const {
    return item < op_count_ ? DepEdgeKind::kOpDuration : DepEdgeKind::kCallDuration;
  }
  uint32_t ImplicitBase() const { return static_cast<uint32_t>(edge_from_.size()); }
  // The latest source time of an event's explicit in-edges (a call end's
  // sync_wait edges: what the call waited for), kMinTime without any.
  int64_t ExplicitSourceMax(int32_t e) const;
  // Per item, which of its implicit edges are present and which were cut
  // from a cycle (their source then counts as outside, at its recorded time).
  enum ItemFlag : uint8_t {
    kHasFirst = 1,   // op: stream_order; call: host_gap
    kHasSubmit = 2,  // op: submit
    kCutDuration = 4,
    kCutFirst = 8,
    kCutSubmit = 16,
  };
  std::vector<uint8_t> item_flags_;
  // Model columns and cached facts the implicit edges are read from (all
  // model ops and calls, by model index).
  const int64_t* model_op_start_ = nullptr;
  const int64_t* model_op_end_ = nullptr;
  const int32_t* stream_prev_ = nullptr;     // StreamPredecessors::prev
  const int32_t* outer_call_ = nullptr;      // OuterCalls::outer
  const int32_t* prev_on_thread_ = nullptr;  // OuterCalls::prev_on_thread
  // The events with explicit in-edges (few: most edges are implicit), a bit
  // per event and a rank per 64 events, and for each of them its target and
  // first explicit edge (the next one's is its end; one more at the end):
  // about 0.2 bytes an event, not the 4 of a first edge per event.
  std::vector<uint64_t> explicit_mark_;
  std::vector<uint32_t> explicit_rank_;
  std::vector<uint32_t> explicit_begin_;
  std::vector<int32_t> explicit_target_;
  // Event e's explicit in-edges [first, second).
  std::pair<uint32_t, uint32_t> ExplicitRange(int32_t e) const {
    const auto v = static_cast<size_t>(e);
    const uint64_t word = explicit_mark_[v >> 6], bit = uint64_t{1} << (v & 63);
    if ((word & bit) == 0) return {0, 0};
    const size_t r = explicit_rank_[v >> 6] + static_cast<size_t>(std::popcount(word & (bit - 1)));
    return {explicit_begin_[r], explicit_begin_[r + 1]};
  }
  // Per explicit edge: the source event, or -1 - k for a source outside the window
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
  int replay_ring_log2_ = 20;
  std::vector<uint64_t> far_read_;  // a bit per event; empty: none
  size_t far_read_count_ = 0;
  // Per event, the binding edge's place in InEdges() (a byte, not a 4-byte
  // edge index); kWideBinding: listed in wide_binding_ (event, edge), by
  // event (an event with hundreds of in-edges: a device sync on many streams).
  static constexpr uint8_t kNoBinding = 0xFF, kWideBinding = 0xFE;
  std::vector<uint8_t> binding_place_;
  std::vector<std::pair<int32_t, int32_t>> wide_binding_;
  int32_t WideBinding(int32_t e) const;
  std::vector<BlockingKind> call_blocking_;
  // (graph call, stream) of the stream syncs whose stream is known, by
  // call: few calls are (4 bytes a call took 40 MB at 10M calls).
  std::vector<std::pair<int32_t, int32_t>> sync_stream_;
  // Per graph op, the model api index of its submitting call, -1 without
  // one (or one in no outermost call); its graph call is the graph call of
  // that call's outermost call (OpSubmitter: not kept, 4 bytes an op).
  std::vector<int32_t> op_submitter_api_;
  int64_t recorded_end_ns_ = 0, fixed_end_ns_ = INT64_MIN, launch_latency_ns_ = 0;
  std::map<std::string, int64_t> stats_;
};

inline DependencyGraph::Implicit DependencyGraph::ImplicitOf(uint32_t i) const {
  size_t j = i - ImplicitBase();
  if (j < item_count()) {  // an item's duration: start -> end
    const auto start = static_cast<int32_t>(2 * j);
    Implicit e{DurationKind(j), start + 1, start, Recorded(start), 0};
    if ((item_flags_[j] & kCutDuration) != 0) e.from = DepEdge::kOutside;
    if (j < op_count_) e.natural = Recorded(start + 1) - e.from_ns;  // a call's: its tail, ImplicitNatural
    return e;
  }
  j -= item_count();
  if (j < op_count_) {  // stream_order: the previous op of the stream, end -> op start
    Implicit e{DepEdgeKind::kStreamOrder, OpStart(j), DepEdge::kOutside, 0, 0};
    const int32_t p = stream_prev_[static_cast<size_t>(first_model_op_) + j];
    if (p < 0) return e;
    e.from_ns = std::max(model_op_start_[p], model_op_end_[p]);
    const int32_t gp = GraphOp(p);
    if (gp >= 0 && (item_flags_[j] & kCutFirst) == 0) e.from = OpEnd(static_cast<size_t>(gp));
    return e;
  }
  j -= op_count_;
  if (j < op_count_) {  // submit: the outermost submitting call's start -> op start
    Implicit e{DepEdgeKind::kSubmit, OpStart(j), DepEdge::kOutside, 0, 0};
    const int32_t a = op_submitter_api_[j];
    if (a < 0) return e;
    const int32_t o = outer_call_[a];
    e.from_ns = api_start_[o];
    e.natural = api_start_[a] - e.from_ns;
    const int32_t c = GraphCall(o);
    if (c >= 0 && (item_flags_[j] & kCutSubmit) == 0) e.from = CallStart(static_cast<size_t>(c));
    return e;
  }
  j -= op_count_;  // host_gap: the previous outermost call on the thread, end -> call start
  Implicit e{DepEdgeKind::kHostGap, CallStart(j), DepEdge::kOutside, 0, 0};
  const int32_t p = prev_on_thread_[ModelCall(j)];
  if (p < 0) return e;
  e.from_ns = api_end_[p];
  const int32_t pc = GraphCall(p);
  if (pc >= 0 && (item_flags_[op_count_ + j] & kCutFirst) == 0) e.from = CallEnd(static_cast<size_t>(pc));
  return e;  // its natural lag: ImplicitNatural
}

inline int64_t DependencyGraph::ImplicitNatural(const Implicit& e) const {
  switch (e.kind) {
    case DepEdgeKind::kCallDuration:  // the tail: from the end of what it waited for, if later than its start
      return Recorded(e.target) - std::max(e.from_ns, ExplicitSourceMax(e.target));
    case DepEdgeKind::kHostGap:  // after a handoff (the call start's explicit edge), the host work after it
      return std::max<int64_t>(0, Recorded(e.target) - std::max(e.from_ns, ExplicitSourceMax(e.target)));
    case DepEdgeKind::kSubmit: return e.natural + launch_latency_ns_;
    default: return e.natural;
  }
}

template <typename Visit>
inline void DependencyGraph::VisitInEdges(int32_t v, Visit&& visit) const {
  // The implicit edges first, gathered per kind of event, then visited in
  // their places around the explicit ones (one call site each: inlined).
  struct Edge {
    uint32_t i;
    int32_t from;
    int64_t from_ns, lag;
  };
  Edge implicit[2];
  uint32_t before = 0, after = 0;
  const size_t item = static_cast<size_t>(v) >> 1;
  const auto [eb, ee] = ExplicitRange(v);
  // Whether the edge at `place` in InEdges(v) binds v (read when needed).
  auto bound_at = [&](uint32_t place, uint32_t i) {
    const uint8_t b = binding_place_[v];
    return b == kWideBinding ? WideBinding(v) == static_cast<int32_t>(i) : b == place;
  };
  const uint8_t flags = item_flags_[item];
  auto from = [&](int32_t event, uint8_t cut) { return (flags & cut) == 0 ? event : DepEdge::kOutside; };
  if (item < op_count_) {
    const int64_t t = op_start_[item];
    if ((v & 1) != 0) {
      implicit[before++] = {DurationEdge(item), from(v - 1, kCutDuration), t, std::max(t, op_end_[item]) - t};
    } else {
      if ((flags & kHasFirst) != 0) {
        const int32_t p = stream_prev_[static_cast<size_t>(first_model_op_) + item];
        const int64_t p_end = std::max(model_op_start_[p], model_op_end_[p]);
        const int32_t gp = GraphOp(p);
        const uint32_t i = StreamOrderEdge(item);
        const int64_t lag = bound_at(before, i) ? t - p_end : 0;
        implicit[before++] = {i, gp >= 0 ? from(OpEnd(static_cast<size_t>(gp)), kCutFirst) : DepEdge::kOutside, p_end,
                              lag};
      }
      if ((flags & kHasSubmit) != 0) {
        const int32_t a = op_submitter_api_[item], o = outer_call_[a];
        const int64_t o_start = api_start_[o], distance = t - o_start;
        const int32_t c = GraphCall(o);
        const uint32_t i = SubmitEdge(item);
        const int64_t lag =
            bound_at(before, i) ? distance : std::min(api_start_[a] - o_start + launch_latency_ns_, distance);
        implicit[before++] = {i, c >= 0 ? from(CallStart(static_cast<size_t>(c)), kCutSubmit) : DepEdge::kOutside,
                              o_start, lag};
      }
    }
  } else {
    const size_t c = item - op_count_;
    const auto a = static_cast<size_t>(ModelCall(c));
    const int64_t t = api_start_[a];
    if ((v & 1) != 0) {
      const int64_t end = api_end_[a];
      const uint32_t i = DurationEdge(item);
      const int64_t lag = eb == ee || bound_at(0, i) ? end - t : end - std::max(t, ExplicitSourceMax(v));
      implicit[before++] = {i, from(v - 1, kCutDuration), t, lag};
    } else if ((flags & kHasFirst) != 0) {
      const int32_t p = prev_on_thread_[a];
      const int64_t p_end = api_end_[p], distance = t - p_end;
      const int32_t pc = GraphCall(p);
      const uint32_t i = HostGapEdge(c);
      const int64_t resumed = eb == ee ? p_end : std::max(p_end, ExplicitSourceMax(v));  // after a handoff
      implicit[after++] = {i, pc >= 0 ? from(CallEnd(static_cast<size_t>(pc)), kCutFirst) : DepEdge::kOutside, p_end,
                           bound_at(ee - eb, i) ? distance : std::min(std::max<int64_t>(0, t - resumed), distance)};
    }
  }
  for (uint32_t k = 0; k < before; ++k) visit(implicit[k].i, implicit[k].from, implicit[k].from_ns, implicit[k].lag);
  for (uint32_t i = eb; i < ee; ++i) {
    const int32_t f = edge_from_[i];
    const int32_t lag = edge_lag_[i];
    visit(i, f < 0 ? DepEdge::kOutside : f, f < 0 ? outside_ns_[static_cast<size_t>(-1 - f)] : Recorded(f),
          lag != kWideLag ? int64_t{lag} : WideLag(i));
  }
  if (after != 0) visit(implicit[0].i, implicit[0].from, implicit[0].from_ns, implicit[0].lag);
}

inline InEdgeList DependencyGraph::InEdges(int32_t v) const {
  InEdgeList l;
  std::tie(l.explicit_begin, l.explicit_end) = ExplicitRange(v);
  const size_t item = static_cast<size_t>(v) >> 1;
  const uint8_t flags = item_flags_[item];
  if ((v & 1) != 0) {
    l.before[l.before_count++] = DurationEdge(item);
  } else if (item < op_count_) {
    if ((flags & kHasFirst) != 0) l.before[l.before_count++] = StreamOrderEdge(item);
    if ((flags & kHasSubmit) != 0) l.before[l.before_count++] = SubmitEdge(item);
  } else if ((flags & kHasFirst) != 0) {
    l.after = HostGapEdge(item - op_count_);
    l.after_count = 1;
  }
  return l;
}

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
// The latest end of the graph's ops, and the first op (by index) that ends
// then, gathered op end by op end in any order.
struct LatestOpEnd {
  int64_t end_ns = std::numeric_limits<int64_t>::min();
  int32_t op = -1;
  void Offer(int32_t k, int64_t end) {
    if (op < 0 || end > end_ns || (end == end_ns && k < op)) {
      end_ns = end;
      op = k;
    }
  }
};
GraphEnd EndOfGraph(const DependencyGraph& g, const LatestOpEnd& latest);
template <typename TimeOf>
GraphEnd EndOfGraph(const DependencyGraph& g, TimeOf time_of) {
  LatestOpEnd latest;
  for (size_t k = 0; k < g.op_count(); ++k) latest.Offer(static_cast<int32_t>(k), time_of(DependencyGraph::OpEnd(k)));
  return EndOfGraph(g, latest);
}

// The builder's passes over every event (binding edges and lags, the
// check of the order) run in slices of at least this many events, one per
// core, on a graph of two slices or more; the graph is the same.
inline constexpr size_t kGraphBuildSlice = size_t{1} << 18;

// `model` must be finalized.
DependencyGraph BuildDependencyGraph(const TraceModel& model, const Window& window,
                                     const DependencyGraphOptions& options = {});

// Builds the whole-trace facts that BuildDependencyGraph reads (each
// stream's submission order, the outermost calls, the event records): a
// caller with a core to spare builds them on it while it does other work
// (about 0.9 s at 10M ops). Thread-safe, as every derived fact is.
void BuildDependencyGraphFacts(const TraceModel& model);
// Drops the facts that only BuildDependencyGraph reads (the submission
// order, the event records; 130 MB at 10M ops), for a caller that builds no
// more graphs of `model`. Not while another thread builds one. The
// outermost calls and the stream predecessors stay: a graph reads them
// through pointers for as long as it lives.
void ForgetDependencyGraphFacts(const TraceModel& model);

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
