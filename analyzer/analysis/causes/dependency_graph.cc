#include "analyzer/analysis/causes/dependency_graph.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <span>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "analyzer/analysis/causes/api_names.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/base/grouped_order.h"
#include "analyzer/base/sliced_merge.h"
#include "analyzer/base/threads.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view DepEdgeKindName(DepEdgeKind k) {
  switch (k) {
    case DepEdgeKind::kOpDuration: return "op_duration";
    case DepEdgeKind::kCallDuration: return "call_duration";
    case DepEdgeKind::kHostGap: return "host_gap";
    case DepEdgeKind::kSubmit: return "submit";
    case DepEdgeKind::kStreamOrder: return "stream_order";
    case DepEdgeKind::kEventWait: return "event_wait";
    case DepEdgeKind::kLegacyStream: return "legacy_stream";
    case DepEdgeKind::kGraph: return "graph";
    case DepEdgeKind::kSyncWait: return "sync_wait";
    case DepEdgeKind::kHandoff: return "host_handoff";
  }
  return "unknown";
}

std::string_view BlockingKindName(BlockingKind k) {
  switch (k) {
    case BlockingKind::kNone: return "none";
    case BlockingKind::kStreamSync: return "stream_sync";
    case BlockingKind::kEventSync: return "event_sync";
    case BlockingKind::kDeviceSync: return "device_sync";
    case BlockingKind::kSyncCopy: return "sync_copy";
    case BlockingKind::kPageableCopy: return "pageable_copy";
    case BlockingKind::kDrain: return "drain";
  }
  return "unknown";
}

bool IsExplicitSync(BlockingKind k) {
  return k == BlockingKind::kStreamSync || k == BlockingKind::kEventSync || k == BlockingKind::kDeviceSync;
}

OuterCalls::OuterCalls(const TraceModel& m) : outer(m.api.size(), -1), prev_on_thread(m.api.size(), -1) {
  struct ThreadState {
    int32_t current = -1;  // outermost call that covers `cover`
    int64_t cover = std::numeric_limits<int64_t>::min();
  };
  absl::flat_hash_map<int64_t, ThreadState> threads;
  const ApiCalls& api = m.api;
  for (size_t i = 0; i < api.size(); ++i) {
    if (api.end_ns[i] < api.start_ns[i]) continue;  // no place on the timeline
    ThreadState& t = threads[api.tid[i]];
    if (t.current >= 0 && api.start_ns[i] < t.cover) {
      outer[i] = t.current;  // nested: the driver call inside a runtime call
      t.cover = std::max(t.cover, api.end_ns[i]);
      continue;
    }
    outer[i] = static_cast<int32_t>(i);
    prev_on_thread[i] = t.current;
    t.current = static_cast<int32_t>(i);
    t.cover = api.end_ns[i];
  }
}

namespace {

// Effective end: an op recorded as ending before it started ends at its start.
int64_t OpEndOf(const TraceModel& m, size_t i) { return std::max(m.ops.start_ns[i], m.ops.end_ns[i]); }

// When an op was submitted: its call's start, else its own start.
int64_t SubmitNs(const TraceModel& m, size_t i) {
  int32_t a = m.ApiForOp(i);
  return a >= 0 ? m.api.start_ns[a] : m.ops.start_ns[i];
}

// Each stream's ops in submission order, with their submission times.
// Built once per trace, kept in columns (12 bytes an op; an entry of time,
// correlation id and op took 24).
struct SubmitOrder {
  struct Stream {
    std::vector<int64_t> t;
    std::vector<int32_t> op;
  };
  explicit SubmitOrder(const TraceModel& m) : by_stream(m.streams.size()) {
    struct Entry {
      int64_t t, corr;
      int32_t op;
      bool operator<(const Entry& b) const { return std::tie(t, corr, op) < std::tie(b.t, b.corr, b.op); }
    };
    // Ops by stream (a counting sort), then each stream's entries sorted
    // on their own: only one stream's entries at a time.
    const size_t streams = m.streams.size();
    std::vector<size_t> begin(streams + 1, 0);
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (ValidStream(m, m.ops.stream[i])) ++begin[static_cast<size_t>(m.ops.stream[i]) + 1];
    }
    for (size_t s = 0; s < streams; ++s) begin[s + 1] += begin[s];
    std::vector<int32_t> ops(begin[streams]);
    {
      std::vector<size_t> fill(begin.begin(), begin.end() - 1);
      for (size_t i = 0; i < m.ops.size(); ++i) {
        if (ValidStream(m, m.ops.stream[i]))
          ops[fill[static_cast<size_t>(m.ops.stream[i])]++] = static_cast<int32_t>(i);
      }
    }
    std::vector<Entry> entries;
    for (size_t s = 0; s < streams; ++s) {
      if (begin[s] == begin[s + 1]) continue;
      entries.clear();
      for (size_t k = begin[s]; k < begin[s + 1]; ++k) {
        const auto i = static_cast<size_t>(ops[k]);
        entries.push_back({SubmitNs(m, i), m.ops.correlation_id[i], ops[k]});
      }
      // A stream runs its ops in the order they were submitted, so they
      // usually come sorted already (the sort took 0.65 s at 10M ops).
      if (!std::is_sorted(entries.begin(), entries.end())) std::sort(entries.begin(), entries.end());
      Stream& x = by_stream[s];
      x.t.reserve(entries.size());
      x.op.reserve(entries.size());
      for (const Entry& e : entries) {
        x.t.push_back(e.t);
        x.op.push_back(e.op);
      }
    }
  }
  // The last op submitted to `stream` before t, or -1.
  int32_t LastBefore(int32_t stream, int64_t t) const {
    const Stream& x = by_stream[stream];
    const size_t k = static_cast<size_t>(std::lower_bound(x.t.begin(), x.t.end(), t) - x.t.begin());
    return k == 0 ? -1 : x.op[k - 1];
  }
  // The first op submitted to `stream` at or after t, or -1.
  int32_t FirstFrom(int32_t stream, int64_t t) const {
    const Stream& x = by_stream[stream];
    const size_t k = static_cast<size_t>(std::lower_bound(x.t.begin(), x.t.end(), t) - x.t.begin());
    return k == x.t.size() ? -1 : x.op[k];
  }
  std::vector<Stream> by_stream;
};

// Event records per handle (by time), the event each synchronize call
// waited on, and sync records by correlation id. Built once per trace.
struct EventFacts {
  struct Record {
    int64_t t;
    int32_t stream;
  };
  explicit EventFacts(const TraceModel& m) {
    auto time_of = [&](const EventOp& e) {
      int32_t a = e.correlation_id >= 0 ? m.api_by_correlation.Lookup(e.correlation_id) : -1;
      return a >= 0 ? std::min(e.ts_ns, m.api.start_ns[a]) : e.ts_ns;
    };
    for (const EventOp& e : m.event_ops) {
      if (e.op == EventOp::Op::kRecord) {
        records[e.event_handle].push_back({time_of(e), ValidStream(m, e.stream) ? e.stream : -1});
      } else if (e.op == EventOp::Op::kSynchronize && e.correlation_id >= 0) {
        sync_event[e.correlation_id] = e.event_handle;
      } else if (e.op == EventOp::Op::kWait && ValidStream(m, e.stream)) {
        waits.push_back({time_of(e), e.stream, e.event_handle});
      }
    }
    for (auto& [handle, v] : records) {
      std::stable_sort(v.begin(), v.end(), [](const Record& a, const Record& b) { return a.t < b.t; });
    }
    for (size_t i = 0; i < m.syncs.size(); ++i) {
      if (m.syncs[i].correlation_id >= 0) sync_record[m.syncs[i].correlation_id] = static_cast<int32_t>(i);
    }
  }
  // The last record of `handle` before t, or null.
  const Record* LastRecordBefore(int64_t handle, int64_t t) const {
    auto it = records.find(handle);
    if (it == records.end()) return nullptr;
    const auto& v = it->second;
    auto r = std::lower_bound(v.begin(), v.end(), t, [](const Record& e, int64_t x) { return e.t < x; });
    return r == v.begin() ? nullptr : &*(r - 1);
  }
  struct Wait {
    int64_t t;
    int32_t stream;
    int64_t handle;
  };
  absl::flat_hash_map<int64_t, std::vector<Record>> records;
  absl::flat_hash_map<int64_t, int64_t> sync_event;   // correlation id -> event handle
  absl::flat_hash_map<int64_t, int32_t> sync_record;  // correlation id -> index into syncs
  std::vector<Wait> waits;
};

enum class NameClass : int8_t {
  kUnset = -1,
  kNone = 0,
  kStreamSync,
  kEventSync,
  kDeviceSync,
  kSyncCopy,
  kAsyncCopy,
  kDrain,
};

NameClass ClassifyName(std::string_view raw) {
  std::string_view n = BaseApiName(raw);
  if (n.find("Synchronize") != std::string_view::npos) {
    if (n.find("Stream") != std::string_view::npos) return NameClass::kStreamSync;
    if (n.find("Event") != std::string_view::npos) return NameClass::kEventSync;
    if (n.find("Device") != std::string_view::npos || n.find("Ctx") != std::string_view::npos ||
        n.find("Thread") != std::string_view::npos) {
      return NameClass::kDeviceSync;
    }
    return NameClass::kNone;
  }
  bool is_async = n.find("Async") != std::string_view::npos;
  if (n.starts_with("cudaMemcpy") || n.starts_with("cuMemcpy") || n.starts_with("cudaMemset") ||
      n.starts_with("cuMemset")) {
    if (!is_async) return NameClass::kSyncCopy;
    return n.find("set") == std::string_view::npos ? NameClass::kAsyncCopy : NameClass::kNone;
  }
  if (DeviceDrainingCallOf(n) != DeviceDrainingCall::kNone) return NameClass::kDrain;
  return NameClass::kNone;
}

bool IsBlockingStream(StreamKind k) { return k == StreamKind::kBlocking || k == StreamKind::kPerThreadDefault; }

}  // namespace

int32_t DependencyGraph::EdgeTarget(uint32_t i) const {
  if (i >= ImplicitBase()) return ImplicitOf(i).target;
  auto it = std::upper_bound(explicit_begin_.begin(), explicit_begin_.end(), i);
  return explicit_target_[static_cast<size_t>(it - explicit_begin_.begin()) - 1];
}

int64_t DependencyGraph::EdgeLag(uint32_t i) const {
  if (i >= ImplicitBase()) return ImplicitLag(ImplicitOf(i), i);
  const int32_t lag = edge_lag_[i];
  return lag != kWideLag ? lag : WideLag(i);
}

bool DependencyGraph::EdgePresent(uint32_t i) const {
  if (i < ImplicitBase() + item_count()) return true;  // explicit, or a duration
  size_t j = i - ImplicitBase() - item_count();
  if (j < op_count_) return (item_flags_[j] & kHasFirst) != 0;
  j -= op_count_;
  if (j < op_count_) return (item_flags_[j] & kHasSubmit) != 0;
  j -= op_count_;
  return j < call_count_ && (item_flags_[op_count_ + j] & kHasFirst) != 0;
}

int64_t DependencyGraph::ExplicitSourceMax(int32_t e) const {
  int64_t latest = kMinTime;
  const auto [b, end] = ExplicitRange(e);
  for (uint32_t i = b; i < end; ++i) latest = std::max(latest, EdgeSourceNs(i));
  return latest;
}

int32_t DependencyGraph::WideBinding(int32_t e) const {
  auto it = std::lower_bound(wide_binding_.begin(), wide_binding_.end(), std::make_pair(e, int32_t{-1}));
  return it != wide_binding_.end() && it->first == e ? it->second : -1;
}

int64_t DependencyGraph::WideLag(uint32_t i) const {
  auto it =
      std::lower_bound(wide_lags_.begin(), wide_lags_.end(), std::make_pair(i, std::numeric_limits<int64_t>::min()));
  return it != wide_lags_.end() && it->first == i ? it->second : 0;
}

GraphEnd EndOfGraph(const DependencyGraph& g, const LatestOpEnd& latest) {
  GraphEnd r;
  r.end_op = latest.op >= 0 && latest.end_ns >= g.fixed_end_ns() ? latest.op : -1;
  r.end_ns = std::max(latest.end_ns, g.fixed_end_ns());
  if (r.end_ns == std::numeric_limits<int64_t>::min()) r.end_ns = g.recorded_end_ns();  // no op at all
  return r;
}

void DependencyGraph::DropReplayColumns() {
  std::vector<int32_t>().swap(edge_lag_);
  std::vector<std::pair<uint32_t, int64_t>>().swap(wide_lags_);
  std::vector<int32_t>().swap(order_);
  std::vector<uint64_t>().swap(far_read_);
  std::vector<BlockingKind>().swap(call_blocking_);
  std::vector<std::pair<int32_t, int32_t>>().swap(sync_stream_);
}

class DependencyGraphBuilder {
 public:
  DependencyGraphBuilder(const TraceModel& m, const Window& w, const DependencyGraphOptions& o, DependencyGraph& g)
      : m_(m),
        w_(w),
        o_(o),
        g_(g),
        outer_(m.Derived<OuterCalls>()),
        submit_(m.Derived<SubmitOrder>()),
        events_(m.Derived<EventFacts>()),
        preds_(m.Derived<StreamPredecessors>()) {}

  void Run() {
    g_.window_ = w_;
    Items();
    Partners();
    Handoffs();
    ImplicitEdges();
    // The explicit edges are made twice: once to count each event's in-edges, then
    // written in place, grouped by target. A list of every edge sorted by
    // target afterwards took 32 bytes an edge and a copy (1.6 GB at 10M ops).
    const size_t n = g_.event_count();
    begin_.assign(n + 1, 0);
    counting_ = true;
    Edges();
    for (size_t e = 0; e < n; ++e) begin_[e + 1] += begin_[e];
    const size_t edges = begin_[n];
    g_.edge_from_.resize(edges);
    g_.edge_kind_.resize(edges);
    natural_.resize(edges);
    lag_.resize(edges);
    slot_.assign(begin_.begin(), begin_.end() - 1);
    counting_ = false;
    Edges();
    std::vector<uint32_t>().swap(slot_);
    ExplicitRanges();
    AssignLags();
    Order();
    RecordedEnd();
  }

 private:
  int32_t OpEvent(int32_t model_op, bool end) const {
    int32_t k = g_.GraphOp(model_op);
    if (k < 0) return DepEdge::kOutside;
    return end ? DependencyGraph::OpEnd(k) : DependencyGraph::OpStart(k);
  }
  // An edge from model op `from`'s end to event `to`.
  void FromOpEnd(int32_t from, int32_t to, DepEdgeKind kind) {
    Emit(to, OpEvent(from, true), OpEndOf(m_, from), 0, kind);
  }

  void Edges() {
    OpEdges();
    EventWaitEdges();
    CallEdges();
  }
  // Which implicit edges are present (see the header): each op's
  // op_duration, stream_order (after its stream's previous op) and submit
  // (after its outermost submitting call's start), each call's
  // call_duration and host_gap (after the thread's previous outermost
  // call). Like an explicit one, an edge whose source was recorded after its
  // target is left out.
  void ImplicitEdges() {
    for (size_t k = 0; k < g_.op_count_; ++k) {
      const auto i = static_cast<size_t>(g_.ModelOp(k));
      const int64_t start = m_.ops.start_ns[i];
      uint8_t& flags = g_.item_flags_[k];
      if (int32_t p = preds_.prev[i]; p >= 0) {
        if (OpEndOf(m_, static_cast<size_t>(p)) > start) {
          ++against_time_;
        } else {
          flags |= DependencyGraph::kHasFirst;
        }
      }
      if (int32_t a = g_.op_submitter_api_[k]; a >= 0) {
        if (m_.api.start_ns[outer_.outer[a]] > start) {
          ++against_time_;
        } else {
          flags |= DependencyGraph::kHasSubmit;
        }
      }
    }
    for (size_t c = 0; c < g_.call_count_; ++c) {
      const auto a = static_cast<size_t>(g_.ModelCall(c));
      if (int32_t p = outer_.prev_on_thread[a]; p >= 0) {
        if (m_.api.end_ns[p] > m_.api.start_ns[a]) {
          ++against_time_;
        } else {
          g_.item_flags_[g_.op_count_ + c] |= DependencyGraph::kHasFirst;
        }
      }
    }
  }

  // The explicit in-edge ranges of the events that have any, from begin_
  // (freed).
  void ExplicitRanges() {
    const size_t n = g_.event_count(), words = (n + 63) / 64;
    g_.explicit_mark_.assign(words, 0);
    g_.explicit_rank_.assign(words, 0);
    uint32_t marked = 0;
    for (size_t e = 0; e < n; ++e) {
      if ((e & 63) == 0) g_.explicit_rank_[e >> 6] = marked;
      if (begin_[e] == begin_[e + 1]) continue;
      g_.explicit_mark_[e >> 6] |= uint64_t{1} << (e & 63);
      g_.explicit_begin_.push_back(begin_[e]);
      g_.explicit_target_.push_back(static_cast<int32_t>(e));
      ++marked;
    }
    g_.explicit_begin_.push_back(begin_[n]);
    g_.explicit_begin_.shrink_to_fit();
    g_.explicit_target_.shrink_to_fit();
    std::vector<uint32_t>().swap(begin_);
  }

  // An explicit edge from -> to; `from_ns` is the source's recorded time (equal to
  // Recorded(from) for a source in the window), `natural` the lag this edge
  // would need if it bound (submit: the nested call's offset; natural =
  // offset + launch latency). Counted, or written into its target's slots.
  // An edge whose source was recorded after its target is left out.
  void Emit(int32_t to, int32_t from, int64_t from_ns, int64_t natural, DepEdgeKind kind) {
    if (from_ns > g_.Recorded(to)) {
      if (counting_) ++against_time_;
      return;
    }
    if (counting_) {
      ++begin_[static_cast<size_t>(to) + 1];
      return;
    }
    const uint32_t i = slot_[to]++;
    if (from == DepEdge::kOutside) {
      from = -1 - static_cast<int32_t>(g_.outside_ns_.size());
      g_.outside_ns_.push_back(from_ns);
    }
    g_.edge_from_[i] = from;
    g_.edge_kind_[i] = kind;
    natural_[i] = natural;
  }
  // A counter of inputs left out, counted once (the edges are made twice).
  void Count(const char* name) {
    if (counting_) ++g_.stats_[name];
  }

  void Items() {
    const size_t o0 = FirstOpStartingAt(m_, w_.start_ns), o1 = FirstOpStartingAt(m_, w_.end_ns);
    g_.first_model_op_ = static_cast<int32_t>(o0);
    g_.op_count_ = std::max(o0, o1) - o0;
    auto [a0, a1] = ApiStartingIn(m_, w_.start_ns, w_.end_ns);
    g_.first_model_api_ = static_cast<int32_t>(a0);
    g_.call_lookup_.assign(a1 - a0, -1);
    for (size_t a = a0; a < a1; ++a) {
      if (outer_.outer[a] != static_cast<int32_t>(a)) continue;
      g_.call_lookup_[a - a0] = static_cast<int32_t>(g_.calls_.size());
      g_.calls_.push_back(static_cast<int32_t>(a));
    }
    g_.call_count_ = g_.calls_.size();
    if (g_.call_count_ == a1 - a0) {  // every call outermost: the identity, no tables
      g_.calls_identity_ = true;
      std::vector<int32_t>().swap(g_.calls_);
      std::vector<int32_t>().swap(g_.call_lookup_);
    }
    g_.op_start_ = m_.ops.start_ns.data() + o0;
    g_.op_end_ = m_.ops.end_ns.data() + o0;
    g_.api_start_ = m_.api.start_ns.data();
    g_.api_end_ = m_.api.end_ns.data();
    g_.api_tid_ = &m_.api.tid;
    g_.model_op_start_ = m_.ops.start_ns.data();
    g_.model_op_end_ = m_.ops.end_ns.data();
    g_.stream_prev_ = preds_.prev.data();
    g_.outer_call_ = outer_.outer.data();
    g_.prev_on_thread_ = outer_.prev_on_thread.data();
    const size_t calls = g_.call_count_;
    g_.item_flags_.assign(g_.op_count_ + calls, 0);
    for (size_t k = 0; k < g_.op_count_; ++k) {
      size_t i = static_cast<size_t>(g_.ModelOp(k));
      if (m_.ops.end_ns[i] < m_.ops.start_ns[i]) ++g_.stats_["op_end_before_start"];
    }
    call_tid_.resize(calls);
    g_.call_blocking_.assign(calls, BlockingKind::kNone);
    absl::flat_hash_map<int64_t, int32_t> tid_index;
    for (size_t c = 0; c < calls; ++c) {
      size_t a = static_cast<size_t>(g_.ModelCall(c));
      auto [it, added] = tid_index.try_emplace(m_.api.tid[a], static_cast<int32_t>(tid_count_));
      if (added) ++tid_count_;
      call_tid_[c] = it->second;
    }
    g_.op_submitter_api_.assign(g_.op_count_, -1);
    own_ops_begin_.assign(calls + 1, 0);
    for (size_t k = 0; k < g_.op_count_; ++k) {
      int32_t a = m_.ApiForOp(static_cast<size_t>(g_.ModelOp(k)));
      if (a < 0 || outer_.outer[a] < 0) continue;
      g_.op_submitter_api_[k] = a;
      int32_t c = g_.GraphCall(outer_.outer[a]);
      if (c >= 0) ++own_ops_begin_[static_cast<size_t>(c) + 1];
    }
    // Each call's ops in graph op order, all in one array (a counting sort):
    // a vector per call cost a million allocations at 1M calls.
    for (size_t c = 0; c < calls; ++c) own_ops_begin_[c + 1] += own_ops_begin_[c];
    own_ops_.resize(own_ops_begin_.back());
    std::vector<uint32_t> fill(own_ops_begin_.begin(), own_ops_begin_.end() - 1);
    for (size_t k = 0; k < g_.op_count_; ++k) {
      if (int32_t c = g_.OpSubmitter(k); c >= 0) own_ops_[fill[static_cast<size_t>(c)]++] = g_.ModelOp(k);
    }
  }

  // The streams each stream must follow under the legacy default-stream rules.
  void Partners() {
    const size_t s = m_.streams.size();
    partners_.assign(s, {});
    for (size_t a = 0; a < s; ++a) {
      StreamKind ka = m_.streams[a].kind;
      if (ka != StreamKind::kLegacyDefault && !IsBlockingStream(ka)) continue;
      for (size_t b = 0; b < s; ++b) {
        StreamKind kb = m_.streams[b].kind;
        if (a == b) continue;
        bool pair = (ka == StreamKind::kLegacyDefault && IsBlockingStream(kb)) ||
                    (IsBlockingStream(ka) && kb == StreamKind::kLegacyDefault);
        int64_t ca = m_.streams[a].context_id, cb = m_.streams[b].context_id;
        bool same = ca == 0 || cb == 0 ? m_.streams[a].device_id == m_.streams[b].device_id : ca == cb;
        if (pair && same) partners_[a].push_back(static_cast<int32_t>(b));
      }
    }
  }

  void OpEdges() {
    const GpuOps& ops = m_.ops;
    absl::flat_hash_map<uint64_t, int32_t> last_legacy_source;         // (stream, partner) -> op
    absl::flat_hash_map<int64_t, std::vector<size_t>> graph_launches;  // correlation id -> graph ops
    for (size_t k = 0; k < g_.op_count_; ++k) {
      // op_duration, stream_order and submit are implicit (ImplicitEdges).
      const int32_t i = g_.ModelOp(k);
      const int32_t start = DependencyGraph::OpStart(k);
      const int32_t s = ops.stream[i];
      if (ValidStream(m_, s)) {
        for (int32_t b : partners_[s]) {
          int32_t y = submit_.LastBefore(b, SubmitNs(m_, static_cast<size_t>(i)));
          if (y < 0) continue;
          int32_t& last =
              last_legacy_source.try_emplace((static_cast<uint64_t>(s) << 32) | static_cast<uint32_t>(b), -1)
                  .first->second;
          if (last == y) continue;  // already ordered through the stream's previous op
          last = y;
          FromOpEnd(y, start, DepEdgeKind::kLegacyStream);
        }
      }
      if (ops.graph_id[i] >= 0 && ops.correlation_id[i] >= 0) graph_launches[ops.correlation_id[i]].push_back(k);
    }
    // Ops of one graph launch on different streams.
    for (auto& [corr, members] : graph_launches) {
      if (members.size() < 2) continue;
      std::vector<size_t> by_end = members;
      auto end_of = [&](size_t k) { return g_.Recorded(DependencyGraph::OpEnd(k)); };
      std::sort(by_end.begin(), by_end.end(), [&](size_t a, size_t b) { return end_of(a) < end_of(b); });
      for (size_t k : members) {
        int64_t start = g_.Recorded(DependencyGraph::OpStart(k));
        auto it =
            std::upper_bound(by_end.begin(), by_end.end(), start, [&](int64_t t, size_t x) { return t < end_of(x); });
        if (it == by_end.begin()) continue;
        size_t from = *(it - 1);
        if (from == k || ops.stream[g_.ModelOp(from)] == ops.stream[g_.ModelOp(k)]) continue;
        Emit(DependencyGraph::OpStart(k), DependencyGraph::OpEnd(from), end_of(from), 0, DepEdgeKind::kGraph);
      }
    }
  }

  void EventWaitEdges() {
    for (const EventFacts::Wait& w : events_.waits) {
      int32_t target = submit_.FirstFrom(w.stream, w.t);
      if (target < 0 || g_.GraphOp(target) < 0) continue;
      const EventFacts::Record* r = events_.LastRecordBefore(w.handle, w.t);
      if (r == nullptr || r->stream < 0) {
        Count("event_wait_without_record");
        continue;
      }
      int32_t covered = submit_.LastBefore(r->stream, r->t);
      if (covered < 0 || covered == target) continue;
      FromOpEnd(covered, DependencyGraph::OpStart(g_.GraphOp(target)), DepEdgeKind::kEventWait);
    }
  }

  NameClass ClassOf(StringId name) {
    if (name < 0 || static_cast<size_t>(name) >= m_.strings.size()) return NameClass::kNone;
    if (classes_.empty()) classes_.assign(m_.strings.size(), NameClass::kUnset);
    if (classes_[name] == NameClass::kUnset) classes_[name] = ClassifyName(m_.strings.Get(name));
    return classes_[name];
  }

  // The op that ended last inside [start, end], or -1.
  int32_t DrainedOp(int64_t start, int64_t end) const {
    const auto& ends = m_.Derived<OpEndsInOrder>().ends;
    auto it = std::upper_bound(ends.begin(), ends.end(), OpEnd{end, std::numeric_limits<int32_t>::max()});
    if (it == ends.begin() || (it - 1)->end < start) return -1;
    return (it - 1)->op;
  }

  void AllStreams(int64_t t, std::vector<int32_t>& out) const {
    for (size_t s = 0; s < m_.streams.size(); ++s) {
      if (int32_t y = submit_.LastBefore(static_cast<int32_t>(s), t); y >= 0) out.push_back(y);
    }
  }

  // What call c blocks on; sets its kind and sync stream.
  std::vector<int32_t> Waited(size_t c) {
    const size_t a = static_cast<size_t>(g_.ModelCall(c));
    const int64_t start = m_.api.start_ns[a], end = m_.api.end_ns[a];
    const int64_t corr = m_.api.correlation_id[a];
    std::vector<int32_t> w;
    BlockingKind& kind = g_.call_blocking_[c];
    auto fallback = [&] {
      Count("sync_target_unknown");
      if (int32_t y = DrainedOp(start, end); y >= 0) w.push_back(y);
    };
    switch (ClassOf(m_.api.name[a])) {
      case NameClass::kStreamSync: {
        kind = BlockingKind::kStreamSync;
        auto it = corr >= 0 ? events_.sync_record.find(corr) : events_.sync_record.end();
        int32_t s = it != events_.sync_record.end() ? m_.syncs[it->second].stream : -1;
        if (!ValidStream(m_, s)) {
          fallback();
          break;
        }
        g_.sync_stream_.push_back({static_cast<int32_t>(c), s});
        if (int32_t y = submit_.LastBefore(s, start); y >= 0) w.push_back(y);
        if (m_.streams[s].kind == StreamKind::kLegacyDefault) {
          for (int32_t b : partners_[s]) {
            if (int32_t y = submit_.LastBefore(b, start); y >= 0) w.push_back(y);
          }
        }
        break;
      }
      case NameClass::kEventSync: {
        kind = BlockingKind::kEventSync;
        auto it = corr >= 0 ? events_.sync_event.find(corr) : events_.sync_event.end();
        const EventFacts::Record* r =
            it != events_.sync_event.end() ? events_.LastRecordBefore(it->second, start) : nullptr;
        if (r == nullptr || r->stream < 0) {
          fallback();
          break;
        }
        if (int32_t y = submit_.LastBefore(r->stream, r->t); y >= 0) w.push_back(y);
        break;
      }
      case NameClass::kDeviceSync:
        kind = BlockingKind::kDeviceSync;
        AllStreams(start, w);
        break;
      case NameClass::kSyncCopy:
        kind = BlockingKind::kSyncCopy;
        w.assign(OwnOps(c).begin(), OwnOps(c).end());
        break;
      case NameClass::kAsyncCopy: {
        bool held = false;
        for (int32_t op : OwnOps(c)) {
          bool pageable = m_.ops.src_kind[op] == MemoryKind::kPageable || m_.ops.dst_kind[op] == MemoryKind::kPageable;
          if (pageable && IsCopy(m_.ops.category[op]) &&
              end >= SaturatingSub(OpEndOf(m_, op), o_.pageable_hold_tolerance_ns)) {
            held = true;
          }
        }
        if (held) {
          kind = BlockingKind::kPageableCopy;
          w.assign(OwnOps(c).begin(), OwnOps(c).end());
        }
        break;
      }
      case NameClass::kDrain: {
        int32_t y = DrainedOp(start, end);
        if (y >= 0 && end - m_.ops.end_ns[y] <= o_.drain_tolerance_ns) {
          kind = BlockingKind::kDrain;
          AllStreams(start, w);
        }
        break;
      }
      default: break;
    }
    // A call cannot have waited for what ended after it returned.
    std::erase_if(w, [&](int32_t op) { return OpEndOf(m_, op) > end; });
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    return w;
  }

  // The host_handoff source of each call that ends a pause (see the
  // header): the call of another thread that ended last before it, in its
  // pause, when that thread then paused too. Few calls have one.
  void Handoffs() {
    const size_t n = g_.call_count_;
    if (tid_count_ < 2) return;
    const ApiCalls& api = m_.api;
    auto start_of = [&](int32_t c) { return api.start_ns[static_cast<size_t>(g_.ModelCall(c))]; };
    auto end_of = [&](int32_t c) { return api.end_ns[static_cast<size_t>(g_.ModelCall(c))]; };
    std::vector<int32_t> next(n, -1), last(tid_count_, -1);
    for (size_t c = 0; c < n; ++c) {
      int32_t& l = last[static_cast<size_t>(call_tid_[c])];
      if (l >= 0) next[static_cast<size_t>(l)] = static_cast<int32_t>(c);
      l = static_cast<int32_t>(c);
    }
    std::vector<int32_t> by_end(n);
    for (size_t c = 0; c < n; ++c) by_end[c] = static_cast<int32_t>(c);
    std::stable_sort(by_end.begin(), by_end.end(), [&](int32_t a, int32_t b) { return end_of(a) < end_of(b); });
    for (size_t c = 0; c < n; ++c) {
      const size_t a = static_cast<size_t>(g_.ModelCall(c));
      const int32_t prev = outer_.prev_on_thread[a];
      if (prev < 0) continue;
      const int64_t start = api.start_ns[a], prev_end = api.end_ns[static_cast<size_t>(prev)];
      const int64_t pause = start - prev_end;
      if (pause < o_.handoff_min_pause_ns) continue;
      auto it =
          std::upper_bound(by_end.begin(), by_end.end(), start, [&](int64_t t, int32_t k) { return t < end_of(k); });
      while (it != by_end.begin() && call_tid_[static_cast<size_t>(*std::prev(it))] == call_tid_[c]) --it;
      if (it == by_end.begin()) continue;
      const int32_t p = *std::prev(it);
      const int64_t p_end = end_of(p), latency = start - p_end;
      if (p_end < prev_end || latency > o_.handoff_max_latency_ns || 2 * latency > pause) continue;
      const int32_t q = next[static_cast<size_t>(p)];
      const int64_t other_pause = (q >= 0 ? start_of(q) : w_.end_ns) - p_end;
      if ((q >= 0 && start_of(q) < start) || other_pause < o_.handoff_min_pause_ns) continue;
      handoff_.push_back({static_cast<int32_t>(c), p});
    }
    if (!handoff_.empty()) g_.stats_["host_handoffs"] = static_cast<int64_t>(handoff_.size());
  }
  // Call c's host_handoff source (a graph call), or -1.
  int32_t HandoffFrom(size_t c) const {
    auto it = std::lower_bound(handoff_.begin(), handoff_.end(), static_cast<int32_t>(c),
                               [](const std::pair<int32_t, int32_t>& h, int32_t v) { return h.first < v; });
    return it != handoff_.end() && it->first == static_cast<int32_t>(c) ? it->second : -1;
  }

  void CallEdges() {
    for (size_t c = 0; c < g_.call_count_; ++c) {
      const size_t a = static_cast<size_t>(g_.ModelCall(c));
      const int64_t start = m_.api.start_ns[a], end = m_.api.end_ns[a];
      // host_gap and call_duration are implicit (ImplicitEdges); after a
      // handoff the thread's own host work is what follows it.
      if (outer_.prev_on_thread[a] >= 0) {
        if (int32_t h = HandoffFrom(c); h >= 0) {
          const int64_t h_end = m_.api.end_ns[static_cast<size_t>(g_.ModelCall(static_cast<size_t>(h)))];
          Emit(g_.CallStart(c), g_.CallEnd(static_cast<size_t>(h)), h_end, start - h_end, DepEdgeKind::kHandoff);
        }
      }
      std::vector<int32_t> w = Waited(c);
      int64_t waited_end = kMinTime;
      for (int32_t op : w) waited_end = std::max(waited_end, OpEndOf(m_, op));
      const int64_t tail = end - std::max(start, waited_end);
      for (int32_t op : w) {
        Emit(g_.CallEnd(c), OpEvent(op, true), OpEndOf(m_, op), tail, DepEdgeKind::kSyncWait);
      }
    }
  }

  // The binding edge of each event and every explicit edge's lag (see the
  // header; an implicit edge's lag is computed when read).
  void AssignLags() {
    const size_t n = g_.event_count();
    if (against_time_ > 0) g_.stats_["edge_against_time"] = against_time_;
    // Pass 1: which ops waited for their submission (launch latency not
    // yet known: submit edges compete with their offset only). Only an op's
    // start has a submit edge (implicit, kHasSubmit): a quarter of the
    // events at most. Both passes write only their own events' slots, so
    // a large graph's events are cut into slices, one per core (at 10M ops
    // the two passes took 1.6 s on one); the median and the counts do not
    // depend on the order.
    const size_t slices = SliceCount(n, kGraphBuildSlice);
    std::vector<std::vector<int64_t>> bound_lags(slices);
    ForEachSlice(g_.op_count(), slices, [&](size_t slice, size_t begin, size_t end) {
      std::vector<EdgeParts> in;
      for (size_t k = begin; k < end; ++k) {
        if ((g_.item_flags_[k] & DependencyGraph::kHasSubmit) == 0) continue;
        const int32_t e = DependencyGraph::OpStart(k);
        Parts(e, in);
        const EdgeParts& b = in[Binding(in, 0)];
        if (b.kind == DepEdgeKind::kSubmit) bound_lags[slice].push_back(g_.Recorded(e) - b.source_ns - b.natural);
      }
    });
    int64_t latency = 0;
    {
      std::vector<int64_t> all = std::move(bound_lags[0]);
      for (size_t s = 1; s < slices; ++s) {
        all.insert(all.end(), bound_lags[s].begin(), bound_lags[s].end());
        std::vector<int64_t>().swap(bound_lags[s]);
      }
      if (!all.empty()) {
        auto mid = all.begin() + static_cast<std::ptrdiff_t>((all.size() - 1) / 2);
        std::nth_element(all.begin(), mid, all.end());
        latency = std::max<int64_t>(0, *mid);
      }
    }
    // Pass 2: final binding edges and the explicit edges' lags (each takes
    // the place of its natural lag).
    g_.binding_place_.assign(n, DependencyGraph::kNoBinding);
    std::vector<std::array<int64_t, kNumDepEdgeKinds>> slice_kinds(slices);
    std::vector<std::vector<std::pair<int32_t, int32_t>>> slice_wide(slices);
    ForEachSlice(n, slices, [&](size_t slice, size_t begin, size_t end) {
      std::array<int64_t, kNumDepEdgeKinds>& per_kind = slice_kinds[slice];
      per_kind.fill(0);
      std::vector<EdgeParts> in;
      for (size_t e = begin; e < end; ++e) {
        // An end without explicit in-edges (every op's, most calls') has its
        // duration edge alone: it binds, and it has no lag to set.
        if ((e & 1) != 0) {
          if (const auto [eb, ee] = g_.ExplicitRange(static_cast<int32_t>(e)); eb == ee) {
            g_.binding_place_[e] = 0;
            ++per_kind[static_cast<int>(g_.DurationKind(e >> 1))];
            continue;
          }
        }
        Parts(static_cast<int32_t>(e), in);
        if (in.empty()) continue;
        const size_t bind = Binding(in, latency);
        if (bind < DependencyGraph::kWideBinding) {
          g_.binding_place_[e] = static_cast<uint8_t>(bind);
        } else {
          g_.binding_place_[e] = DependencyGraph::kWideBinding;
          slice_wide[slice].push_back({static_cast<int32_t>(e), static_cast<int32_t>(in[bind].i)});
        }
        for (size_t k = 0; k < in.size(); ++k) {
          const EdgeParts& p = in[k];
          ++per_kind[static_cast<int>(p.kind)];
          if (p.i >= g_.ImplicitBase()) continue;
          int64_t distance = g_.Recorded(static_cast<int32_t>(e)) - p.source_ns;
          lag_[p.i] = k == bind ? distance : std::min(Natural(p, latency), distance);
        }
      }
    });
    std::array<int64_t, kNumDepEdgeKinds> per_kind{};
    for (size_t s = 0; s < slices; ++s) {
      for (int k = 0; k < kNumDepEdgeKinds; ++k) per_kind[k] += slice_kinds[s][k];
      g_.wide_binding_.insert(g_.wide_binding_.end(), slice_wide[s].begin(), slice_wide[s].end());
    }
    // Set after pass 2: implicit natural lags read it only through
    // ImplicitNatural, which Natural() adjusts for.
    g_.launch_latency_ns_ = latency;
    g_.edge_lag_.resize(lag_.size());
    for (size_t i = 0; i < lag_.size(); ++i) {
      const int64_t lag = lag_[i];
      if (lag > std::numeric_limits<int32_t>::min() && lag <= std::numeric_limits<int32_t>::max()) {
        g_.edge_lag_[i] = static_cast<int32_t>(lag);
      } else {
        g_.edge_lag_[i] = DependencyGraph::kWideLag;
        g_.wide_lags_.push_back({static_cast<uint32_t>(i), lag});
      }
    }
    std::vector<int64_t>().swap(lag_);
    std::vector<int64_t>().swap(natural_);
    for (int k = 0; k < kNumDepEdgeKinds; ++k) {
      if (per_kind[k] > 0)
        g_.stats_[absl::StrCat("edges_", std::string(DepEdgeKindName(static_cast<DepEdgeKind>(k))))] = per_kind[k];
    }
  }

  // An in-edge's parts that choose the binding edge, each edge decoded once.
  struct EdgeParts {
    uint32_t i;
    DepEdgeKind kind;
    int64_t source_ns, natural;  // natural: without the launch latency
  };
  void Parts(int32_t v, std::vector<EdgeParts>& out) const {
    out.clear();
    for (uint32_t i : g_.InEdges(v)) {
      if (i >= g_.ImplicitBase()) {
        // The graph's launch latency is 0 until AssignLags ends.
        const DependencyGraph::Implicit e = g_.ImplicitOf(i);
        out.push_back({i, e.kind, e.from_ns, g_.ImplicitNatural(e)});
      } else {
        out.push_back({i, g_.edge_kind_[i], g_.EdgeSourceNs(i), natural_[i]});
      }
    }
  }
  static int64_t Natural(const EdgeParts& p, int64_t latency) {
    return p.kind == DepEdgeKind::kSubmit ? p.natural + latency : p.natural;
  }
  // The in-edge (its place in `in`) whose source was ready last (the first of equals).
  static size_t Binding(const std::vector<EdgeParts>& in, int64_t latency) {
    size_t best = 0;
    int64_t best_ready = kMinTime;
    for (size_t k = 0; k < in.size(); ++k) {
      int64_t ready = SaturatingAdd(in[k].source_ns, Natural(in[k], latency));
      if (ready > best_ready) {
        best_ready = ready;
        best = k;
      }
    }
    return best;
  }

  // Events by recorded time; equal times in an order that respects their
  // edges. Edges that still point backwards (a cycle among equal times)
  // are neutralised: they are dropped from the replay.
  void Order() {
    const size_t n = g_.event_count();
    std::vector<int32_t>& order = g_.order_;
    ByTime(order);
    const size_t slices = SliceCount(n, kGraphBuildSlice);
    std::vector<uint32_t> pos(n);
    auto place = [&] {
      ForEachSlice(n, slices, [&](size_t, size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) pos[order[p]] = static_cast<uint32_t>(p);
      });
    };
    place();
    // Runs of equal times in slices, each slice starting where a run starts:
    // a run's sort writes only its own places and reads `pos` (fixed until
    // every run is sorted).
    std::vector<size_t> cut(slices + 1, n);
    for (size_t s = 0; s < slices; ++s) {
      size_t c = std::max(n * s / slices, s == 0 ? 0 : cut[s - 1]);
      while (c > 0 && c < n && g_.Recorded(order[c]) == g_.Recorded(order[c - 1])) ++c;
      cut[s] = c;
    }
    ForEachTask(slices, slices, [&](size_t, size_t s) {
      for (size_t b = cut[s]; b < cut[s + 1];) {
        size_t e = b + 1;
        while (e < n && g_.Recorded(order[e]) == g_.Recorded(order[b])) ++e;
        if (e - b > 1) SortTies(order, pos, b, e);
        b = e;
      }
    });
    place();
    // The edges that point backwards, found in slices (an edge is the
    // in-edge of one event, so cutting it changes no other event's edges),
    // then neutralised in event order.
    // The same pass lists the edges whose source a replay may read from
    // outside its ring (FarCandidates).
    std::vector<std::vector<std::pair<uint32_t, int32_t>>> backwards(slices);  // (edge, source event)
    g_.replay_ring_log2_ = std::clamp(o_.replay_ring_log2, 1, 30);
    const FarCandidates far_candidates(g_);
    std::vector<std::vector<std::pair<uint32_t, int32_t>>> far(slices);  // (reader's place in the order, source)
    ForEachSlice(n, slices, [&](size_t slice, size_t begin, size_t end) {
      for (size_t v = begin; v < end; ++v) {
        const int64_t t = g_.Recorded(static_cast<int32_t>(v));
        g_.VisitInEdges(static_cast<int32_t>(v), [&](uint32_t i, int32_t from, int64_t, int64_t) {
          if (from < 0) return;
          if (pos[from] >= pos[v]) {
            backwards[slice].push_back({i, from});
          } else if (far_candidates.May(from, t)) {
            far[slice].push_back({pos[v], from});
          }
        });
      }
    });
    if (far_candidates.filtered()) {
      FarReads(far);
    } else {
      FarReads();  // nothing was listed
    }
    for (const std::vector<std::pair<uint32_t, int32_t>>& list : backwards) {
      for (const auto& [i, from] : list) {
        ++g_.stats_["edge_cycle_dropped"];
        // From outside: keeps its recorded source time, a constant.
        if (i >= g_.ImplicitBase()) {
          Cut(i);
          continue;
        }
        g_.edge_from_[i] = -1 - static_cast<int32_t>(g_.outside_ns_.size());
        g_.outside_ns_.push_back(g_.Recorded(from));
      }
    }
  }
  // Which edges' sources a replay may read from outside their ring (the
  // header's FarRead): only when an event of the source's ring at least a
  // ring above it was placed before the reader. Such an event belongs to an
  // item at least (index + ring) / 2 up, which starts no earlier than that
  // item when items start in order and none ends before it starts (an op
  // end before its start is placed at the start): a reader recorded before
  // that start reads from its ring. Without that order every edge may.
  class FarCandidates {
   public:
    explicit FarCandidates(const DependencyGraph& g) : g_(g), ring_(g.ring_size()), split_(g.RingSplit()) {
      const size_t n = g.event_count();
      if (split_ <= ring_ && static_cast<int64_t>(n) - split_ <= ring_) {
        none_ = true;  // each ring holds all of its events
        return;
      }
      for (size_t k = 1; k < g.op_count() && filtered_; ++k) {
        filtered_ = g.Recorded(DependencyGraph::OpStart(k - 1)) <= g.Recorded(DependencyGraph::OpStart(k));
      }
      for (size_t c = 0; c < g.call_count() && filtered_; ++c) {
        filtered_ = g.Recorded(g.CallEnd(c)) >= g.Recorded(g.CallStart(c)) &&
                    (c == 0 || g.Recorded(g.CallStart(c - 1)) <= g.Recorded(g.CallStart(c)));
      }
    }
    // True when the ordered filter applies (then May holds for every far
    // read); false: every edge may be one (the order is simulated).
    bool filtered() const { return none_ || filtered_; }
    // Whether event `from`'s time may be read from outside its ring by an
    // event recorded at `t`.
    bool May(int32_t from, int64_t t) const {
      if (none_ || !filtered_) return false;
      const bool op = from < split_;
      const int64_t item = ((op ? from : from - split_) + ring_) >> 1;
      if (op) return item < static_cast<int64_t>(g_.op_count()) && t >= g_.Recorded(DependencyGraph::OpStart(item));
      return item < static_cast<int64_t>(g_.call_count()) && t >= g_.Recorded(g_.CallStart(item));
    }

   private:
    const DependencyGraph& g_;
    int64_t ring_;
    int32_t split_;
    bool none_ = false, filtered_ = true;
  };

  // The highest index placed so far in each replay ring, and whether an
  // event's time has left its ring (the header's FarRead).
  struct RingTops {
    int64_t ops = -1, calls = -1;
    void Place(int32_t v, int32_t split) {
      if (v < split) {
        ops = std::max<int64_t>(ops, v);
      } else {
        calls = std::max<int64_t>(calls, v - split);
      }
    }
    void Join(const RingTops& o) {
      ops = std::max(ops, o.ops);
      calls = std::max(calls, o.calls);
    }
    bool Left(int32_t e, int32_t split, int64_t ring) const {
      return e < split ? ops - e >= ring : calls - (e - split) >= ring;
    }
  };

  // The far reads among the candidates (reader's place in the order,
  // source), checked against the highest index placed in the source's ring
  // before the reader: one walk along the order when there are any.
  void FarReads(std::vector<std::vector<std::pair<uint32_t, int32_t>>>& candidates) {
    std::vector<std::pair<uint32_t, int32_t>> all;
    for (std::vector<std::pair<uint32_t, int32_t>>& list : candidates) {
      all.insert(all.end(), list.begin(), list.end());
      std::vector<std::pair<uint32_t, int32_t>>().swap(list);
    }
    if (all.empty()) return;
    std::sort(all.begin(), all.end());
    const int64_t ring = g_.ring_size();
    const int32_t split = g_.RingSplit();
    g_.far_read_.assign((g_.event_count() + 63) / 64, 0);
    RingTops tops;
    size_t next = 0;
    for (size_t p = 0; p < g_.order_.size() && next < all.size(); ++p) {
      for (; next < all.size() && all[next].first == p; ++next) {
        if (tops.Left(all[next].second, split, ring)) MarkFar(all[next].second);
      }
      tops.Place(g_.order_[p], split);
    }
    CountFar();
  }
  void MarkFar(int32_t e) {
    uint64_t& word = g_.far_read_[static_cast<size_t>(e) >> 6];
    word |= uint64_t{1} << (e & 63);
  }
  void CountFar() {
    for (uint64_t word : g_.far_read_) g_.far_read_count_ += static_cast<size_t>(std::popcount(word));
    if (g_.far_read_count_ == 0) std::vector<uint64_t>().swap(g_.far_read_);
  }

  // The far reads of a graph whose items do not start in order: the order
  // simulated in slices, each starting from the highest indices of the
  // slices before it, the marks joined afterwards.
  void FarReads() {
    const int64_t ring = g_.ring_size();
    const int32_t split = g_.RingSplit();
    const size_t n = g_.event_count();
    const std::vector<int32_t>& order = g_.order_;
    const size_t slices = SliceCount(n, kGraphBuildSlice);
    std::vector<RingTops> slice_tops(slices);
    ForEachSlice(n, slices, [&](size_t slice, size_t begin, size_t end) {
      for (size_t p = begin; p < end; ++p) slice_tops[slice].Place(order[p], split);
    });
    std::vector<std::vector<int32_t>> far(slices);
    ForEachSlice(n, slices, [&](size_t slice, size_t begin, size_t end) {
      RingTops tops;
      for (size_t s = 0; s < slice; ++s) tops.Join(slice_tops[s]);
      for (size_t p = begin; p < end; ++p) {
        const int32_t v = order[p];
        g_.VisitInEdges(v, [&](uint32_t, int32_t from, int64_t, int64_t) {
          if (from >= 0 && tops.Left(from, split, ring)) far[slice].push_back(from);
        });
        tops.Place(v, split);
      }
    });
    g_.far_read_.assign((n + 63) / 64, 0);
    for (const std::vector<int32_t>& list : far) {
      for (int32_t e : list) MarkFar(e);
    }
    CountFar();
  }
  // Implicit edge i's source counts as outside (its source time is the
  // recorded one either way).
  void Cut(uint32_t i) {
    const size_t items = g_.op_count_ + g_.call_count_, ops = g_.op_count_;
    size_t j = i - g_.ImplicitBase();
    if (j < items) {
      g_.item_flags_[j] |= DependencyGraph::kCutDuration;
    } else if ((j -= items) < ops) {
      g_.item_flags_[j] |= DependencyGraph::kCutFirst;
    } else if ((j -= ops) < ops) {
      g_.item_flags_[j] |= DependencyGraph::kCutSubmit;
    } else {
      g_.item_flags_[ops + (j - ops)] |= DependencyGraph::kCutFirst;
    }
  }
  // Every event by recorded time, equal times by event index (a stable
  // sort). Op starts and call starts come in time order already (the model
  // keeps ops and calls in start order); the ends are nearly in order. Each
  // of the four runs is put in order on its own, then merged: an indirect
  // sort of all events took most of the graph's time at 10M ops.
  void ByTime(std::vector<int32_t>& order) const {
    auto t = [this](int32_t e) { return g_.Recorded(e); };
    const size_t ops = g_.op_count_, calls = g_.call_count_;
    auto run = [&](size_t count, auto event_of) {
      std::vector<int32_t> r(count);
      for (size_t k = 0; k < count; ++k) r[k] = static_cast<int32_t>(event_of(k));
      const bool sorted = std::is_sorted(r.begin(), r.end(), [&](int32_t a, int32_t b) { return t(a) < t(b); });
      if (!sorted) {
        std::vector<std::pair<int64_t, int32_t>> keyed(count);
        for (size_t k = 0; k < count; ++k) keyed[k] = {t(r[k]), r[k]};
        std::sort(keyed.begin(), keyed.end());
        for (size_t k = 0; k < count; ++k) r[k] = keyed[k].second;
      }
      return r;
    };
    auto before = [&](int32_t a, int32_t b) {
      const int64_t ta = t(a), tb = t(b);
      return ta < tb || (ta == tb && a < b);
    };
    // An op ends after its stream's previous op, nearly always: the ends out
    // of order are merged stream by stream (at 100M ops in 4 GiB their
    // (time, event) pairs took 1.6 GB to sort, in spill files).
    auto op_ends = [&] {
      std::vector<int32_t> r(ops);
      for (size_t k = 0; k < ops; ++k) r[k] = DependencyGraph::OpEnd(k);
      if (std::is_sorted(r.begin(), r.end(), [&](int32_t a, int32_t b) { return t(a) < t(b); })) return r;
      const size_t groups = m_.streams.size() + 1;  // the last: ops on no known stream
      const std::vector<uint32_t> by_end = OrderMergingGroups(
          ops, groups,
          [&](size_t k) {
            const int32_t stream = m_.ops.stream[static_cast<size_t>(g_.ModelOp(k))];
            return ValidStream(m_, stream) ? static_cast<size_t>(stream) : groups - 1;
          },
          [&](size_t k) { return t(DependencyGraph::OpEnd(k)); });
      for (size_t k = 0; k < ops; ++k) r[k] = DependencyGraph::OpEnd(by_end[k]);
      return r;
    };
    // The ops' events and the calls' are put in order side by side, then
    // merged by slices: on one core this took 0.8 s at 10M ops, now 0.55 s
    // (two cores). No more memory than one after the other: the last merge
    // holds both lists and the order.
    std::vector<int32_t> ops_by_time, calls_by_time;
    auto ops_side = [&] {
      std::vector<int32_t> ends = op_ends();  // first: its own buffers go before `starts` comes
      std::vector<int32_t> starts = run(ops, [](size_t k) { return DependencyGraph::OpStart(k); });
      ops_by_time.resize(2 * ops);
      std::merge(starts.begin(), starts.end(), ends.begin(), ends.end(), ops_by_time.begin(), before);
    };
    auto calls_side = [&] {
      std::vector<int32_t> starts = run(calls, [&](size_t c) { return g_.CallStart(c); });
      std::vector<int32_t> ends = run(calls, [&](size_t c) { return g_.CallEnd(c); });
      calls_by_time.resize(2 * calls);
      std::merge(starts.begin(), starts.end(), ends.begin(), ends.end(), calls_by_time.begin(), before);
    };
    const bool beside = std::min(ops, calls) >= kOpsWorthAThread;
    ForEachTask(2, beside ? 2 : 1, [&](size_t, size_t side) { side == 0 ? ops_side() : calls_side(); });
    order.resize(g_.event_count());
    MergeInSlices<int32_t>(ops_by_time, calls_by_time, order, SliceCount(order.size(), kGraphBuildSlice), before);
  }
  // Kahn's algorithm among the events order[b, e) (equal recorded times).
  void SortTies(std::vector<int32_t>& order, const std::vector<uint32_t>& pos, size_t b, size_t e) {
    if (e - b == 2) {  // the common tie (an op's start with its call's end ...): what Kahn's gives, directly
      const int32_t x = order[b], y = order[b + 1];
      auto has_edge = [&](int32_t from, int32_t to) {
        for (uint32_t i : g_.InEdges(to)) {
          if (g_.EdgeFrom(i) == from) return true;
        }
        return false;
      };
      if (x != y && has_edge(y, x) && !has_edge(x, y)) std::swap(order[b], order[b + 1]);
      return;
    }
    auto in_group = [&](int32_t ev) { return ev >= 0 && pos[ev] >= b && pos[ev] < e; };
    absl::flat_hash_map<int32_t, int32_t> indegree;
    absl::flat_hash_map<int32_t, std::vector<int32_t>> out;
    for (size_t p = b; p < e; ++p) {
      int32_t v = order[p];
      indegree[v];
      for (uint32_t i : g_.InEdges(v)) {
        int32_t u = g_.EdgeFrom(i);
        if (u != v && in_group(u)) {
          ++indegree[v];
          out[u].push_back(v);
        }
      }
    }
    std::vector<int32_t> ready, sorted;
    for (size_t p = b; p < e; ++p) {
      if (indegree[order[p]] == 0) ready.push_back(order[p]);
    }
    std::reverse(ready.begin(), ready.end());  // pop the earliest first
    while (!ready.empty()) {
      int32_t u = ready.back();
      ready.pop_back();
      sorted.push_back(u);
      for (int32_t v : out[u]) {
        if (--indegree[v] == 0) ready.push_back(v);
      }
    }
    for (size_t p = b; p < e; ++p) {
      if (indegree[order[p]] > 0) sorted.push_back(order[p]);  // in a cycle: recorded order
    }
    std::copy(sorted.begin(), sorted.end(), order.begin() + static_cast<std::ptrdiff_t>(b));
  }
  void RecordedEnd() {
    int64_t end = kMinTime, fixed = kMinTime;
    auto [first, last] = m_.OpRangeFor(w_.start_ns, w_.end_ns);
    for (size_t i = first; i < last; ++i) {
      int64_t e = OpEndOf(m_, i);
      if (e <= w_.start_ns && m_.ops.start_ns[i] < w_.start_ns) continue;  // ended before the window
      end = std::max(end, e);
      if (m_.ops.start_ns[i] < w_.start_ns) fixed = std::max(fixed, e);
    }
    g_.recorded_end_ns_ = end == kMinTime ? w_.start_ns : end;
    g_.fixed_end_ns_ = fixed;
  }

  const TraceModel& m_;
  const Window& w_;
  const DependencyGraphOptions& o_;
  DependencyGraph& g_;
  const OuterCalls& outer_;
  const SubmitOrder& submit_;
  const EventFacts& events_;
  const StreamPredecessors& preds_;
  std::vector<std::vector<int32_t>> partners_;
  // Graph call c's model ops: own_ops_[own_ops_begin_[c] .. own_ops_begin_[c + 1]).
  std::vector<uint32_t> own_ops_begin_;
  std::vector<int32_t> own_ops_;
  // Per graph call its thread, an index among tid_count_ (the handoffs').
  std::vector<int32_t> call_tid_;
  size_t tid_count_ = 0;
  std::span<const int32_t> OwnOps(size_t c) const {
    return {own_ops_.data() + own_ops_begin_[c], own_ops_.data() + own_ops_begin_[c + 1]};
  }
  std::vector<NameClass> classes_;
  bool counting_ = true;                              // Emit counts (first pass) or writes
  int64_t against_time_ = 0;                          // edges left out: source recorded after target
  std::vector<uint32_t> begin_;                       // per event: its first explicit edge (while made)
  std::vector<uint32_t> slot_;                        // per event: its next edge slot (second pass)
  std::vector<int64_t> natural_;                      // per explicit edge: its natural lag
  std::vector<int64_t> lag_;                          // per explicit edge: its lag (natural_ is read meanwhile)
  std::vector<std::pair<int32_t, int32_t>> handoff_;  // (graph call, its host_handoff source), by call
};

void BuildDependencyGraphFacts(const TraceModel& model) {
  model.Derived<OuterCalls>();
  model.Derived<SubmitOrder>();
  model.Derived<EventFacts>();
  model.Derived<StreamPredecessors>();
}

void ForgetDependencyGraphFacts(const TraceModel& model) {
  model.derived->Forget<SubmitOrder>();
  model.derived->Forget<EventFacts>();
}

DependencyGraph BuildDependencyGraph(const TraceModel& model, const Window& window,
                                     const DependencyGraphOptions& options) {
  DependencyGraph g;
  DependencyGraphBuilder(model, window, options, g).Run();
  return g;
}

}  // namespace streamscope
