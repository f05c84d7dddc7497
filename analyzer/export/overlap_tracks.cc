// AddOverlapTracks (analysis_adapters.h).
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {

namespace {

AnalysisSlice IntervalSlice(const TraceModel& model, const DeviceOverlap& dev, const OverlapInterval& iv) {
  AnalysisSlice s;
  s.start_ns = iv.start_ns;
  s.end_ns = iv.end_ns;
  s.name = OverlapPairName(iv.pair);
  s.kind = "overlap";
  s.args["pair"] = s.name;
  s.args["ops_total"] = iv.ops_total;
  nlohmann::json ops = nlohmann::json::array();
  for (uint32_t k = 0; k < iv.ops_kept && iv.ops_offset + k < dev.interval_ops.size(); ++k) {
    int32_t op = dev.interval_ops[iv.ops_offset + k];
    ops.push_back(OpRef(model, op));
  }
  s.args["ops"] = std::move(ops);
  return s;
}

}  // namespace

void AddOverlapTracks(const TraceModel& model, const OverlapResult& overlap, AnalysisTracks* out,
                      std::shared_ptr<const void> keep) {
  out->analyses.push_back("overlap");
  for (const DeviceOverlap& dev : overlap.devices) {
    std::map<int, AnalysisTrack> by_pair;
    for (const OverlapInterval& iv : dev.intervals) {
      AnalysisTrack& t = by_pair[iv.pair];
      if (t.name.empty()) {
        t.device_id = dev.device_id;
        t.name = absl::StrCat("overlap ", OverlapPairName(iv.pair));
        t.group = "overlap";
      }
      if (keep == nullptr) {
        t.slices.push_back(IntervalSlice(model, dev, iv));
      } else {
        ++t.produced;
      }
    }
    for (auto& [pair, t] : by_pair) {
      if (keep != nullptr) {
        t.produce = [&model, &dev, keep, pair = pair, count = t.produced](int part, int parts, const SliceSink& emit) {
          // Intervals of a pair are disjoint: runs cut anywhere.
          const auto [first, last] =
              AnalysisTrack::PartRange(static_cast<size_t>(count), part, parts, [](size_t) { return true; });
          size_t k = 0;  // intervals of the pair so far
          for (const OverlapInterval& i : dev.intervals) {
            if (i.pair != pair) continue;
            if (k >= last) break;
            if (k++ >= first) emit(IntervalSlice(model, dev, i));
          }
        };
      }
      out->tracks.push_back(std::move(t));
    }

    std::string dev_label = DeviceLabel(model, dev.device_id);
    bool any = false;
    for (const PairOverlap& p : dev.pairs) {
      if (p.possible_ns <= 0) continue;
      any = any || p.overlapped_ns > 0;
      // Zero overlap is worth saying only for the pairs overlap is usually
      // sought for: a copy next to compute, and H2D next to D2H.
      OverlapPairKind k = OverlapPairAt(p.pair);
      bool classic = p.pair != kComputeComputePair && ((k.a == OpCategory::kKernel && IsCopy(k.b)) ||
                                                       (k.a == OpCategory::kHtoD && k.b == OpCategory::kDtoH));
      if (p.overlapped_ns == 0 && !classic) continue;
      out->findings.push_back(
          {p.overlapped_ns > 0 ? "info" : "warning",
           absl::StrFormat("%s: %s overlapped %s of a possible %s (%.0f%% hidden, %d intervals)", dev_label,
                           OverlapPairName(p.pair), FormatDuration(p.overlapped_ns), FormatDuration(p.possible_ns),
                           100.0 * p.hidden_share, p.interval_count)});
    }
    if (!any && dev.busy_ns > 0) {
      out->findings.push_back({"warning", absl::StrCat(dev_label, ": no two kinds of work ever ran at the same time")});
    }
    if (dev.copy_ns > 0) {
      out->findings.push_back(
          {dev.exposed_copy_ns * 2 > dev.copy_ns ? "warning" : "info",
           absl::StrFormat("%s: copies ran %s, of which %s with no kernel running (exposed)", dev_label,
                           FormatDuration(dev.copy_ns), FormatDuration(dev.exposed_copy_ns))});
    }
  }
}

}  // namespace streamscope
