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
  // The walk goes back in time: counted first, then written from the back,
  // so that the segments (millions at 10M ops) are allocated once, in order.
  size_t count = 0;
  for (int32_t v = last;;) {
    const int32_t i = g.Binding(v);
    if (i < 0 || static_cast<size_t>(i) >= edges.size()) break;
    const DepEdge e = g.EdgeSource(static_cast<uint32_t>(i));
    const int32_t from = e.from;
    const int64_t src = e.from_ns, end = g.Recorded(v);
    if (end - std::max(std::min(src, end), floor) > 0) ++count;
    if (from == DepEdge::kOutside || src <= floor) break;
    v = from;
  }
  path.segments.resize(count);
  size_t place = count;
  int32_t v = last;
  while (true) {
    int32_t i = g.Binding(v);
    if (i < 0 || static_cast<size_t>(i) >= edges.size()) break;
    // The edge's parts, not edges[i]: its lag is not read (a graph whose
    // replay columns were dropped has none).
    const DepEdge e = g.EdgeSource(static_cast<uint32_t>(i));
    const int64_t src = e.from_ns;
    PathSegment s;
    s.edge = e.kind;
    s.start_ns = std::max(std::min(src, g.Recorded(v)), floor);
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
    if (s.length() > 0 && place > 0) path.segments[--place] = s;
    path.start_ns = s.start_ns;
    if (e.from == DepEdge::kOutside || src <= floor) break;
    v = e.from;
  }
  for (const PathSegment& s : path.segments) {
    path.kind_ns[static_cast<int>(s.kind)] += s.length();
    (IsHostSegment(s.kind) ? path.host_ns : path.gpu_ns) += s.length();
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
  const std::vector<PathSegment>& segments = path->segments;
  for (const GapPart& part : gaps.parts) {
    const int64_t s = std::max(part.start_ns, path->start_ns), e = std::min(part.end_ns, path->end_ns);
    if (e <= s) continue;
    const int c = static_cast<int>(part.cause);
    idle.idle_ns += e - s;
    idle.cause_ns[c] += e - s;
    // Segments are in time order and tile the path: the first one ending
    // after s, then on while they start before e.
    auto k =
        std::partition_point(segments.begin(), segments.end(), [&](const PathSegment& seg) { return seg.end_ns <= s; });
    for (; k != segments.end() && k->start_ns < e; ++k) {
      const int64_t lo = std::max(s, k->start_ns), hi = std::min(e, k->end_ns);
      if (hi > lo) idle.by_segment[static_cast<int>(k->kind)][c] += hi - lo;
    }
  }
}

}  // namespace streamscope
