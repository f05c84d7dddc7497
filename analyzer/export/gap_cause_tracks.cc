// AddGapCauseTracks and AddIdleGapTracks (analysis_adapters.h).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/slice_args.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

// A gap's slice, named after its primary cause; its args typed
// (WordTypedArgs words them for a held track).
AnalysisSlice GapSlice(const GapFinding& g) {
  AnalysisSlice s;
  s.start_ns = g.start_ns;
  s.end_ns = g.end_ns;
  s.cause = std::string(GapCauseName(g.primary));
  s.name = absl::StrCat("gap: ", s.cause);
  s.kind = "gap";
  // In key order, as the JSON has them. The submitting call is cited as the
  // critical-path track cites calls ("call 33 cudaLaunchKernel (thread 7)").
  s.typed_args.reserve(4);
  if (g.api >= 0) s.typed_args.push_back(SliceArg::Call("call", g.api));
  s.typed_args.push_back(SliceArg::Int("length_ns", g.length()));
  if (g.next_op >= 0) s.typed_args.push_back(SliceArg::Op("next_op", g.next_op));
  if (g.prev_op >= 0) s.typed_args.push_back(SliceArg::Op("prev_op", g.prev_op));
  return s;
}

// Parts are nested slices named "<cause>: <call or NVTX range>"; a gap of
// one part needs one only to name what the thread was doing. f(part index)
// for each part drawn (those of positive length).
template <typename F>
void ForEachDrawnPart(const GapFinding& g, F&& f) {
  const bool draws = g.parts.size() > 1 || (g.parts.size() == 1 && g.parts[0].detail != kNoString);
  if (!draws) return;
  for (size_t pi = 0; pi < g.parts.size(); ++pi) {
    if (g.parts[pi].length() > 0) f(pi);
  }
}

AnalysisSlice PartSlice(const TraceModel& model, const GapPart& p) {
  AnalysisSlice part;
  part.start_ns = p.start_ns;
  part.end_ns = p.end_ns;
  part.cause = std::string(GapCauseName(p.cause));
  part.name =
      p.detail != kNoString ? absl::StrCat(part.cause, ": ", std::string(model.strings.Get(p.detail))) : part.cause;
  part.kind = "gap-part";
  part.depth = 1;
  part.typed_args.push_back(SliceArg::Int("length_ns", p.length()));
  return part;
}

// Where each slice of a device's gap track comes from, in the order the
// held track has them (sorted by start, then depth, stably).
struct GapItem {
  int64_t start_ns;
  int32_t depth, gap, part;  // part -1: the gap itself
};

std::vector<GapItem> GapItems(const GapCausesResult& gaps, int32_t device) {
  std::vector<GapItem> items;
  for (size_t gi = 0; gi < gaps.worst_gaps.size(); ++gi) {
    const GapFinding& g = gaps.worst_gaps[gi];
    if (g.length() <= 0 || g.device_id != device) continue;
    items.push_back({g.start_ns, 0, static_cast<int32_t>(gi), -1});
    ForEachDrawnPart(g, [&](size_t pi) {
      items.push_back({g.parts[pi].start_ns, 1, static_cast<int32_t>(gi), static_cast<int32_t>(pi)});
    });
  }
  std::stable_sort(items.begin(), items.end(), [](const GapItem& a, const GapItem& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.depth < b.depth;
  });
  return items;
}

AnalysisSlice ItemSlice(const TraceModel& model, const GapCausesResult& gaps, const GapItem& it) {
  const GapFinding& g = gaps.worst_gaps[static_cast<size_t>(it.gap)];
  return it.part < 0 ? GapSlice(g) : PartSlice(model, g.parts[static_cast<size_t>(it.part)]);
}

}  // namespace

void AddGapCauseTracks(const TraceModel& model, const GapCausesResult& gaps, AnalysisTracks* out,
                       std::shared_ptr<const void> keep) {
  out->analyses.push_back("gap_causes");
  std::map<int32_t, AnalysisTrack> by_device;
  std::map<int32_t, int64_t> slices_by_device;
  for (const GapFinding& g : gaps.worst_gaps) {
    if (g.length() <= 0) continue;
    AnalysisTrack& t = by_device[g.device_id];
    if (t.name.empty()) {
      t.device_id = g.device_id;
      t.name = "idle gaps (by cause)";
      t.group = "gaps";
    }
    int64_t& slices = slices_by_device[g.device_id];
    ++slices;
    ForEachDrawnPart(g, [&](size_t) { ++slices; });
    out->gap_lengths_ns.push_back(g.length());
  }
  for (auto& [dev, t] : by_device) {
    if (keep == nullptr) {
      for (const GapItem& it : GapItems(gaps, dev)) {
        t.slices.push_back(ItemSlice(model, gaps, it));
        WordTypedArgs(model, &t.slices.back());
      }
    } else {
      // The slices' order, made (16 bytes a slice) by the first run that
      // needs it, on the writer's time, and shared by the runs.
      struct Order {
        std::once_flag once;
        std::vector<GapItem> items;
      };
      auto order = std::make_shared<Order>();
      t.produced = slices_by_device[dev];
      t.produce = [&model, &gaps, keep, order, device = dev](int part, int parts, const SliceSink& emit) {
        std::call_once(order->once, [&] { order->items = GapItems(gaps, device); });
        const std::vector<GapItem>& items = order->items;
        const auto [first, last] =
            AnalysisTrack::PartRange(items.size(), part, parts, [&](size_t i) { return items[i].depth == 0; });
        for (size_t i = first; i < last; ++i) emit(ItemSlice(model, gaps, items[i]));
      };
    }
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
