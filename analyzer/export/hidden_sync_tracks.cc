// AddHiddenSyncMarkers (analysis_adapters.h).
#include <map>

#include "absl/strings/str_cat.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {

void AddHiddenSyncMarkers(const TraceModel& model, const HiddenSyncResult& sync, AnalysisTracks* out) {
  out->analyses.push_back("hidden_sync");
  std::map<int32_t, AnalysisTrack> by_device;
  for (const SerializationFinding& f : sync.serialization) {
    if (f.delayed_op < 0) continue;
    int32_t dev = model.ops.device_id[f.delayed_op];
    AnalysisTrack& t = by_device[dev];
    if (t.name.empty()) {
      t.device_id = dev;
      t.name = "hidden syncs";
      t.group = "sync";
    }
    AnalysisMarker m;
    m.ts_ns = model.ops.start_ns[f.delayed_op];
    m.end_ns = m.ts_ns;
    m.kind = "hidden-sync";
    m.name = f.direction == SerializationDirection::kBlockingWaitedForLegacy
                 ? "legacy default stream serialized a blocking stream"
                 : "blocking-stream work serialized the legacy default stream";
    m.explanation = absl::StrCat(OpLabel(model, f.delayed_op), " was ready ", FormatDuration(f.delay_ns),
                                 " before it started, and started only when ",
                                 f.waited_op >= 0 ? OpLabel(model, f.waited_op) : std::string("an op"), " ended");
    m.args["direction"] = std::string(SerializationDirectionName(f.direction));
    m.args["delay_ns"] = f.delay_ns;
    m.args["delayed_op"] = OpRefJson(model, f.delayed_op);
    if (f.waited_op >= 0) m.args["waited_op"] = OpRefJson(model, f.waited_op);
    t.markers.push_back(std::move(m));
  }
  AnalysisTrack host;
  host.device_id = -1;
  host.name = "implicit syncs";
  host.group = "sync";
  for (const ImplicitSyncFinding& f : sync.implicit_calls) {
    if (f.api < 0 || !f.observed) continue;
    AnalysisMarker m;
    m.ts_ns = model.api.start_ns[f.api];
    m.end_ns = model.api.end_ns[f.api];
    m.kind = "implicit-sync";
    m.host_tid = model.api.tid[f.api];
    std::string call(model.strings.Get(model.api.name[f.api]));
    m.name = absl::StrCat("implicit sync: ", call);
    m.explanation = absl::StrCat(call, " (", std::string(ImplicitSyncKindName(f.kind)),
                                 ") held the host thread until earlier GPU work drained");
    if (f.waited_for_op >= 0) {
      absl::StrAppend(&m.explanation, ": waited ", FormatDuration(f.waited_ns), " for ",
                      OpLabel(model, f.waited_for_op));
      m.args["waited_for_op"] = OpRefJson(model, f.waited_for_op);
    }
    m.args["kind"] = std::string(ImplicitSyncKindName(f.kind));
    m.args["api_source_id"] = model.api.source_id[f.api];
    m.args["waited_ns"] = f.waited_ns;
    m.args["drained_ops"] = f.drained_ops;
    host.markers.push_back(std::move(m));
  }
  for (auto& [dev, t] : by_device) out->tracks.push_back(std::move(t));
  if (!host.markers.empty()) out->tracks.push_back(std::move(host));

  for (int d = 0; d < 2; ++d) {
    if (sync.serialization_count[d] == 0) continue;
    out->findings.push_back(
        {"problem", absl::StrCat(sync.serialization_count[d],
                                 " ops delayed by legacy default-stream "
                                 "serialization (",
                                 std::string(SerializationDirectionName(static_cast<SerializationDirection>(d))), "), ",
                                 FormatDuration(sync.serialization_delay_ns[d]), " in total")});
  }
  for (const ImplicitSyncTotal& t : sync.implicit_totals) {
    if (t.observed_calls == 0) continue;
    out->findings.push_back(
        {"warning", absl::StrCat(t.observed_calls, " of ", t.calls, " ", std::string(model.strings.Get(t.name)),
                                 " calls synchronized implicitly (", std::string(ImplicitSyncKindName(t.kind)),
                                 "): host waited ", FormatDuration(t.waited_ns))});
  }
  if (sync.explicit_host_ns > 0) {
    out->findings.push_back(
        {"info", absl::StrCat("explicit syncs blocked the host ", FormatDuration(sync.explicit_host_ns),
                              "; the GPU was idle ", FormatDuration(sync.explicit_gpu_idle_ns), " of that time")});
  }
}

}  // namespace streamscope
