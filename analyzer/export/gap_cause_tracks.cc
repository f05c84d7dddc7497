// AddGapCauseTracks and AddIdleGapTracks (analysis_adapters.h).
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

bool ByStartThenDepth(const AnalysisSlice& a, const AnalysisSlice& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  return a.depth < b.depth;
}

}  // namespace

void AddGapCauseTracks(const TraceModel& model, const GapCausesResult& gaps, AnalysisTracks* out) {
  out->analyses.push_back("gap_causes");
  std::map<int32_t, AnalysisTrack> by_device;
  for (const GapFinding& g : gaps.worst_gaps) {
    if (g.length() <= 0) continue;
    AnalysisTrack& t = by_device[g.device_id];
    if (t.name.empty()) {
      t.device_id = g.device_id;
      t.name = "idle gaps (by cause)";
      t.group = "gaps";
    }
    AnalysisSlice s;
    s.start_ns = g.start_ns;
    s.end_ns = g.end_ns;
    s.cause = std::string(GapCauseName(g.primary));
    s.name = absl::StrCat("gap: ", s.cause);
    s.kind = "gap";
    s.args["length_ns"] = g.length();
    if (g.prev_op >= 0) s.args["prev_op"] = OpRef(model, g.prev_op);
    if (g.next_op >= 0) s.args["next_op"] = OpRef(model, g.next_op);
    // The submitting call, cited as the critical-path track cites calls
    // ("call 33 cudaLaunchKernel (thread 7)": id, name, thread).
    if (g.api >= 0) s.args["call"] = CallRef(model, g.api);
    t.slices.push_back(s);
    // Parts are nested slices named "<cause>: <call or NVTX range>"; a
    // gap of one part needs one only to name what the thread was doing.
    if (g.parts.size() > 1 || (g.parts.size() == 1 && g.parts[0].detail != kNoString)) {
      for (const GapPart& p : g.parts) {
        if (p.length() <= 0) continue;
        AnalysisSlice part;
        part.start_ns = p.start_ns;
        part.end_ns = p.end_ns;
        part.cause = std::string(GapCauseName(p.cause));
        part.name = p.detail != kNoString ? absl::StrCat(part.cause, ": ", std::string(model.strings.Get(p.detail)))
                                          : part.cause;
        part.kind = "gap-part";
        part.depth = 1;
        part.args["length_ns"] = p.length();
        t.slices.push_back(std::move(part));
      }
    }
    out->gap_lengths_ns.push_back(g.length());
  }
  for (auto& [dev, t] : by_device) {
    std::stable_sort(t.slices.begin(), t.slices.end(), ByStartThenDepth);
    out->tracks.push_back(std::move(t));
  }
  int64_t all_gaps = 0;
  for (const DeviceGapSummary& d : gaps.devices) all_gaps += d.gaps;
  if (static_cast<int64_t>(gaps.worst_gaps.size()) < all_gaps) {
    out->notes.push_back(
        absl::StrCat("idle gaps: only the ", gaps.worst_gaps.size(), " longest of ", all_gaps, " gaps are drawn"));
  }
  for (const DeviceGapSummary& d : gaps.devices) {
    if (d.idle_ns <= 0) continue;
    std::vector<int> order(kNumGapCauses);
    for (int c = 0; c < kNumGapCauses; ++c) order[c] = c;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return d.cause_ns[a] > d.cause_ns[b]; });
    std::string text = absl::StrCat(DeviceLabel(model, d.device_id), ": idle ", FormatDuration(d.idle_ns), " of ",
                                    FormatDuration(d.window_ns), " in ", d.gaps, " gaps; largest causes: ");
    int shown = 0;
    for (int c : order) {
      if (d.cause_ns[c] <= 0 || shown == 3) break;
      absl::StrAppend(&text, shown ? ", " : "", std::string(GapCauseName(static_cast<GapCause>(c))), " ",
                      FormatDuration(d.cause_ns[c]));
      ++shown;
    }
    int64_t starved = 0;
    for (int c = 0; c < kNumGapCauses; ++c) {
      if (IsCpuStarvation(static_cast<GapCause>(c))) starved += d.cause_ns[c];
    }
    out->findings.push_back({starved * 4 > d.idle_ns ? "problem" : "info", text});
  }
}

void AddIdleGapTracks(const TraceModel& model, const IdleGapsResult& gaps, AnalysisTracks* out) {
  out->analyses.push_back("idle_gaps");
  for (const DeviceGaps& d : gaps.devices) {
    AnalysisTrack t;
    t.device_id = d.device_id;
    t.name = "idle gaps";
    t.group = "gaps";
    for (const Gap& g : d.gaps) {
      if (g.length() <= 0) continue;
      AnalysisSlice s;
      s.start_ns = g.start_ns;
      s.end_ns = g.end_ns;
      s.name = "gap";
      s.kind = "gap";
      s.cause = "unclassified";
      s.args["length_ns"] = g.length();
      if (g.op_before >= 0) s.args["prev_op"] = OpRef(model, g.op_before);
      if (g.op_after >= 0) s.args["next_op"] = OpRef(model, g.op_after);
      t.slices.push_back(std::move(s));
      out->gap_lengths_ns.push_back(g.length());
    }
    if (d.listed_count < d.gap_count) {
      out->notes.push_back(absl::StrCat(DeviceLabel(model, d.device_id), ": ", d.listed_count, " of ", d.gap_count,
                                        " idle gaps drawn (those >= ", FormatDuration(gaps.threshold_ns), ")"));
    }
    out->findings.push_back({"info", absl::StrCat(DeviceLabel(model, d.device_id), ": busy ", FormatDuration(d.busy_ns),
                                                  ", idle ", FormatDuration(d.idle_ns), " in ", d.gap_count, " gaps")});
    if (!t.slices.empty()) out->tracks.push_back(std::move(t));
  }
}

}  // namespace streamscope
