// AddCriticalPathTrack (analysis_adapters.h).
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/slice_args.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

std::string SegmentName(const TraceModel& model, const PathSegment& s) {
  std::string name(PathSegmentKindName(s.kind));
  if (s.op >= 0 && !IsHostSegment(s.kind)) return absl::StrCat(name, ": ", OpLabel(model, s.op));
  if (s.api >= 0) {
    // Host work lies between two calls: name the call it led to.
    return absl::StrCat(name, s.kind == PathSegmentKind::kHostWork ? " before " : ": ",
                        std::string(model.strings.Get(model.api.name[s.api])));
  }
  if (s.tid >= 0) return absl::StrCat(name, " on thread ", s.tid);
  return name;
}

// A segment's slice; its args typed (WordTypedArgs words them for a held
// track).
AnalysisSlice SegmentSlice(const TraceModel& model, const PathSegment& s) {
  AnalysisSlice slice;
  slice.start_ns = s.start_ns;
  slice.end_ns = s.end_ns;
  slice.kind = "critical-path";
  slice.name = SegmentName(model, s);
  // In key order, as the JSON has them.
  slice.typed_args.reserve(4);
  if (s.api >= 0) slice.typed_args.push_back(SliceArg::Call("call", s.api));
  const std::optional<int64_t> stream = StreamSourceIdOrNull(model, s.stream);
  slice.typed_args.push_back(SliceArg::Text("on", IsHostSegment(s.kind) ? absl::StrCat("thread ", s.tid)
                                                  : stream              ? absl::StrCat("stream ", *stream)
                                                                        : std::string("no stream")));
  if (s.op >= 0) slice.typed_args.push_back(SliceArg::OpJson("op", s.op));
  slice.typed_args.push_back(SliceArg::Text("segment", std::string(PathSegmentKindName(s.kind))));
  return slice;
}

}  // namespace

void AddCriticalPathTrack(const TraceModel& model, const CriticalPath& path, AnalysisTracks* out,
                          std::shared_ptr<const void> keep) {
  out->analyses.push_back("critical_path");
  if (path.segments.empty()) return;
  AnalysisTrack t;
  t.device_id = -1;
  t.name = "critical path";
  t.group = "critical-path";
  int64_t drawn = 0;  // segments of positive length, a slice each
  for (const PathSegment& s : path.segments) {
    if (s.end_ns <= s.start_ns) continue;
    ++drawn;
    if (keep == nullptr) {
      t.slices.push_back(SegmentSlice(model, s));
      WordTypedArgs(model, &t.slices.back());
    }
  }
  if (keep != nullptr && drawn > 0) {
    t.produced = drawn;
    t.produce = [&model, &path, keep, drawn](int part, int parts, const SliceSink& emit) {
      // Every slice is a top-level one: runs cut anywhere.
      const auto [first, last] =
          AnalysisTrack::PartRange(static_cast<size_t>(drawn), part, parts, [](size_t) { return true; });
      size_t k = 0;  // drawn segments so far
      for (const PathSegment& s : path.segments) {
        if (s.end_ns <= s.start_ns) continue;
        if (k >= last) break;
        if (k++ >= first) emit(SegmentSlice(model, s));
      }
    };
  }
  const int64_t length = path.end_ns - path.start_ns;
  out->findings.push_back(
      {"info", absl::StrCat("Critical path: ", FormatDuration(length), " in ", drawn, " segments: GPU ",
                            FormatDuration(path.gpu_ns), " (", FormatShare(path.gpu_ns, length), "), host ",
                            FormatDuration(path.host_ns), " (", FormatShare(path.host_ns, length),
                            "); shortening anything off this path does not end the window sooner")});
  out->tracks.push_back(std::move(t));
}

}  // namespace streamscope
