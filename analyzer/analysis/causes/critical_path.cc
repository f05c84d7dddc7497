#include "analyzer/analysis/causes/critical_path.h"

#include <algorithm>

#include "analyzer/analysis/causes/what_if.h"

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

CriticalPath FindCriticalPath(const TraceModel& model, const DependencyGraph& g) {
  CriticalPath path;
  path.window = g.window();
  ReplayResult r = Replay(g, {}, /*keep_binding=*/true);
  path.end_ns = path.start_ns = r.end_ns;
  if (r.end_op < 0) return path;  // nothing in the window ends last
  const DepEdges edges = g.edges();
  const int64_t floor = g.window().start_ns;
  int32_t v = DependencyGraph::OpEnd(static_cast<size_t>(r.end_op));
  while (true) {
    int32_t i = r.binding[v];
    if (i < 0 || static_cast<size_t>(i) >= edges.size()) break;
    const DepEdge& e = edges[i];
    int64_t src = e.from == DepEdge::kOutside ? e.from_ns : r.t[e.from];
    PathSegment s;
    s.edge = e.kind;
    s.start_ns = std::max(std::min(src, r.t[v]), floor);
    s.end_ns = r.t[v];
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
      case DepEdgeKind::kHostGap: s.kind = PathSegmentKind::kHostWork; break;
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
    if (s.length() > 0) path.segments.push_back(s);
    path.start_ns = s.start_ns;
    if (e.from == DepEdge::kOutside || src <= floor) break;
    v = e.from;
  }
  std::reverse(path.segments.begin(), path.segments.end());
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
