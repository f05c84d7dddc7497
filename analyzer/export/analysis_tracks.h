// What the analyses contribute to a timeline, in one exporter-neutral form:
// tracks of slices (overlap intervals, idle gaps by cause), instant markers
// (hidden synchronizations), findings (plain sentences) and samples for
// plots. Adapters (overlap_tracks.h, gap_cause_tracks.h, ...) turn each
// analysis's result struct into these; the Perfetto writer and the HTML
// report draw them without knowing which analysis produced them, so a new
// analysis needs only a new adapter.
//
// Plain data; thread-compatible.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_TRACKS_H_
#define STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_TRACKS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/analysis/causes/step_breakdown.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// An arg of a produced slice (AnalysisTrack::produce), held typed: tracks
// of millions of slices make them without building JSON, and the protobuf
// writer writes them as they are. SliceArgsJson (slice_args.h) words them
// as the held slices' JSON args, which is what the JSON writer writes.
struct SliceArg {
  enum class Type : uint8_t {
    kInt,      // value
    kText,     // text
    kOpRef,    // value: an op index, worded as OpRef ("copy 7 (stream 13)")
    kOpJson,   // value: an op index, worded as OpRefJson ({"table": ...})
    kCallRef,  // value: an API call index, worded as CallRef ("call 6 cudaMemcpyAsync (thread 1)")
  };
  std::string_view key;  // a literal
  Type type = Type::kInt;
  int64_t value = 0;
  std::string text;

  static SliceArg Int(std::string_view key, int64_t v) { return {key, Type::kInt, v, {}}; }
  static SliceArg Text(std::string_view key, std::string v) { return {key, Type::kText, 0, std::move(v)}; }
  static SliceArg Op(std::string_view key, int32_t op) { return {key, Type::kOpRef, op, {}}; }
  static SliceArg OpJson(std::string_view key, int32_t op) { return {key, Type::kOpJson, op, {}}; }
  static SliceArg Call(std::string_view key, int32_t api) { return {key, Type::kCallRef, api, {}}; }
};

struct AnalysisSlice {
  int64_t start_ns = 0, end_ns = 0;
  std::string name;  // shown on the slice ("compute|H2D", "gap: host_unannotated")
  // Stable class for colouring and tests: "overlap", "gap", "gap-part".
  std::string_view kind;  // a literal
  std::string cause;      // gaps: the cause name ("host_blocked_in_call"); else empty
  int32_t depth = 0;      // 0 = top level; 1 = part of the enclosing depth-0 slice
  nlohmann::json args = nlohmann::json::object();
  // Produced slices only: more args, typed (their keys are not in `args`).
  // A vector, not inline storage: held slices (an HTML page holds a
  // million at 1M ops) have none and pay 24 bytes for it, not 230.
  std::vector<SliceArg> typed_args;
};

struct AnalysisMarker {
  int64_t ts_ns = 0;
  int64_t end_ns = 0;  // == ts_ns for a point; else the marked span (drawn as a span in HTML)
  std::string name;    // "hidden sync: legacy default stream"
  std::string kind;    // "hidden-sync"
  std::string explanation;
  int64_t host_tid = -1;  // host thread the marker belongs to, -1 = device-level
  nlohmann::json args = nlohmann::json::object();
};

using SliceSink = std::function<void(const AnalysisSlice&)>;
// Makes the `part`-th of `parts` runs of consecutive slices of a track (cut
// between depth-0 slices, so no slice of one run holds one of the next);
// the runs in order are the track's slices in order. 0 of 1: all of them.
// Runs may be made at once on several threads.
using SliceProducer = std::function<void(int part, int parts, const SliceSink&)>;

struct AnalysisTrack {
  int32_t device_id = -1;  // -1: a host-level track
  std::string name;        // "overlap compute|H2D", "idle gaps (by cause)"
  std::string group;       // "overlap", "gaps", "sync"
  // Disjoint at each depth; depth-1 slices lie inside one depth-0 slice.
  std::vector<AnalysisSlice> slices;  // sorted by (start, depth)
  // Or the same slices in the same order, made one at a time while a
  // writer draws them (a timeline export's tracks of millions of slices:
  // nothing is held per slice), `produced` of them. Set only when it makes
  // at least one.
  SliceProducer produce;
  int64_t produced = 0;
  std::vector<AnalysisMarker> markers;

  bool HasSlices() const { return !slices.empty() || produce != nullptr; }
  int64_t SliceCount() const { return produce ? produced : static_cast<int64_t>(slices.size()); }
  // Calls `f` on every slice of run `part` of `parts` (SliceProducer), held
  // or produced, in order.
  void ForEachSlice(const SliceSink& f, int part = 0, int parts = 1) const {
    if (produce) {
      produce(part, parts, f);
      return;
    }
    const auto [first, last] = PartRange(slices.size(), part, parts, [&](size_t i) { return slices[i].depth == 0; });
    for (size_t i = first; i < last; ++i) f(slices[i]);
  }

  // The `part`-th of `parts` runs of items 0..n-1, cut before an item where
  // `cut_before(i)` holds (the first such at or after an even share).
  template <typename CutBefore>
  static std::pair<size_t, size_t> PartRange(size_t n, int part, int parts, CutBefore cut_before) {
    auto boundary = [&](int k) {
      if (k <= 0) return size_t{0};
      if (k >= parts) return n;
      size_t i = n * static_cast<size_t>(k) / static_cast<size_t>(parts);
      while (i < n && !cut_before(i)) ++i;
      return i;
    };
    return {boundary(part), boundary(part + 1)};
  }
};

struct Finding {
  std::string severity;  // "info", "warning", "problem"
  std::string text;
};

// One finding of the diagnosis, ranked (largest estimated saving first).
struct DiagnosisItem {
  std::string cause;    // "pageable_copies"
  std::string saving;   // "saves about 4.30 ms (estimate); costs 4.30 ms measured"
  std::string summary;  // what was found, with figures
  std::string remedy;   // the change to make
};

struct AnalysisTracks {
  std::vector<AnalysisTrack> tracks;
  std::vector<Finding> findings;
  // The report's summary of the window (summary_render.h), as text lines,
  // and its diagnosis; empty unless asked for (AnalyzeForTimeline).
  std::vector<std::string> summary_lines;
  std::vector<DiagnosisItem> diagnosis;
  // The window's instances (step_breakdown.h), for the HTML page's
  // per-instance chart (html_instances.h); empty unless asked for.
  StepBreakdown instances;
  std::vector<std::string> notes;       // what could not be shown, limits applied
  std::vector<int64_t> gap_lengths_ns;  // device idle gaps, for a histogram
  std::vector<std::string> analyses;    // names of the analyses that contributed
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_TRACKS_H_
