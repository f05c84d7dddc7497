#include "analyzer/render/critical_path_render.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
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
    KindTotal t{static_cast<PathSegmentKind>(k), p.kind_ns[k], 0};
    for (const PathSegment& s : p.segments) t.segments += s.kind == t.kind ? 1 : 0;
    if (t.ns > 0) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const KindTotal& a, const KindTotal& b) { return a.ns > b.ns; });
  return out;
}

// Segment indices, longest first, the first `top`.
std::vector<size_t> Longest(const CriticalPath& p, int top) {
  std::vector<size_t> idx(p.segments.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  // The first `top` of the stable order: ties by index. A partial sort, not
  // a stable sort of every segment (millions at 1M ops; only `top` are shown).
  auto longer = [&](size_t a, size_t b) {
    const int64_t la = p.segments[a].length(), lb = p.segments[b].length();
    return la != lb ? la > lb : a < b;
  };
  const size_t keep = std::min(idx.size(), static_cast<size_t>(std::max(0, top)));
  if (keep == idx.size()) {
    std::sort(idx.begin(), idx.end(), longer);
  } else {
    std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(keep), idx.end(), longer);
  }
  idx.resize(keep);
  return idx;
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
          {"longest", longest}};
}

void RenderCriticalPathText(const CriticalPath& p, const TraceModel& m, int top, std::ostream& out) {
  out << "Critical path — window '" << WindowLabel(p.window) << "'\n";
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
  return {std::move(t)};
}

}  // namespace streamscope
