#include "analyzer/render/critical_path_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "analyzer/base/first_indices.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/graph_memory_render.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

struct KindTotal {
  PathSegmentKind kind;
  int64_t ns = 0, segments = 0;
};

// Kinds with time on the path, largest first.
std::vector<KindTotal> ByKind(const CriticalPath& p) {
  std::vector<KindTotal> out;
  for (int k = 0; k < kNumPathSegmentKinds; ++k) {
    if (p.kind_ns[k] > 0) out.push_back({static_cast<PathSegmentKind>(k), p.kind_ns[k], p.kind_segments[k]});
  }
  std::stable_sort(out.begin(), out.end(), [](const KindTotal& a, const KindTotal& b) { return a.ns > b.ns; });
  return out;
}

// Segment indices, longest first (ties by index), the first `top`: a heap of
// `top`, not an index of every segment (13M at 10M ops).
std::vector<size_t> Longest(const CriticalPath& p, int top) {
  return FirstIndices(p.segments.size(), static_cast<size_t>(std::max(0, top)), [&](size_t a, size_t b) {
    const int64_t la = p.segments.length(a), lb = p.segments.length(b);
    return la != lb ? la > lb : a < b;
  });
}

// Causes of the idle time the path crosses, largest first.
std::vector<int> IdleCauses(const PathIdle& idle) {
  std::vector<int> out;
  for (int c = 0; c < kNumGapCauses; ++c) {
    if (idle.cause_ns[c] > 0) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return idle.cause_ns[a] > idle.cause_ns[b]; });
  return out;
}

// Segment kinds that crossed idle time of cause `c`, largest first.
std::vector<int> CrossingKinds(const PathIdle& idle, int c) {
  std::vector<int> out;
  for (int k = 0; k < kNumPathSegmentKinds; ++k) {
    if (idle.by_segment[k][c] > 0) out.push_back(k);
  }
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return idle.by_segment[a][c] > idle.by_segment[b][c]; });
  return out;
}

nlohmann::json PathIdleJson(const PathIdle& idle) {
  nlohmann::json causes = nlohmann::json::array();
  for (int c : IdleCauses(idle)) {
    nlohmann::json crossed = nlohmann::json::array();
    for (int k : CrossingKinds(idle, c)) {
      crossed.push_back(
          {{"kind", std::string(PathSegmentKindName(static_cast<PathSegmentKind>(k)))}, {"ns", idle.by_segment[k][c]}});
    }
    causes.push_back({{"cause", std::string(GapCauseName(static_cast<GapCause>(c)))},
                      {"ns", idle.cause_ns[c]},
                      {"crossed_by", std::move(crossed)}});
  }
  return {{"cited", idle.cited}, {"idle_ns", idle.idle_ns}, {"by_cause", std::move(causes)}};
}

void RenderPathIdleText(const PathIdle& idle, std::ostream& out) {
  if (!idle.cited) return;
  if (idle.idle_ns == 0) {
    out << "  The GPU never idled along the path.\n";
    return;
  }
  out << "  GPU idle along the path, by the one account of idle time: " << FormatDuration(idle.idle_ns) << ":";
  bool first = true;
  for (int c : IdleCauses(idle)) {
    out << (first ? " " : "; ") << GapCauseName(static_cast<GapCause>(c)) << " " << FormatDuration(idle.cause_ns[c])
        << " (" << FormatShare(idle.cause_ns[c], idle.idle_ns);
    std::vector<int> kinds = CrossingKinds(idle, c);
    if (kinds.size() > 2) kinds.resize(2);
    for (size_t i = 0; i < kinds.size(); ++i) {
      out << (i == 0 ? ", while the path ran " : " and ") << PathSegmentKindName(static_cast<PathSegmentKind>(kinds[i]))
          << " " << FormatDuration(idle.by_segment[kinds[i]][c]);
    }
    out << ")";
    first = false;
  }
  out << ".\n";
}

std::string Where(const PathSegment& s, const TraceModel& m) {
  if (IsHostSegment(s.kind)) {
    std::string call = s.api >= 0 ? absl::StrCat(", ", std::string(DisplayName(m.strings, m.api.name[s.api])), "#",
                                                 m.api.source_id[s.api])
                                  : "";
    return absl::StrCat("thread ", s.tid, call);
  }
  if (s.op >= 0) return OpLabel(m, s.op);
  std::optional<int64_t> stream = StreamSourceIdOrNull(m, s.stream);
  return stream ? absl::StrCat("stream ", *stream) : std::string("no stream");
}

}  // namespace

nlohmann::json CriticalPathToJson(const CriticalPath& p, const TraceModel& m, int top) {
  int64_t length = p.end_ns - p.start_ns;
  nlohmann::json kinds = nlohmann::json::array();
  for (const KindTotal& t : ByKind(p)) {
    kinds.push_back({{"kind", std::string(PathSegmentKindName(t.kind))},
                     {"side", IsHostSegment(t.kind) ? "host" : "gpu"},
                     {"ns", t.ns},
                     {"share", length > 0 ? static_cast<double>(t.ns) / static_cast<double>(length) : 0.0},
                     {"segments", t.segments}});
  }
  nlohmann::json longest = nlohmann::json::array();
  for (size_t i : Longest(p, top)) {
    const PathSegment& s = p.segments[i];
    longest.push_back(
        {{"kind", std::string(PathSegmentKindName(s.kind))},
         {"edge", std::string(DepEdgeKindName(s.edge))},
         {"start_ns", s.start_ns},
         {"end_ns", s.end_ns},
         {"length_ns", s.length()},
         {"tid", s.tid >= 0 ? nlohmann::json(s.tid) : nlohmann::json(nullptr)},
         {"stream_id", StreamIdJson(m, s.stream)},
         {"op", s.op >= 0 ? OpRefJson(m, s.op) : nlohmann::json(nullptr)},
         {"api", s.api >= 0 ? nlohmann::json{{"id", m.api.source_id[s.api]},
                                             {"name", std::string(DisplayName(m.strings, m.api.name[s.api]))}}
                            : nlohmann::json(nullptr)}});
  }
  return {{"analysis", "critical_path"},
          {"window",
           {{"label", WindowLabel(p.window)},
            {"start_ns", p.window.start_ns},
            {"end_ns", p.window.end_ns},
            {"length_ns", p.window.length()}}},
          {"start_ns", p.start_ns},
          {"end_ns", p.end_ns},
          {"length_ns", length},
          {"host_ns", p.host_ns},
          {"gpu_ns", p.gpu_ns},
          {"segment_count", p.segments.size()},
          {"by_kind", kinds},
          {"longest", longest},
          {"idle", PathIdleJson(p.idle)},
          {"over_memory", p.over_memory ? GraphOverMemoryJson(*p.over_memory) : nlohmann::json(nullptr)}};
}

void RenderCriticalPathText(const CriticalPath& p, const TraceModel& m, int top, std::ostream& out) {
  out << "Critical path — window '" << WindowLabel(p.window) << "'\n";
  if (p.over_memory) {
    out << "  Not looked for: " << GraphOverMemoryText(*p.over_memory) << ".\n";
    return;
  }
  if (p.segments.empty()) {
    out << "  No critical path: the window holds no GPU op that started in it.\n";
    return;
  }
  int64_t length = p.end_ns - p.start_ns;
  out << "  What decided when the window's last GPU op ended: " << FormatDuration(length) << " from +"
      << FormatDuration(p.start_ns - p.window.start_ns) << " to +" << FormatDuration(p.end_ns - p.window.start_ns)
      << " in " << p.segments.size() << " segments: host " << FormatDuration(p.host_ns) << " ("
      << FormatShare(p.host_ns, length) << "), GPU " << FormatDuration(p.gpu_ns) << " ("
      << FormatShare(p.gpu_ns, length) << ").\n";
  out << "  By kind:";
  bool first = true;
  for (const KindTotal& t : ByKind(p)) {
    out << (first ? " " : "; ") << PathSegmentKindName(t.kind) << " " << FormatDuration(t.ns) << " ("
        << FormatShare(t.ns, length) << ", " << t.segments << (t.segments == 1 ? " segment)" : " segments)");
    first = false;
  }
  out << ".\n";
  RenderPathIdleText(p.idle, out);
  std::vector<size_t> longest = Longest(p, top);
  if (longest.empty()) return;
  out << "  Longest segments:\n";
  for (size_t k = 0; k < longest.size(); ++k) {
    const PathSegment& s = p.segments[longest[k]];
    out << "    " << (k + 1) << ". " << PathSegmentKindName(s.kind) << " " << FormatDuration(s.length()) << " at +"
        << FormatDuration(s.start_ns - p.window.start_ns) << " (" << Where(s, m) << ")\n";
  }
}

std::vector<ResultTable> CriticalPathToTables(const CriticalPath& p, const TraceModel& m) {
  ResultTable t{"analysis_critical_path",
                {"segment_index", "kind", "edge", "side", "tid", "stream_id", "start_ns", "end_ns", "length_ns",
                 "op_table", "op_id", "api_id", "api_name"}};
  for (size_t i = 0; i < p.segments.size(); ++i) {
    const PathSegment& s = p.segments[i];
    bool host = IsHostSegment(s.kind);
    t.rows.push_back(
        {static_cast<int64_t>(i), std::string(PathSegmentKindName(s.kind)), std::string(DepEdgeKindName(s.edge)),
         std::string(host ? "host" : "gpu"), host ? ResultValue(s.tid) : ResultValue(),
         host ? ResultValue() : StreamIdCell(m, s.stream), s.start_ns, s.end_ns, s.length(),
         s.op >= 0 ? ResultValue(std::string(OpTable(m.ops.category[s.op]))) : ResultValue(),
         s.op >= 0 ? ResultValue(m.ops.source_id[s.op]) : ResultValue(),
         s.api >= 0 ? ResultValue(m.api.source_id[s.api]) : ResultValue(),
         s.api >= 0 ? ResultValue(std::string(DisplayName(m.strings, m.api.name[s.api]))) : ResultValue()});
  }
  ResultTable idle{"analysis_critical_path_idle", {"cause", "segment_kind", "ns"}};
  for (int c : IdleCauses(p.idle)) {
    for (int k : CrossingKinds(p.idle, c)) {
      idle.rows.push_back({std::string(GapCauseName(static_cast<GapCause>(c))),
                           std::string(PathSegmentKindName(static_cast<PathSegmentKind>(k))), p.idle.by_segment[k][c]});
    }
  }
  return {std::move(t), std::move(idle)};
}

}  // namespace streamscope
