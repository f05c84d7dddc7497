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
#include <vector>

#include "nlohmann/json.hpp"

namespace streamscope {

struct AnalysisSlice {
  int64_t start_ns = 0, end_ns = 0;
  std::string name;  // shown on the slice ("compute|H2D", "gap: host_unannotated")
  // Stable class for colouring and tests: "overlap", "gap", "gap-part".
  std::string kind;
  std::string cause;  // gaps: the cause name ("host_blocked_in_call"); else empty
  int32_t depth = 0;  // 0 = top level; 1 = part of the enclosing depth-0 slice
  nlohmann::json args = nlohmann::json::object();
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

struct AnalysisTrack {
  int32_t device_id = -1;  // -1: a host-level track
  std::string name;        // "overlap compute|H2D", "idle gaps (by cause)"
  std::string group;       // "overlap", "gaps", "sync"
  // Disjoint at each depth; depth-1 slices lie inside one depth-0 slice.
  std::vector<AnalysisSlice> slices;  // sorted by (start, depth)
  // Or the same slices in the same order, made one at a time while a
  // writer draws them (a timeline export's tracks of millions of slices:
  // nothing is held per slice). Set only when it makes at least one.
  std::function<void(const SliceSink&)> produce;
  std::vector<AnalysisMarker> markers;

  bool HasSlices() const { return !slices.empty() || produce != nullptr; }
  // Calls `f` on every slice, held or produced, in order.
  void ForEachSlice(const SliceSink& f) const {
    if (produce) {
      produce(f);
      return;
    }
    for (const AnalysisSlice& s : slices) f(s);
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
  std::vector<std::string> notes;       // what could not be shown, limits applied
  std::vector<int64_t> gap_lengths_ns;  // device idle gaps, for a histogram
  std::vector<std::string> analyses;    // names of the analyses that contributed
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_TRACKS_H_
