#include "analyzer/analysis/causes/what_if.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/hardware_queues.h"
#include "analyzer/analysis/causes/innermost_nvtx.h"
#include "analyzer/analysis/causes/lower_median.h"
#include "analyzer/analysis/causes/window_detections.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/base/threads.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view WhatIfKindName(WhatIfKind k) {
  switch (k) {
    case WhatIfKind::kHostWork: return "host_work";
    case WhatIfKind::kSync: return "sync";
    case WhatIfKind::kPageableCopy: return "pageable_copy";
    case WhatIfKind::kSameStream: return "same_stream";
    case WhatIfKind::kFirstLaunch: return "first_launch";
    case WhatIfKind::kLegacyStream: return "legacy_stream";
    case WhatIfKind::kLaunchBlocking: return "launch_blocking";
    case WhatIfKind::kReadback: return "readback";
    case WhatIfKind::kHardwareQueue: return "hardware_queue";
    case WhatIfKind::kLazyLoading: return "lazy_loading";
  }
  return "unknown";
}

namespace {

// Changed lags by edge: a bit per edge, the changed ones' lags in edge
// order, and per 64 edges how many changed before them (a rank).
class ChangedLags {
 public:
  ChangedLags(const DependencyGraph& g, const ReplayEdits& edits) {
    if (edits.lag_edge.empty()) return;
    const size_t words = (g.edge_count() + 63) / 64;
    marked_.assign(words, 0);
    std::vector<std::pair<uint32_t, uint32_t>> by_edge;  // (edge, place in edits) when not in edge order
    const bool ascending = std::adjacent_find(edits.lag_edge.begin(), edits.lag_edge.end(),
                                              std::greater_equal<uint32_t>()) == edits.lag_edge.end();
    if (ascending) {  // the usual case: read in place
      for (uint32_t e : edits.lag_edge) Mark(e);
      values_ = &edits.lag;
    } else {
      by_edge.reserve(edits.lag_edge.size());
      for (size_t k = 0; k < edits.lag_edge.size(); ++k)
        by_edge.push_back({edits.lag_edge[k], static_cast<uint32_t>(k)});
      std::sort(by_edge.begin(), by_edge.end());
      for (size_t k = 0; k < by_edge.size(); ++k) {
        if (k + 1 < by_edge.size() && by_edge[k + 1].first == by_edge[k].first) continue;  // the later holds
        Mark(by_edge[k].first);
        lag_.push_back(edits.lag[by_edge[k].second]);
      }
      values_ = &lag_;
    }
    rank_.resize(words);
    uint32_t before = 0;
    for (size_t w = 0; w < words; ++w) {
      rank_[w] = before;
      before += static_cast<uint32_t>(std::popcount(marked_[w]));
    }
  }
  // Edge i's lag in the replay; `recorded()` gives its graph lag.
  template <typename Recorded>
  int64_t Lag(uint32_t i, Recorded recorded) const {
    const uint64_t word = marked_[i >> 6], bit = uint64_t{1} << (i & 63);
    if ((word & bit) == 0) return recorded();
    return (*values_)[rank_[i >> 6] + static_cast<uint32_t>(std::popcount(word & (bit - 1)))];
  }

 private:
  void Mark(uint32_t e) { marked_[e >> 6] |= uint64_t{1} << (e & 63); }
  std::vector<uint64_t> marked_;
  std::vector<uint32_t> rank_;
  NarrowInt64Column lag_;  // when `edits` were not in edge order
  const NarrowInt64Column* values_ = nullptr;
};

// Added edges by target: (target, index into edits.added), sorted, and a
// bit per event that has any (a start per event took 8 bytes an event).
struct AddedByTarget {
  std::vector<std::pair<int32_t, uint32_t>> by_target;
  std::vector<uint64_t> marked;
  bool Has(int32_t v) const { return ((marked[static_cast<size_t>(v) >> 6] >> (v & 63)) & 1) != 0; }
};

// Every event's replayed time, 8 bytes an event (ReplayResult::t).
struct WideTimes {
  static constexpr bool kOffsets = false;
  std::vector<int64_t>& t;
  int64_t Get(int32_t e, int64_t /*recorded*/) const { return t[static_cast<size_t>(e)]; }
  void Set(int32_t e, int64_t /*recorded*/, int64_t value) { t[static_cast<size_t>(e)] = value; }
};

// Each event's replayed time as its offset from the recorded time, in 40
// bits (a 32-bit low part and a signed byte above it): 5 bytes a place, not
// 8. A what-if shifts events by up to seconds (beyond 32 bits of ns), and
// streams by different amounts, so no narrower base per block of events
// holds (a base per 4096 events left 0.05 GB of exceptions at 10M ops);
// 40 bits hold +-545 s. A larger offset (a saturated time) is kept whole in
// a map. Only the latest events of each ring are kept (the graph's
// ring_size(), dependency_graph.h), and the times of events read later
// (FarRead, and the sources of edges a replay adds) in a map: a replay's
// memory does not grow with the window (every event's offset took 200 MB
// at 10M ops).
class RingTimes {
 public:
  static constexpr bool kOffsets = true;
  explicit RingTimes(const DependencyGraph& g)
      : g_(g),
        split_(g.RingSplit()),
        ring_(g.ring_size()),
        ops_(std::min<int64_t>(ring_, std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(1, split_))))),
        calls_(std::min<int64_t>(ring_, std::bit_ceil(static_cast<uint64_t>(
                                            std::max<int64_t>(1, static_cast<int64_t>(g.event_count()) - split_))))) {}
  // Before each replay: the sources of the edges it adds may be read from
  // anywhere before.
  void Reset(const ReplayEdits& edits) {
    whole_.clear();
    far_.clear();
    added_sources_.clear();
    for (const ReplayEdits::Added& a : edits.added) {
      if (a.from != DepEdge::kOutside) added_sources_.insert(a.from);
    }
    ops_.highest = calls_.highest = -1;
  }
  // Inlined into the replay's loop (called once an edge).
  [[gnu::always_inline]] int64_t Get(int32_t e, int64_t recorded) const {
    const bool op = e < split_;
    const Ring& r = op ? ops_ : calls_;
    const int64_t x = op ? e : e - split_;
    if (r.highest - x >= ring_) [[unlikely]]
      return Far(e);
    const size_t i = static_cast<size_t>(x) & r.mask;
    const int8_t high = r.high[i];
    if (high == kWhole) [[unlikely]]
      return Whole(e);
    return recorded + (static_cast<int64_t>(high) * (int64_t{1} << 32) + r.low[i]);  // recorded + offset, as set
  }
  [[gnu::always_inline]] void Set(int32_t e, int64_t recorded, int64_t value) {
    const bool op = e < split_;
    Ring& r = op ? ops_ : calls_;
    const int64_t x = op ? e : e - split_;
    r.highest = std::max(r.highest, x);
    if (g_.FarRead(e) || (!added_sources_.empty() && added_sources_.contains(e))) [[unlikely]]
      far_[e] = value;
    if (r.highest - x >= ring_) [[unlikely]]
      return;  // already out of its ring: read from far_ if at all
    const size_t i = static_cast<size_t>(x) & r.mask;
    int64_t offset = 0;
    if (!__builtin_sub_overflow(value, recorded, &offset) && offset >= kMinOffset && offset <= kMaxOffset) {
      const int64_t high = offset >> 32;  // floor: low is what is left, 0 .. 2^32 - 1
      r.high[i] = static_cast<int8_t>(high);
      r.low[i] = static_cast<uint32_t>(offset - high * (int64_t{1} << 32));
      return;
    }
    r.high[i] = kWhole;
    whole_[e] = value;
  }

 private:
  struct Ring {
    explicit Ring(int64_t size)
        : mask(static_cast<size_t>(size) - 1), low(static_cast<size_t>(size), 0), high(static_cast<size_t>(size), 0) {}
    size_t mask;
    int64_t highest = -1;  // the highest index set so far
    std::vector<uint32_t> low;
    std::vector<int8_t> high;
  };
  [[gnu::noinline]] int64_t Whole(int32_t e) const { return whole_.find(e)->second; }
  [[gnu::noinline]] int64_t Far(int32_t e) const { return far_.find(e)->second; }
  static constexpr int8_t kWhole = std::numeric_limits<int8_t>::min();
  static constexpr int64_t kMinOffset = -int64_t{127} * (int64_t{1} << 32);
  static constexpr int64_t kMaxOffset = int64_t{128} * (int64_t{1} << 32) - 1;
  const DependencyGraph& g_;
  int32_t split_;
  int64_t ring_;
  Ring ops_, calls_;
  absl::flat_hash_map<int32_t, int64_t> whole_;
  absl::flat_hash_map<int32_t, int64_t> far_;
  absl::flat_hash_set<int32_t> added_sources_;
};

// The ops' span as the replay sets their times (a replay keeps only some
// events' times).
struct OpSpan {
  LatestOpEnd latest;
  int64_t first_start_ns = std::numeric_limits<int64_t>::max();
};

// The replay's loop over the events, one instance per kind of edits, so
// that a replay without removed or added edges or bindings does not test
// for them at every edge (the what-ifs replay the whole window once per
// cause). Without bindings an event's time is the latest candidate; with
// them, a tie goes to the graph's binding edge.
template <bool kLags, bool kRemoved, bool kAdded, bool kBinding, typename Times>
void ReplayEvents(const DependencyGraph& g, const ReplayEdits& edits, const ChangedLags& lags,
                  const AddedByTarget& added, Times& times, ReplayResult& r, OpSpan& span) {
  const auto edge_count = static_cast<int32_t>(g.edge_count());
  for (int32_t v : g.order()) {
    bool any = false;
    int64_t best = 0;
    [[maybe_unused]] int32_t bind = -1;
    [[maybe_unused]] const int32_t preferred = kBinding ? g.Binding(v) : -1;
    auto offer = [&](int64_t cand, [[maybe_unused]] int32_t index) {
      if constexpr (kBinding) {
        if (!any || cand > best || (cand == best && index == preferred)) {
          best = cand;
          bind = index;
        }
      } else {
        if (!any || cand > best) best = cand;
      }
      any = true;
    };
    g.VisitInEdges(v, [&](uint32_t i, int32_t from, int64_t source_ns, int64_t lag) {
      if constexpr (kRemoved) {
        if (edits.Removed(i)) return;
      }
      const int64_t src = from == DepEdge::kOutside ? source_ns : times.Get(from, source_ns);
      if constexpr (kLags) lag = lags.Lag(i, [&] { return lag; });
      offer(SaturatingAdd(src, lag), static_cast<int32_t>(i));
    });
    if constexpr (kAdded) {
      if (added.Has(v)) {
        auto it = std::lower_bound(added.by_target.begin(), added.by_target.end(), std::make_pair(v, uint32_t{0}));
        for (; it != added.by_target.end() && it->first == v; ++it) {
          const ReplayEdits::Added& a = edits.added[it->second];
          int64_t src = a.from == DepEdge::kOutside ? a.from_ns : times.Get(a.from, g.Recorded(a.from));
          offer(SaturatingAdd(src, a.lag), edge_count + static_cast<int32_t>(it->second));
        }
      }
    }
    int64_t t = 0;
    if constexpr (Times::kOffsets) {
      const int64_t recorded = g.Recorded(v);
      t = any ? best : recorded;
      times.Set(v, recorded, t);
    } else {
      t = any ? best : g.Recorded(v);
      times.Set(v, 0, t);
    }
    if (g.IsOpEvent(v)) {
      if (g.IsEndEvent(v)) {
        span.latest.Offer(static_cast<int32_t>(g.ItemOf(v)), t);
      } else {
        span.first_start_ns = std::min(span.first_start_ns, t);
      }
    }
    if constexpr (kBinding) r.binding[v] = any ? bind : -1;
  }
}

// Replay with each event's time kept in `times` (WideTimes: r.t).
template <typename Times>
void ReplayInto(const DependencyGraph& g, const ReplayEdits& edits, bool keep_binding, Times& times, ReplayResult& r) {
  const size_t n = g.event_count();
  const ChangedLags lags(g, edits);
  if (keep_binding) r.binding.assign(n, -1);
  AddedByTarget added;
  if (!edits.added.empty()) {
    added.by_target.reserve(edits.added.size());
    added.marked.assign((n + 63) / 64, 0);
    for (size_t k = 0; k < edits.added.size(); ++k) {
      const int32_t to = edits.added[k].to;
      added.by_target.push_back({to, static_cast<uint32_t>(k)});
      added.marked[static_cast<size_t>(to) >> 6] |= uint64_t{1} << (to & 63);
    }
    std::sort(added.by_target.begin(), added.by_target.end());
  }
  using Events = void (*)(const DependencyGraph&, const ReplayEdits&, const ChangedLags&, const AddedByTarget&, Times&,
                          ReplayResult&, OpSpan&);
  static constexpr Events kEvents[16] = {
      ReplayEvents<false, false, false, false, Times>, ReplayEvents<false, false, false, true, Times>,
      ReplayEvents<false, false, true, false, Times>,  ReplayEvents<false, false, true, true, Times>,
      ReplayEvents<false, true, false, false, Times>,  ReplayEvents<false, true, false, true, Times>,
      ReplayEvents<false, true, true, false, Times>,   ReplayEvents<false, true, true, true, Times>,
      ReplayEvents<true, false, false, false, Times>,  ReplayEvents<true, false, false, true, Times>,
      ReplayEvents<true, false, true, false, Times>,   ReplayEvents<true, false, true, true, Times>,
      ReplayEvents<true, true, false, false, Times>,   ReplayEvents<true, true, false, true, Times>,
      ReplayEvents<true, true, true, false, Times>,    ReplayEvents<true, true, true, true, Times>,
  };
  const int kind = (edits.lag_edge.empty() ? 0 : 8) + (edits.removed.empty() ? 0 : 4) + (edits.added.empty() ? 0 : 2) +
                   (keep_binding ? 1 : 0);
  OpSpan span;
  kEvents[kind](g, edits, lags, added, times, r, span);
  const GraphEnd end = EndOfGraph(g, span.latest);
  r.end_ns = end.end_ns;
  r.end_op = end.end_op;
  r.start_ns = std::min(r.end_ns, span.first_start_ns);
}

}  // namespace

namespace {

// ReplaySpan with its times in `times` (every event is set before it is
// read): the what-ifs' replays share one, allocated once.
ReplayResult ReplaySpanIn(const DependencyGraph& g, const ReplayEdits& edits, RingTimes& times) {
  ReplayResult r;
  times.Reset(edits);
  ReplayInto(g, edits, false, times, r);
  return r;
}

}  // namespace

ReplayResult ReplaySpan(const DependencyGraph& g, const ReplayEdits& edits) {
  RingTimes times(g);
  return ReplaySpanIn(g, edits, times);
}

ReplayResult Replay(const DependencyGraph& g, const ReplayEdits& edits, bool keep_binding) {
  ReplayResult r;
  r.t.assign(g.event_count(), 0);
  WideTimes times{r.t};
  ReplayInto(g, edits, keep_binding, times, r);
  return r;
}

int64_t SpanSaving(const DependencyGraph& graph, const ReplayResult& replayed) {
  int64_t recorded_start = graph.recorded_end_ns();
  for (size_t k = 0; k < graph.op_count(); ++k) {
    recorded_start = std::min(recorded_start, graph.Recorded(DependencyGraph::OpStart(k)));
  }
  const int64_t recorded_span = SaturatingSub(graph.recorded_end_ns(), recorded_start);
  const int64_t replayed_span = SaturatingSub(replayed.end_ns, replayed.start_ns);
  return SaturatingSub(recorded_span, replayed_span);
}

namespace {

bool IsPageable(const TraceModel& m, size_t i) {
  return m.ops.src_kind[i] == MemoryKind::kPageable || m.ops.dst_kind[i] == MemoryKind::kPageable;
}

int64_t OpDuration(const TraceModel& m, size_t i) {
  return std::max<int64_t>(0, SaturatingSub(m.ops.end_ns[i], m.ops.start_ns[i]));
}

// Pinned host copies per (device, category), by size: the trace's own rate
// for a pageable copy of similar size. Built once per trace.
struct PinnedCopyRates {
  struct Sample {
    int64_t bytes;
    double bytes_per_ns;
    friend bool operator<(const Sample& a, const Sample& b) { return a.bytes < b.bytes; }
  };
  explicit PinnedCopyRates(const TraceModel& m) {
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (!IsCopy(m.ops.category[i]) || IsPageable(m, i)) continue;
      if (m.ops.src_kind[i] != MemoryKind::kPinned && m.ops.dst_kind[i] != MemoryKind::kPinned) continue;
      int64_t d = OpDuration(m, i);
      if (d <= 0 || m.ops.bytes[i] <= 0) continue;
      samples[Key(m.ops.device_id[i], m.ops.category[i])].push_back(
          {m.ops.bytes[i], static_cast<double>(m.ops.bytes[i]) / static_cast<double>(d)});
    }
    for (auto& [key, v] : samples) std::sort(v.begin(), v.end());
  }
  static uint64_t Key(int32_t device, OpCategory c) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(device)) << 8) | static_cast<uint8_t>(c);
  }
  // Median rate of the samples within [bytes / factor, bytes * factor], or 0.
  double Rate(int32_t device, OpCategory c, int64_t bytes, double factor) const {
    auto it = samples.find(Key(device, c));
    if (it == samples.end() || bytes <= 0) return 0;
    const std::vector<Sample>& v = it->second;
    int64_t lo = static_cast<int64_t>(std::floor(static_cast<double>(bytes) / factor));
    double hi_d = static_cast<double>(bytes) * factor;
    int64_t hi = hi_d >= 9e18 ? kMaxTime : static_cast<int64_t>(std::ceil(hi_d));
    auto first = std::lower_bound(v.begin(), v.end(), Sample{lo, 0});
    auto last = std::upper_bound(v.begin(), v.end(), Sample{hi, 0});
    if (first >= last) return 0;
    std::vector<double> rates;
    for (auto s = first; s != last; ++s) rates.push_back(s->bytes_per_ns);
    auto mid = rates.begin() + static_cast<std::ptrdiff_t>((rates.size() - 1) / 2);
    std::nth_element(rates.begin(), mid, rates.end());
    return *mid;
  }
  absl::flat_hash_map<uint64_t, std::vector<Sample>> samples;
};

// A span of host time on one thread inside one innermost NVTX range.
struct RangeSpan {
  int64_t start, end;
  StringId name;
};

// The innermost range's name over time (gap causes' host_nvtx_range rule):
// adjacent spans of one name are one.
std::vector<RangeSpan> InnermostSpans(const TraceModel& m, const std::vector<int32_t>& ranges) {
  std::vector<RangeSpan> out;
  for (const InnermostNvtxSpan& span : InnermostNvtxSpans(m, ranges)) {
    StringId name = m.nvtx_ranges[span.range].name;
    if (!out.empty() && out.back().name == name && out.back().end == span.start) {
      out.back().end = span.end;
    } else {
      out.push_back({span.start, span.end, name});
    }
  }
  return out;
}

// First-launch outliers: with the default thresholds the default steady
// state's (a fact the report built already: finding them again took about
// 0.35 GB at 10M ops, at the what-ifs' peak).
std::vector<FirstLaunchOutlier> FirstLaunches(const TraceModel& m, const SteadyStateOptions& o) {
  const SteadyStateOptions d;
  if (o.first_launch_factor == d.first_launch_factor && o.first_launch_min_excess_ns == d.first_launch_min_excess_ns) {
    return DefaultSteadyState(m).first_launches;
  }
  return FindFirstLaunchOutliers(m, o);
}

int32_t EngineClass(const TraceModel& m, size_t op) {
  switch (m.ops.category[op]) {
    case OpCategory::kKernel:
    case OpCategory::kMemset: return 0;
    case OpCategory::kHtoD: return 1;
    case OpCategory::kDtoH: {
      // A result read back depends on the kernel before it: never split off.
      if (m.ops.bytes[op] <= kResultReadBackMaxBytes) return 0;
      const Device* d = m.FindDevice(m.ops.device_id[op]);
      return d != nullptr && d->async_engine_count == 1 ? 1 : 2;
    }
    default: return 3;
  }
}

// A set of thread ids asked about once per op or call, mostly about the
// thread of the one before: that answer is kept (a hash lookup per call
// took 0.2 s at 10M calls).
class ThreadSet {
 public:
  void Insert(int64_t tid) {
    if (tid == last_ && last_in_) return;
    set_.insert(tid);
    last_ = tid;
    last_in_ = true;
  }
  bool Contains(int64_t tid) const {
    if (tid != last_) {
      last_ = tid;
      last_in_ = set_.contains(tid);
    }
    return last_in_;
  }

 private:
  absl::flat_hash_set<int64_t> set_;
  mutable int64_t last_ = 0;
  mutable bool last_in_ = false;
};

// Everything the what-ifs of one window share.
class WhatIfContext {
 public:
  // `detections`: the window's, found by the caller for the diagnosis
  // too; nullptr (or another window's): found here.
  WhatIfContext(const TraceModel& m, const DependencyGraph& g, const WhatIfOptions& o,
                const WindowDetections* detections = nullptr)
      : m_(m), g_(g), o_(o), detections_(Detections(m, g, detections, found_)) {
    ThreadSet tids;  // threads that submitted the window's ops
    for (size_t k = 0; k < g.op_count(); ++k) {
      if (int32_t c = g.OpSubmitter(k); c >= 0) tids.Insert(g.CallTid(c));
    }
    HostGaps(tids);
    first_launches_ = FirstLaunches(m, o.first_launch);
  }

  const WhatIfOptions& options() const { return o_; }

  // The causes present, at most max_causes_per_kind of a kind (those with
  // the largest cost, estimated cheaply here: host time, call time, the
  // stream's hideable time), each replayed later.
  std::vector<WhatIfCause> Candidates() const {
    std::vector<std::pair<WhatIfCause, int64_t>> ranked;  // cause, cheap cost
    absl::flat_hash_map<StringId, int64_t> host;
    for (size_t g = 0; g < gap_parts_.size(); ++g) {
      for (uint32_t k = gap_parts_[g]; k < PartsEnd(g); ++k) host[part_name_[k]] += PartNs(k);
    }
    for (const auto& [name, ns] : host) ranked.push_back({{WhatIfKind::kHostWork, name}, ns});
    std::vector<std::pair<WhatIfCause, int64_t>> syncs;
    for (size_t c = 0; c < g_.call_count(); ++c) {
      BlockingKind b = g_.CallBlocking(c);
      if (b == BlockingKind::kNone || b == BlockingKind::kPageableCopy) continue;
      WhatIfCause cause{WhatIfKind::kSync, m_.api.name[g_.ModelCall(c)], b, g_.CallSyncStream(c)};
      int64_t ns = g_.Recorded(g_.CallEnd(c)) - g_.Recorded(g_.CallStart(c));
      auto it = std::find_if(syncs.begin(), syncs.end(), [&](const auto& x) { return x.first == cause; });
      if (it == syncs.end()) {
        syncs.push_back({cause, ns});
      } else {
        it->second += ns;
      }
    }
    ranked.insert(ranked.end(), syncs.begin(), syncs.end());
    absl::flat_hash_map<int32_t, std::pair<int64_t, int64_t>> streams;  // stream -> (compute, copy) ns
    std::vector<int32_t> pageable_devices;
    for (size_t k = 0; k < g_.op_count(); ++k) {
      size_t i = static_cast<size_t>(g_.ModelOp(k));
      if (IsCopy(m_.ops.category[i]) && IsPageable(m_, i) &&
          std::find(pageable_devices.begin(), pageable_devices.end(), m_.ops.device_id[i]) == pageable_devices.end()) {
        pageable_devices.push_back(m_.ops.device_id[i]);
      }
      if (m_.ops.stream[i] < 0) continue;
      auto& [compute, copy] = streams[m_.ops.stream[i]];
      (EngineClass(m_, i) == 0 ? compute : copy) += OpDuration(m_, i);
    }
    std::sort(pageable_devices.begin(), pageable_devices.end());
    for (int32_t d : pageable_devices) {
      ranked.push_back({{WhatIfKind::kPageableCopy, kNoString, BlockingKind::kNone, -1, d}, 1});
    }
    for (const auto& [stream, ns] : streams) {
      int64_t hideable = std::min(ns.first, ns.second);
      if (hideable > 0) ranked.push_back({{WhatIfKind::kSameStream, kNoString, BlockingKind::kNone, stream}, hideable});
    }
    if (!first_launches_.empty()) ranked.push_back({{WhatIfKind::kFirstLaunch}, 1});
    if (g_.stats().contains("edges_legacy_stream")) ranked.push_back({{WhatIfKind::kLegacyStream}, 1});
    if (!detections_.queue_held.held.empty()) ranked.push_back({{WhatIfKind::kHardwareQueue}, 1});
    if (!detections_.load_stalls.waiting.empty()) ranked.push_back({{WhatIfKind::kLazyLoading}, 1});
    // Deterministic order: kind, then cost (largest first), then the key.
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(a.first.kind, -a.second, a.first.name, a.first.stream, a.first.device_id,
                             a.first.blocking) < std::make_tuple(b.first.kind, -b.second, b.first.name, b.first.stream,
                                                                 b.first.device_id, b.first.blocking);
    });
    std::vector<WhatIfCause> out;
    std::array<int, kNumWhatIfKinds> per_kind{};
    for (const auto& [cause, cost] : ranked) {
      if (per_kind[static_cast<int>(cause.kind)]++ >= o_.max_causes_per_kind) continue;
      out.push_back(cause);
    }
    return out;
  }

  // The edits that remove `cause`, and its measured cost and evidence.
  void Make(const WhatIfCause& cause, ReplayEdits& edits, WhatIfEstimate& est) const {
    est.cause = cause;
    // Freed, not cleared: a cause that needs no lags or no removed edges
    // should not hold the previous cause's.
    std::vector<uint32_t>().swap(edits.lag_edge);
    NarrowInt64Column().swap(edits.lag);
    std::vector<uint64_t>().swap(edits.removed);
    edits.added.clear();
    Evidence ev(o_.max_listed);
    switch (cause.kind) {
      case WhatIfKind::kHostWork: HostWork(cause, edits, est, ev); break;
      case WhatIfKind::kSync: Sync(cause, edits, est, ev); break;
      case WhatIfKind::kPageableCopy: Pageable(cause, edits, est, ev); break;
      case WhatIfKind::kSameStream: SameStream(cause, edits, est, ev); break;
      case WhatIfKind::kFirstLaunch: FirstLaunch(edits, est, ev); break;
      case WhatIfKind::kLegacyStream: Legacy(edits, est, ev); break;
      case WhatIfKind::kLaunchBlocking: LaunchBlocking(edits, est, ev); break;
      case WhatIfKind::kReadback: Readback(edits, est, ev); break;
      case WhatIfKind::kHardwareQueue: StartEarlier(detections_.queue_held.held, edits, est, ev); break;
      case WhatIfKind::kLazyLoading: StartEarlier(detections_.load_stalls.waiting, edits, est, ev); break;
    }
    est.op_count = static_cast<int64_t>(ev.ops.size());
    est.call_count = static_cast<int64_t>(ev.calls.size());
    est.ops = ev.ops.Take();
    est.calls = ev.calls.Take();
  }

 private:
  // Calls f(gap, graph call) for each gap, in call order.
  template <typename F>
  void ForEachGap(F f) const {
    size_t g = 0;
    for (size_t w = 0; w < gap_calls_.size(); ++w) {
      for (uint64_t bits = gap_calls_[w]; bits != 0; bits &= bits - 1) {
        f(g++, w * 64 + static_cast<size_t>(std::countr_zero(bits)));
      }
    }
  }
  // The host_handoff edge of call `c` (kNoEdge: none): after a handoff the
  // gap's host work is what follows it, and both edges shrink with it.
  // Found again when needed (rare) rather than kept with every gap.
  uint32_t HandoffOf(size_t c) const {
    const int32_t v = g_.CallStart(c);
    uint32_t handoff = kNoEdge;
    const InEdgeList in = g_.InEdges(v);  // a handoff is an explicit edge
    for (uint32_t i = in.explicit_begin; i < in.explicit_end; ++i) {
      if (g_.EdgeKind(i) == DepEdgeKind::kHandoff) handoff = i;
    }
    return handoff;
  }
  // The `limit` smallest distinct values pushed, ascending, and how many
  // were pushed: a cause's evidence lists a few of up to millions of ops
  // and calls (a list of all of them, sorted at the end, took 8 bytes an
  // op and a call at 10M ops).
  class Kept {
   public:
    explicit Kept(int limit) : limit_(static_cast<size_t>(std::max(0, limit))) {}
    void push_back(int32_t x) {
      ++pushed_;
      if (limit_ == 0 || (values_.size() == limit_ && x >= values_.back())) return;
      auto it = std::lower_bound(values_.begin(), values_.end(), x);
      if (it != values_.end() && *it == x) return;
      values_.insert(it, x);
      if (values_.size() > limit_) values_.pop_back();
    }
    size_t size() const { return pushed_; }
    std::vector<int32_t> Take() { return std::move(values_); }

   private:
    size_t limit_;
    size_t pushed_ = 0;
    std::vector<int32_t> values_;
  };
  struct Evidence {
    explicit Evidence(int limit) : ops(limit), calls(limit) {}
    Kept ops, calls;
  };

  // The per-edge edits a cause makes, from the recorded lags and nothing
  // removed; a cause that only removes edges lists no lags, one that only
  // changes lags leaves `removed` empty.
  static void SetLag(ReplayEdits& edits, uint32_t edge, int64_t lag) {
    edits.lag_edge.push_back(edge);
    edits.lag.push_back(lag);
  }
  void TouchRemoved(ReplayEdits& edits) const {
    if (edits.removed.empty()) edits.removed.assign((g_.edge_count() + 63) / 64, 0);
  }
  // Whether event a comes before event b in the graph's order, which is by
  // recorded time: only events of one time need their places (a table of
  // every event's place took 4 bytes an event for a few lookups).
  bool Before(int32_t a, int32_t b) const {
    const int64_t ta = g_.Recorded(a), tb = g_.Recorded(b);
    if (ta != tb) return ta < tb;
    const std::vector<int32_t>& order = g_.order();
    auto first =
        std::lower_bound(order.begin(), order.end(), ta, [&](int32_t e, int64_t t) { return g_.Recorded(e) < t; });
    for (auto it = first; it != order.end() && g_.Recorded(*it) == ta; ++it) {
      if (*it == a) return true;
      if (*it == b) return false;
    }
    return false;
  }
  int64_t SourceTime(uint32_t i) const { return g_.EdgeSourceNs(i); }
  // The model ops of the graph calls marked in `calls` (a bit per call),
  // into the evidence: one pass over the ops (Kept does not depend on the
  // order; a table of each call's ops took 8 bytes a call).
  void OpsOfCalls(const std::vector<uint64_t>& calls, Evidence& ev) const {
    for (size_t k = 0; k < g_.op_count(); ++k) {
      const int32_t c = g_.OpSubmitter(k);
      if (c >= 0 && Marked(calls, static_cast<size_t>(c))) ev.ops.push_back(g_.ModelOp(k));
    }
  }
  static bool Marked(const std::vector<uint64_t>& bits, size_t i) { return ((bits[i >> 6] >> (i & 63)) & 1) != 0; }
  static void Mark(std::vector<uint64_t>& bits, size_t i) { bits[i >> 6] |= uint64_t{1} << (i & 63); }

  void HostGaps(const ThreadSet& tids) {
    absl::flat_hash_map<int64_t, std::vector<int32_t>> ranges;
    for (size_t r = 0; r < m_.nvtx_ranges.size(); ++r) {
      const NvtxRange& nr = m_.nvtx_ranges[r];
      if (!tids.Contains(nr.tid)) continue;
      if (nr.start_ns >= g_.window().end_ns || nr.end_ns.value_or(kMaxTime) <= g_.window().start_ns) continue;
      ranges[nr.tid].push_back(static_cast<int32_t>(r));
    }
    absl::flat_hash_map<int64_t, std::vector<RangeSpan>> spans;
    for (auto& [tid, list] : ranges) spans[tid] = InnermostSpans(m_, list);
    // The graph calls that submitted ops of the window.
    submitted_.assign((g_.call_count() + 63) / 64, 0);
    for (size_t k = 0; k < g_.op_count(); ++k) {
      if (int32_t c = g_.OpSubmitter(k); c >= 0) Mark(submitted_, static_cast<size_t>(c));
    }
    // Room for every gap, and a part each, at once: grown by doubling they
    // held up to twice their size through every replay (10M calls: 0.2 GB).
    size_t host_gap_edges = 0;
    for (size_t c = 0; c < g_.call_count(); ++c) {
      if (!tids.Contains(g_.CallTid(c))) continue;
      host_gap_edges += g_.EdgePresent(g_.HostGapEdge(c));
    }
    gap_parts_.reserve(host_gap_edges);
    gap_calls_.assign((g_.call_count() + 63) / 64, 0);
    part_name_.reserve(host_gap_edges);
    part_ns_.reserve(host_gap_edges);
    std::vector<std::pair<StringId, int64_t>> parts;  // this gap's, one per name
    for (size_t c = 0; c < g_.call_count(); ++c) {
      if (!tids.Contains(g_.CallTid(c))) continue;
      int32_t v = g_.CallStart(c);
      const uint32_t handoff = HandoffOf(c);
      const uint32_t i = g_.HostGapEdge(c);  // at most one host_gap edge: its implicit index
      if (!g_.EdgePresent(i)) continue;
      int64_t a = std::max(SourceTime(handoff != kNoEdge ? handoff : i), g_.window().start_ns), b = g_.Recorded(v);
      if (b <= a) continue;
      const auto parts_begin = static_cast<uint32_t>(part_name_.size());
      int64_t cursor = a;
      parts.clear();
      auto add = [&](StringId name, int64_t ns) {
        if (ns <= 0) return;
        for (auto& [n, sum] : parts) {
          if (n == name) {
            sum += ns;
            return;
          }
        }
        parts.push_back({name, ns});
      };
      auto it = spans.find(g_.CallTid(c));
      if (it != spans.end()) {
        const std::vector<RangeSpan>& s = it->second;
        auto first = std::upper_bound(s.begin(), s.end(), a, [](int64_t t, const RangeSpan& r) { return t < r.end; });
        for (auto r = first; r != s.end() && r->start < b; ++r) {
          int64_t rs = std::max(r->start, cursor), re = std::min(r->end, b);
          add(kNoString, rs - cursor);
          add(r->name, re - rs);
          cursor = std::max(cursor, re);
        }
      }
      add(kNoString, b - cursor);
      for (const auto& [name, ns] : parts) {
        if (ns >= kWidePart) wide_parts_.push_back({static_cast<uint32_t>(part_name_.size()), ns});
        part_name_.push_back(name);
        part_ns_.push_back(static_cast<uint32_t>(std::min<int64_t>(ns, kWidePart)));
      }
      gap_parts_.push_back(parts_begin);
      Mark(gap_calls_, c);
    }
    // Gaps of several ranges outgrew the room made: the slack goes.
    if (part_name_.capacity() > part_name_.size() + part_name_.size() / 8) {
      part_name_.shrink_to_fit();
      part_ns_.shrink_to_fit();
    }
  }

  void HostWork(const WhatIfCause& cause, ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    // Counted first: a range around most calls edits millions of lags, which
    // grown by doubling held up to twice their size through the replay.
    size_t changed = 0;
    ForEachGap([&](size_t g, size_t c) {
      for (uint32_t k = gap_parts_[g]; k < PartsEnd(g); ++k) {
        if (part_name_[k] == cause.name) changed += HandoffOf(c) != kNoEdge ? 2 : 1;
      }
    });
    edits.lag_edge.reserve(changed);
    edits.lag.reserve(changed);
    std::vector<uint64_t> calls((g_.call_count() + 63) / 64, 0);
    ForEachGap([&](size_t g, size_t c) {
      for (uint32_t k = gap_parts_[g]; k < PartsEnd(g); ++k) {
        const StringId name = part_name_[k];
        if (name != cause.name) continue;
        const int64_t ns = PartNs(k);
        // One part per name in a gap: each gap's edge changes once.
        const uint32_t edge = g_.HostGapEdge(c);
        SetLag(edits, edge, std::max<int64_t>(0, g_.EdgeLag(edge) - ns));
        if (const uint32_t handoff = HandoffOf(c); handoff != kNoEdge) {
          SetLag(edits, handoff, std::max<int64_t>(0, g_.EdgeLag(handoff) - ns));
        }
        est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, ns);
        ev.calls.push_back(g_.ModelCall(c));
        Mark(calls, c);
      }
    });
    OpsOfCalls(calls, ev);
  }

  void Sync(const WhatIfCause& cause, ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const DepEdges edges = g_.edges();
    for (size_t c = 0; c < g_.call_count(); ++c) {
      if (g_.CallBlocking(c) != cause.blocking || m_.api.name[g_.ModelCall(c)] != cause.name) continue;
      if (cause.stream >= 0 && g_.CallSyncStream(c) != cause.stream) continue;
      int32_t v = g_.CallEnd(c);
      int64_t waited_end = kMinTime;
      for (uint32_t i : g_.InEdges(v)) {
        if (edges[i].kind != DepEdgeKind::kSyncWait) continue;
        TouchRemoved(edits);
        edits.Remove(i);
        waited_end = std::max(waited_end, SourceTime(i));
        if (edges[i].from != DepEdge::kOutside && g_.IsOpEvent(edges[i].from)) {
          ev.ops.push_back(g_.ModelOp(g_.ItemOf(edges[i].from)));
        }
      }
      int64_t start = g_.Recorded(g_.CallStart(c));
      if (waited_end > start) {  // blocked from its start until what it waited for ended
        est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, std::min(waited_end, g_.Recorded(v)) - start);
      }
      ev.calls.push_back(g_.ModelCall(c));
    }
  }

  void Pageable(const WhatIfCause& cause, ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const PinnedCopyRates& rates = m_.Derived<PinnedCopyRates>();
    const DepEdges edges = g_.edges();
    bool from_trace = false, from_link = false;
    for (size_t k = 0; k < g_.op_count(); ++k) {
      size_t i = static_cast<size_t>(g_.ModelOp(k));
      if (!IsCopy(m_.ops.category[i]) || !IsPageable(m_, i)) continue;
      if (cause.device_id >= 0 && m_.ops.device_id[i] != cause.device_id) continue;
      ev.ops.push_back(static_cast<int32_t>(i));
      int32_t c = g_.OpSubmitter(k);
      if (c >= 0) ev.calls.push_back(g_.ModelCall(c));
      double rate = rates.Rate(m_.ops.device_id[i], m_.ops.category[i], m_.ops.bytes[i], o_.similar_size_factor);
      if (rate > 0) {
        from_trace = true;
      } else if (auto it = o_.link_bytes_per_ns.find(m_.ops.device_id[i]);
                 it != o_.link_bytes_per_ns.end() && it->second > 0 && m_.ops.bytes[i] >= o_.link_rate_min_bytes) {
        rate = it->second;
        from_link = true;
      }
      int64_t duration = OpDuration(m_, i);
      est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, duration);
      if (rate <= 0 || m_.ops.bytes[i] <= 0) {
        ++est.unestimated_ops;
        continue;
      }
      double at_rate = static_cast<double>(m_.ops.bytes[i]) / rate;
      int64_t pinned = at_rate >= static_cast<double>(duration) ? duration : std::llround(at_rate);
      TouchRemoved(edits);
      SetLag(edits, g_.OpDurationEdge(k), pinned);
      // An *Async call that the pageable copy held returns without waiting.
      if (c >= 0 && g_.CallBlocking(c) == BlockingKind::kPageableCopy) {
        for (uint32_t e : g_.InEdges(g_.CallEnd(c))) {
          if (edges[e].kind == DepEdgeKind::kSyncWait) edits.Remove(e);
        }
      }
    }
    est.estimable = from_trace || from_link;
    est.rate_source = from_trace && from_link ? WhatIfRateSource::kThisTraceAndDeviceLink
                      : from_trace            ? WhatIfRateSource::kThisTrace
                      : from_link             ? WhatIfRateSource::kDeviceLink
                                              : WhatIfRateSource::kNone;
  }

  void SameStream(const WhatIfCause& cause, ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const StreamPredecessors& preds = m_.Derived<StreamPredecessors>();
    int64_t copy_ns = 0, compute_ns = 0;
    constexpr int kMaxWalk = 4096;  // ops walked back to find the previous op of a class
    for (size_t k = 0; k < g_.op_count(); ++k) {
      size_t i = static_cast<size_t>(g_.ModelOp(k));
      if (m_.ops.stream[i] != cause.stream) continue;
      ev.ops.push_back(static_cast<int32_t>(i));
      (EngineClass(m_, i) == 0 ? compute_ns : copy_ns) += OpDuration(m_, i);
      int32_t prev = preds.prev[i];
      if (prev < 0 || EngineClass(m_, prev) == EngineClass(m_, i)) continue;
      TouchRemoved(edits);
      int32_t v = DependencyGraph::OpStart(k);
      if (g_.EdgePresent(g_.StreamOrderEdge(k))) edits.Remove(g_.StreamOrderEdge(k));
      int32_t same = preds.prev[prev];
      for (int walk = 0; same >= 0 && walk < kMaxWalk && EngineClass(m_, same) != EngineClass(m_, i); ++walk) {
        same = preds.prev[same];
      }
      if (same < 0 || EngineClass(m_, same) != EngineClass(m_, i)) continue;
      int64_t same_end = std::max(m_.ops.start_ns[same], m_.ops.end_ns[same]);
      int32_t gk = g_.GraphOp(same);
      int32_t from = gk >= 0 ? DependencyGraph::OpEnd(gk) : DepEdge::kOutside;
      if (from != DepEdge::kOutside && !Before(from, v)) continue;
      edits.added.push_back({v, from, same_end, std::min<int64_t>(0, g_.Recorded(v) - same_end)});
    }
    est.measured_cost_ns = std::min(copy_ns, compute_ns);
  }

  void FirstLaunch(ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const OuterCalls& outer = m_.Derived<OuterCalls>();
    // Two outliers of one outer call (a runtime call and the driver call in
    // it) both shorten its edges: each change starts from the last.
    absl::flat_hash_map<uint32_t, int64_t> changed;
    auto lag = [&](uint32_t e) {
      auto it = changed.find(e);
      return it == changed.end() ? g_.EdgeLag(e) : it->second;
    };
    auto set = [&](uint32_t e, int64_t value) {
      changed[e] = value;
      SetLag(edits, e, value);
    };
    // The ops of the outliers' calls, in graph op order (few calls).
    absl::flat_hash_map<int32_t, std::vector<int32_t>> ops_of_call;
    for (const FirstLaunchOutlier& f : first_launches_) {
      const int32_t o = outer.outer[f.api];
      if (const int32_t c = o >= 0 ? g_.GraphCall(o) : -1; c >= 0) ops_of_call[c];
    }
    if (!ops_of_call.empty()) {
      for (size_t k = 0; k < g_.op_count(); ++k) {
        const int32_t c = g_.OpSubmitter(k);
        if (c < 0) continue;
        if (auto it = ops_of_call.find(c); it != ops_of_call.end()) it->second.push_back(g_.ModelOp(k));
      }
    }
    for (const FirstLaunchOutlier& f : first_launches_) {
      int32_t o = outer.outer[f.api];
      int32_t c = o >= 0 ? g_.GraphCall(o) : -1;
      if (c < 0) continue;
      const int64_t excess = f.excess_ns();
      const uint32_t duration = g_.CallDurationEdge(c);
      set(duration, std::max<int64_t>(0, lag(duration) - excess));
      // Its ops were submitted after the module loaded: that much earlier.
      for (const int32_t op : ops_of_call[c]) {
        if (const uint32_t e = g_.SubmitEdge(static_cast<size_t>(g_.GraphOp(op))); g_.EdgePresent(e)) {
          int64_t floor = std::min(lag(e), g_.launch_latency_ns());
          set(e, std::max(floor, lag(e) - excess));
        }
        ev.ops.push_back(op);
      }
      est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, excess);
      ev.calls.push_back(f.api);
    }
  }

  void LaunchBlocking(ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    for (size_t c = 0; c < g_.call_count(); ++c) {
      if (g_.CallBlocking(c) != BlockingKind::kNone || !Marked(submitted_, c)) continue;
      const uint32_t e = g_.CallDurationEdge(c);
      est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, g_.EdgeLag(e));
      SetLag(edits, e, 0);
      ev.calls.push_back(g_.ModelCall(c));
    }
  }

  // A small device-to-host copy: a result the host reads back to test.
  bool IsReadback(int32_t event) const {
    if (event == DepEdge::kOutside || !g_.IsOpEvent(event)) return false;
    const size_t i = static_cast<size_t>(g_.ModelOp(g_.ItemOf(event)));
    return m_.ops.category[i] == OpCategory::kDtoH && m_.ops.bytes[i] <= kResultReadBackMaxBytes;
  }
  void ZeroCallDuration(size_t c, ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const int32_t v = g_.CallEnd(c);
    SetLag(edits, g_.CallDurationEdge(c), 0);
    est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, g_.Recorded(v) - g_.Recorded(g_.CallStart(c)));
    ev.calls.push_back(g_.ModelCall(c));
  }

  void Readback(ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const DepEdges edges = g_.edges();
    absl::flat_hash_set<size_t> done, copies;  // done: the calls made to take no time
    for (size_t c = 0; c < g_.call_count(); ++c) {
      const BlockingKind b = g_.CallBlocking(c);
      if (!IsExplicitSync(b) && b != BlockingKind::kPageableCopy && b != BlockingKind::kSyncCopy) continue;
      const int32_t v = g_.CallEnd(c);
      bool readback = false;
      for (uint32_t e : g_.InEdges(v)) {
        readback |= edges[e].kind == DepEdgeKind::kSyncWait && IsReadback(edges[e].from);
      }
      if (!readback) continue;
      TouchRemoved(edits);
      for (uint32_t e : g_.InEdges(v)) {
        if (edges[e].kind != DepEdgeKind::kSyncWait) continue;
        edits.Remove(e);
        if (!IsReadback(edges[e].from)) continue;
        // The copy's own call (an *Async copy to pinned memory) goes too.
        const size_t k = g_.ItemOf(edges[e].from);
        if (copies.insert(k).second) ev.ops.push_back(g_.ModelOp(k));
        const int32_t submitter = g_.OpSubmitter(k);
        if (submitter >= 0 && static_cast<size_t>(submitter) != c && done.insert(submitter).second) {
          ZeroCallDuration(static_cast<size_t>(submitter), edits, est, ev);
        }
      }
      if (done.insert(c).second) ZeroCallDuration(c, edits, est, ev);
    }
    // The host's way to a read-back goes with it: the call that submitted
    // the copy (or waited for it) follows the thread's previous call after
    // the thread's ordinary host gap (its median), not after the time spent
    // getting to the copy (PyTorch's .item(): about 40 us of dispatch before
    // its cudaMemcpyAsync, on an H100). The host work after the wait stays:
    // it is the next iteration's (a loop's batch preparation), which the
    // remedy overlaps with the GPU rather than removes.
    absl::flat_hash_map<int64_t, int64_t> median_gap;  // thread -> median host gap
    for (const size_t c : done) {
      if (HandoffOf(c) != kNoEdge) continue;
      const uint32_t gap = g_.HostGapEdge(c);
      if (!g_.EdgePresent(gap)) continue;
      auto [it, fresh] = median_gap.try_emplace(g_.CallTid(c), 0);
      if (fresh) it->second = MedianHostGap(g_.CallTid(c));
      if (g_.EdgeLag(gap) > it->second) SetLag(edits, gap, it->second);
    }
  }

  // The median host gap between consecutive calls of a thread in the window.
  int64_t MedianHostGap(int64_t tid) const {
    std::vector<int64_t> gaps;
    for (size_t c = 0; c < g_.call_count(); ++c) {
      if (g_.CallTid(c) != tid) continue;
      if (const uint32_t gap = g_.HostGapEdge(c); g_.EdgePresent(gap)) gaps.push_back(g_.EdgeLag(gap));
    }
    return gaps.empty() ? 0 : LowerMedian(std::move(gaps));
  }

  // Each of `kernels` starts its delay_ns earlier: the in-edge that set its
  // start (stream order or submission, whose recorded lag holds the wait)
  // is that much shorter (hardware_queue: it starts when it was ready).
  void StartEarlier(const std::vector<QueueHeldKernel>& kernels, ReplayEdits& edits, WhatIfEstimate& est,
                    Evidence& ev) const {
    IntervalList delays;
    absl::flat_hash_set<int32_t> held, streams;  // model ops, stream indices
    for (const QueueHeldKernel& h : kernels) {
      held.insert(h.op);
      streams.insert(m_.ops.stream[h.op]);
    }
    // The other ops of those streams that started when they were ready:
    // their submit edges' lags come from the window's median launch
    // latency, which the held launches inflate (simpleHyperQ: 20 ms), so
    // that their launches, not their streams' order, would hold them in
    // the replay. Their submission lets them start when their calls
    // returned (the earliest a launch runs), as the held ones.
    const HardwareQueueOptions queue_options;
    for (size_t k = 0; k < g_.op_count(); ++k) {
      const int32_t i = g_.ModelOp(k);
      if (!streams.contains(m_.ops.stream[i]) || held.contains(i)) continue;
      const uint32_t submit = g_.SubmitEdge(k);
      if (!g_.EdgePresent(submit)) continue;
      const int32_t a = m_.ApiForOp(static_cast<size_t>(i));
      if (a < 0) continue;
      int64_t ready = m_.api.end_ns[a];
      if (const uint32_t order = g_.StreamOrderEdge(k); g_.EdgePresent(order)) {
        ready = std::max(ready, g_.EdgeSourceNs(order));
      }
      if (m_.ops.start_ns[i] - ready >= queue_options.min_delay_ns) continue;  // held by something else
      SetLag(edits, submit, std::clamp<int64_t>(m_.api.end_ns[a] - g_.EdgeSourceNs(submit), 0, g_.EdgeLag(submit)));
    }
    for (const QueueHeldKernel& h : kernels) {
      const int32_t k = g_.GraphOp(h.op);
      if (k < 0) continue;
      const int32_t b = g_.Binding(DependencyGraph::OpStart(static_cast<size_t>(k)));
      if (b < 0) continue;
      const auto e = static_cast<uint32_t>(b);
      if (e != g_.StreamOrderEdge(static_cast<size_t>(k)) && e != g_.SubmitEdge(static_cast<size_t>(k))) continue;
      // The window's median launch latency is no floor here, as most of the
      // window's launches may have been held.
      SetLag(edits, e, std::clamp<int64_t>(g_.EdgeLag(e) - h.delay_ns, 0, g_.EdgeLag(e)));
      const int64_t start = g_.Recorded(DependencyGraph::OpStart(static_cast<size_t>(k)));
      delays.push_back({start - h.delay_ns, start});
      ev.ops.push_back(h.op);
    }
    est.measured_cost_ns = TotalLength(Normalize(std::move(delays)));
  }

  void Legacy(ReplayEdits& edits, WhatIfEstimate& est, Evidence& ev) const {
    const DepEdges edges = g_.edges();
    for (size_t k = 0; k < g_.op_count(); ++k) {
      int32_t v = DependencyGraph::OpStart(k);
      int64_t legacy_ready = kMinTime, other_ready = kMinTime;
      for (uint32_t e : g_.InEdges(v)) {
        int64_t ready = SaturatingAdd(SourceTime(e), edges[e].lag_ns);
        if (edges[e].kind != DepEdgeKind::kLegacyStream) {
          other_ready = std::max(other_ready, ready);
          continue;
        }
        TouchRemoved(edits);
        edits.Remove(e);
        legacy_ready = std::max(legacy_ready, ready);
        ev.ops.push_back(g_.ModelOp(k));
      }
      if (legacy_ready > other_ready && other_ready != kMinTime) {
        est.measured_cost_ns = SaturatingAdd(est.measured_cost_ns, legacy_ready - other_ready);
      }
    }
  }

  static const WindowDetections& Detections(const TraceModel& m, const DependencyGraph& g,
                                            const WindowDetections* given, std::optional<WindowDetections>& found) {
    if (given != nullptr && given->For(g.window())) return *given;
    return found.emplace(FindWindowDetections(m, g.window()));
  }

  const TraceModel& m_;
  const DependencyGraph& g_;
  const WhatIfOptions& o_;
  // The held kernels (hardware_queue) and those that waited in lazy-loading
  // stalls (lazy_loading): the caller's, or found_.
  std::optional<WindowDetections> found_;
  const WindowDetections& detections_;
  static constexpr uint32_t kNoEdge = std::numeric_limits<uint32_t>::max();
  // The host gaps (the host_gap edges of the window's submitting threads
  // with host time in the window): a bit per graph call that has one
  // (its edge is g_.HostGapEdge(call)) and, in call order, where each
  // gap's parts begin in part_name_ / part_ns_ (4 bytes a gap): a part per
  // innermost range (kNoString: none), up to the next gap's.
  std::vector<uint64_t> gap_calls_;
  std::vector<uint32_t> gap_parts_;
  // The parts of all gaps, each gap's a run, in two columns (8 bytes a
  // part): host time in 32 bits (4.29 s); a longer one is kWidePart here
  // and listed in wide_parts_ (part, ns), by part.
  static constexpr uint32_t kWidePart = std::numeric_limits<uint32_t>::max();
  std::vector<StringId> part_name_;
  std::vector<uint32_t> part_ns_;
  std::vector<std::pair<uint32_t, int64_t>> wide_parts_;
  int64_t PartNs(uint32_t k) const {
    if (part_ns_[k] != kWidePart) return part_ns_[k];
    auto it = std::lower_bound(wide_parts_.begin(), wide_parts_.end(), std::make_pair(k, int64_t{0}));
    return it->second;
  }
  uint32_t PartsEnd(size_t g) const {
    return g + 1 < gap_parts_.size() ? gap_parts_[g + 1] : static_cast<uint32_t>(part_name_.size());
  }
  // A bit per graph call that submitted an op of the window.
  std::vector<uint64_t> submitted_;
  std::vector<FirstLaunchOutlier> first_launches_;
};

// Replays once per cause; with `min_cost`, causes whose measured cost is
// below it are left out (their edits are made once, for both).
WhatIfResult Estimate(const DependencyGraph& graph, const WhatIfContext& context,
                      const std::vector<WhatIfCause>& causes, std::optional<int64_t> min_cost) {
  WhatIfResult result;
  result.window = graph.window();
  result.recorded_end_ns = graph.recorded_end_ns();
  result.launch_latency_ns = graph.launch_latency_ns();
  result.graph_stats = graph.stats();
  RingTimes times(graph);
  if (context.options().replay_unchanged) {
    result.replayed_end_ns = ReplaySpanIn(graph, {}, times).end_ns;
    int64_t span = SaturatingSub(result.recorded_end_ns, result.window.start_ns);
    if (span > 0) {
      result.replay_error =
          std::abs(static_cast<double>(result.replayed_end_ns - result.recorded_end_ns)) / static_cast<double>(span);
    }
  }
  // The causes' replays, two at once on a large window: each worker keeps
  // its own times and edits (at 10M ops about 10 MB and up to 100 MB: two,
  // not one per core, for the memory).
  struct Worker {
    ReplayEdits edits;
    std::optional<RingTimes> times;
  };
  const bool two = causes.size() > 1 && graph.op_count() >= kOpsWorthAThread;
  std::vector<Worker> workers(two ? 2 : 1);
  workers[0].times.emplace(std::move(times));
  std::vector<std::optional<WhatIfEstimate>> estimates(causes.size());
  ForEachTask(causes.size(), workers.size(), [&](size_t w, size_t k) {
    Worker& worker = workers[w];
    WhatIfEstimate est;
    context.Make(causes[k], worker.edits, est);
    if (min_cost && est.measured_cost_ns < *min_cost) return;
    if (est.estimable) {
      if (!worker.times) worker.times.emplace(graph);
      ReplayResult r = ReplaySpanIn(graph, worker.edits, *worker.times);
      est.estimated_saving_ns = SpanSaving(graph, r);
    }
    estimates[k] = std::move(est);
  });
  workers.clear();
  for (std::optional<WhatIfEstimate>& est : estimates) {
    if (est) result.estimates.push_back(*std::move(est));
  }
  std::stable_sort(result.estimates.begin(), result.estimates.end(),
                   [](const WhatIfEstimate& a, const WhatIfEstimate& b) {
                     return std::make_tuple(!a.estimable, -a.estimated_saving_ns, -a.measured_cost_ns, a.cause.kind) <
                            std::make_tuple(!b.estimable, -b.estimated_saving_ns, -b.measured_cost_ns, b.cause.kind);
                   });
  return result;
}

// Every cause of `causes` (not empty) removed in one replay.
WhatIfEstimate Together(const DependencyGraph& graph, const WhatIfContext& context,
                        const std::vector<WhatIfCause>& causes);

}  // namespace

struct WhatIfSession::Impl {
  Impl(const TraceModel& model, const DependencyGraph& graph, WhatIfOptions o, const WindowDetections* detections)
      : options(std::move(o)), graph(graph), context(model, graph, options, detections) {}
  WhatIfOptions options;  // before context, which keeps a reference to it
  const DependencyGraph& graph;
  WhatIfContext context;
};

std::vector<WhatIfCause> FindWhatIfCauses(const TraceModel& model, const DependencyGraph& graph,
                                          const WhatIfOptions& options) {
  WhatIfContext context(model, graph, options);
  std::vector<WhatIfCause> out;
  ReplayEdits edits;
  for (const WhatIfCause& cause : context.Candidates()) {
    WhatIfEstimate est;
    context.Make(cause, edits, est);
    if (est.measured_cost_ns >= options.min_cost_ns) out.push_back(cause);
  }
  return out;
}

WhatIfResult EstimateSavings(const TraceModel& model, const DependencyGraph& graph,
                             const std::vector<WhatIfCause>& causes, const WhatIfOptions& options) {
  WhatIfContext context(model, graph, options);
  return Estimate(graph, context, causes, std::nullopt);
}

WhatIfResult EstimateSavings(const TraceModel& model, const DependencyGraph& graph, const WhatIfOptions& options) {
  WhatIfContext context(model, graph, options);
  return Estimate(graph, context, context.Candidates(), options.min_cost_ns);
}

WhatIfEstimate EstimateTogether(const TraceModel& model, const DependencyGraph& graph,
                                const std::vector<WhatIfCause>& causes, const WhatIfOptions& options) {
  if (causes.empty()) return {};
  WhatIfContext context(model, graph, options);
  return Together(graph, context, causes);
}

WhatIfSession::WhatIfSession(const TraceModel& model, const DependencyGraph& graph, WhatIfOptions options,
                             const WindowDetections* detections)
    : impl_(std::make_unique<Impl>(model, graph, std::move(options), detections)) {}
WhatIfSession::~WhatIfSession() = default;

WhatIfResult WhatIfSession::EstimateSavings() const {
  return Estimate(impl_->graph, impl_->context, impl_->context.Candidates(), impl_->options.min_cost_ns);
}

std::vector<WhatIfCause> WhatIfSession::Candidates() const { return impl_->context.Candidates(); }

WhatIfResult WhatIfSession::EstimateSavings(const std::vector<WhatIfCause>& causes) const {
  return Estimate(impl_->graph, impl_->context, causes, impl_->options.min_cost_ns);
}

WhatIfEstimate WhatIfSession::EstimateTogether(const std::vector<WhatIfCause>& causes) const {
  if (causes.empty()) return {};
  return Together(impl_->graph, impl_->context, causes);
}

namespace {

// Puts `edits`' changed lags in edge order, one per edge (of an edge
// listed twice, the later lag holds). Usually in order already.
void ByEdge(ReplayEdits& edits) {
  const std::vector<uint32_t>& e = edits.lag_edge;
  if (std::adjacent_find(e.begin(), e.end(), std::greater_equal<uint32_t>()) == e.end()) return;
  std::vector<std::pair<uint32_t, uint32_t>> by_edge;  // (edge, place)
  by_edge.reserve(e.size());
  for (size_t k = 0; k < e.size(); ++k) by_edge.push_back({e[k], static_cast<uint32_t>(k)});
  std::sort(by_edge.begin(), by_edge.end());
  std::vector<uint32_t> edge;
  NarrowInt64Column lag;
  for (size_t k = 0; k < by_edge.size(); ++k) {
    if (k + 1 < by_edge.size() && by_edge[k + 1].first == by_edge[k].first) continue;
    edge.push_back(by_edge[k].first);
    lag.push_back(edits.lag[by_edge[k].second]);
  }
  edits.lag_edge.swap(edge);
  edits.lag.swap(lag);
}

WhatIfEstimate Together(const DependencyGraph& graph, const WhatIfContext& context,
                        const std::vector<WhatIfCause>& causes) {
  WhatIfEstimate together;
  together.cause = causes.front();
  ReplayEdits all, one;
  // `all`'s changed lags are kept by edge (ascending, one each) and merged
  // with each cause's.
  ReplayEdits merged;
  for (const WhatIfCause& cause : causes) {
    WhatIfEstimate est;
    context.Make(cause, one, est);
    together.measured_cost_ns = SaturatingAdd(together.measured_cost_ns, est.measured_cost_ns);
    together.estimable = together.estimable && est.estimable;
    together.op_count += est.op_count;
    together.call_count += est.call_count;
    together.unestimated_ops += est.unestimated_ops;
    if (!one.lag_edge.empty()) {
      // Each cause's edits start from the recorded lags; causes that shorten
      // the same edge (host work of two NVTX names in one gap) add up.
      ByEdge(one);
      merged.lag_edge.clear();
      merged.lag.clear();
      size_t a = 0;
      auto keep = [&](uint32_t edge, int64_t lag) {
        merged.lag_edge.push_back(edge);
        merged.lag.push_back(lag);
      };
      for (size_t k = 0; k < one.lag_edge.size(); ++k) {
        const uint32_t i = one.lag_edge[k];
        const int64_t lag = one.lag[k];
        for (; a < all.lag_edge.size() && all.lag_edge[a] < i; ++a) keep(all.lag_edge[a], all.lag[a]);
        const bool listed = a < all.lag_edge.size() && all.lag_edge[a] == i;
        const int64_t recorded = graph.EdgeLag(i), current = listed ? all.lag[a++] : recorded;
        const int64_t cut = SaturatingSub(recorded, lag);
        if (cut > 0) {
          keep(i, std::max<int64_t>(SaturatingSub(current, cut), std::min<int64_t>(0, lag)));
        } else if (listed) {
          keep(i, current);
        }
      }
      for (; a < all.lag_edge.size(); ++a) keep(all.lag_edge[a], all.lag[a]);
      all.lag_edge.swap(merged.lag_edge);
      all.lag.swap(merged.lag);
    }
    if (!one.removed.empty()) {
      if (all.removed.empty()) all.removed.assign(one.removed.size(), 0);
      for (size_t i = 0; i < one.removed.size(); ++i) all.removed[i] |= one.removed[i];
    }
    all.added.insert(all.added.end(), one.added.begin(), one.added.end());
  }
  one = {};  // before the replay's own buffers
  merged = {};
  if (together.estimable) {
    ReplayResult r = ReplaySpan(graph, all);
    together.estimated_saving_ns = SpanSaving(graph, r);
  }
  return together;
}

}  // namespace

WhatIfResult EstimateSavings(const TraceModel& model, const Window& window, const std::vector<WhatIfCause>& causes,
                             const WhatIfOptions& options) {
  return EstimateSavings(model, BuildDependencyGraph(model, window, options.graph), causes, options);
}

WhatIfResult EstimateSavings(const TraceModel& model, const Window& window, const WhatIfOptions& options) {
  return EstimateSavings(model, BuildDependencyGraph(model, window, options.graph), options);
}

}  // namespace streamscope
