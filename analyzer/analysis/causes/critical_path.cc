#include "analyzer/analysis/causes/critical_path.h"

#include <algorithm>
#include <limits>

namespace streamscope {

std::string_view PathSegmentKindName(PathSegmentKind k) {
  switch (k) {
    case PathSegmentKind::kKernel: return "kernel";
    case PathSegmentKind::kCopy: return "copy";
    case PathSegmentKind::kMemset: return "memset";
    case PathSegmentKind::kLaunch: return "launch";
    case PathSegmentKind::kGpuWait: return "gpu_wait";
    case PathSegmentKind::kApiCall: return "api_call";
    case PathSegmentKind::kSyncReturn: return "sync_return";
    case PathSegmentKind::kHostWork: return "host_work";
  }
  return "unknown";
}

bool IsHostSegment(PathSegmentKind k) {
  return k == PathSegmentKind::kApiCall || k == PathSegmentKind::kSyncReturn || k == PathSegmentKind::kHostWork;
}

PathSegments::PathSegments(std::initializer_list<PathSegment> segments) {
  Resize(segments.size());
  size_t k = 0;
  for (const PathSegment& s : segments) Set(k++, s);
}

PathSegment PathSegments::operator[](size_t k) const {
  const Packed& p = packed_[k];
  PathSegment s;
  s.start_ns = start_ns(k);
  s.end_ns = p.end_ns;
  s.op = p.op;
  s.api = p.api;
  s.kind = p.kind;
  s.edge = p.edge;
  if (IsHostSegment(p.kind)) {
    s.tid = p.place >= 0 ? threads_[static_cast<size_t>(p.place)] : -1;
  } else {
    s.stream = p.place;
  }
  return s;
}

void PathSegments::Set(size_t k, const PathSegment& s) {
  if (k == 0) first_start_ns_ = s.start_ns;
  Packed& p = packed_[k];
  p.end_ns = s.end_ns;
  p.op = s.op;
  p.api = s.api;
  p.kind = s.kind;
  p.edge = s.edge;
  p.place = IsHostSegment(s.kind) ? (s.tid >= 0 ? ThreadPlace(s.tid) : -1) : s.stream;
}

int32_t PathSegments::ThreadPlace(int64_t tid) {
  // A path crosses few threads, and mostly stays on one.
  for (size_t i = threads_.size(); i-- > 0;) {
    if (threads_[i] == tid) return static_cast<int32_t>(i);
  }
  threads_.push_back(tid);
  return static_cast<int32_t>(threads_.size() - 1);
}

namespace {

// The replay with nothing changed gives back every recorded time, and each
// event's time comes from the graph's binding edge (dependency_graph.h: the
// binding edge's lag is the recorded distance, every other edge's at most
// that): its end and ends-last op are the recorded ones. Read from the
// graph, not replayed (a replay with bindings took 12 bytes an event).
GraphEnd EndOf(const DependencyGraph& g) {
  return EndOfGraph(g, [&](int32_t event) { return g.Recorded(event); });
}

}  // namespace

CriticalPath FindCriticalPath(const TraceModel& model, const DependencyGraph& g) {
  CriticalPath path;
  path.window = g.window();
  const GraphEnd r = EndOf(g);
  path.end_ns = path.start_ns = r.end_ns;
  if (r.end_op < 0) return path;  // nothing in the window ends last
  const DepEdges edges = g.edges();
  const int64_t floor = g.window().start_ns;
  const int32_t last = DependencyGraph::OpEnd(static_cast<size_t>(r.end_op));
  // The walk goes back in time and keeps the events it passed, then the
  // segments are made from them forward in time: every array then is read
  // and written forward. (Counted, then made backward, the path of a 100M-op
  // trace in 4 GiB, whose graph lives in spill files, took 33 s: a backward
  // read gets no read-ahead.)
  BlockedVector<int32_t> targets;  // of the segments with a length, latest first
  for (int32_t v = last;;) {
    const int32_t i = g.Binding(v);
    if (i < 0 || static_cast<size_t>(i) >= edges.size()) break;
    const DepEdge e = g.EdgeSource(static_cast<uint32_t>(i));
    const int64_t src = e.from_ns, end = g.Recorded(v);
    path.start_ns = std::max(std::min(src, end), floor);
    if (end - path.start_ns > 0) targets.push_back(v);
    if (e.from == DepEdge::kOutside || src <= floor) break;
    v = e.from;
  }
  path.segments.Resize(targets.size());
  for (size_t k = 0; k < targets.size(); ++k) {
    const int32_t v = targets[targets.size() - 1 - k];
    // The edge's parts, not edges[i]: its lag is not read (a graph whose
    // replay columns were dropped has none).
    const DepEdge e = g.EdgeSource(static_cast<uint32_t>(g.Binding(v)));
    PathSegment s;
    s.edge = e.kind;
    s.start_ns = std::max(std::min(e.from_ns, g.Recorded(v)), floor);
    s.end_ns = g.Recorded(v);
    const bool op_target = g.IsOpEvent(v);
    const size_t item = g.ItemOf(v);
    const int32_t op = op_target ? g.ModelOp(item) : -1;
    const int32_t api = op_target ? -1 : g.ModelCall(item);
    switch (e.kind) {
      case DepEdgeKind::kOpDuration: {
        OpCategory c = model.ops.category[op];
        s.kind = c == OpCategory::kKernel   ? PathSegmentKind::kKernel
                 : c == OpCategory::kMemset ? PathSegmentKind::kMemset
                                            : PathSegmentKind::kCopy;
        break;
      }
      case DepEdgeKind::kSubmit: s.kind = PathSegmentKind::kLaunch; break;
      case DepEdgeKind::kStreamOrder:
      case DepEdgeKind::kEventWait:
      case DepEdgeKind::kLegacyStream:
      case DepEdgeKind::kGraph: s.kind = PathSegmentKind::kGpuWait; break;
      case DepEdgeKind::kCallDuration: s.kind = PathSegmentKind::kApiCall; break;
      case DepEdgeKind::kSyncWait: s.kind = PathSegmentKind::kSyncReturn; break;
      case DepEdgeKind::kHostGap:
      case DepEdgeKind::kHandoff: s.kind = PathSegmentKind::kHostWork; break;
    }
    if (op_target) {
      s.op = op;
      s.stream = model.ops.stream[op];
      if (e.kind == DepEdgeKind::kSubmit) s.api = g.OpSubmitterApi(item);
    } else {
      s.api = api;
      s.tid = g.CallTid(item);
      if (e.kind == DepEdgeKind::kSyncWait && e.from != DepEdge::kOutside && g.IsOpEvent(e.from)) {
        s.op = g.ModelOp(g.ItemOf(e.from));
      }
    }
    path.segments.Set(k, s);
  }
  for (size_t k = 0; k < path.segments.size(); ++k) {
    const PathSegmentKind kind = path.segments.kind(k);
    const int64_t length = path.segments.length(k);
    path.kind_ns[static_cast<int>(kind)] += length;
    ++path.kind_segments[static_cast<int>(kind)];
    (IsHostSegment(kind) ? path.host_ns : path.gpu_ns) += length;
  }
  return path;
}

CriticalPath FindCriticalPath(const TraceModel& model, const Window& window, const DependencyGraphOptions& options) {
  return FindCriticalPath(model, BuildDependencyGraph(model, window, options));
}

void CiteIdleOnPath(const GapCausesResult& gaps, CriticalPath* path) {
  PathIdle& idle = path->idle;
  idle = PathIdle{};
  idle.cited = true;
  const PathSegments& segments = path->segments;
  for (const GapPart& part : gaps.parts) {
    const int64_t s = std::max(part.start_ns, path->start_ns), e = std::min(part.end_ns, path->end_ns);
    if (e <= s) continue;
    const int c = static_cast<int>(part.cause);
    idle.idle_ns += e - s;
    idle.cause_ns[c] += e - s;
    // Segments are in time order and tile the path: the first one ending
    // after s, then on while they start before e.
    size_t lo_k = 0, hi_k = segments.size();
    while (lo_k < hi_k) {
      const size_t mid = lo_k + (hi_k - lo_k) / 2;
      if (segments.end_ns(mid) <= s) {
        lo_k = mid + 1;
      } else {
        hi_k = mid;
      }
    }
    for (size_t k = lo_k; k < segments.size() && segments.start_ns(k) < e; ++k) {
      const int64_t lo = std::max(s, segments.start_ns(k)), hi = std::min(e, segments.end_ns(k));
      if (hi > lo) idle.by_segment[static_cast<int>(segments.kind(k))][c] += hi - lo;
    }
  }
}

}  // namespace streamscope
