#include "analyzer/render/gap_causes_render.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

nlohmann::json GapOpJson(const TraceModel& model, int32_t op) {
  if (op < 0) return nullptr;
  const GpuOps& ops = model.ops;
  nlohmann::json j;
  j["table"] = std::string(OpTable(ops.category[op]));
  j["id"] = ops.source_id[op];
  j["category"] = std::string(OpCategoryName(ops.category[op]));
  j["name"] = ops.name[op] >= 0 ? nlohmann::json(std::string(DisplayName(model.strings, ops.name[op])))
                                : nlohmann::json(nullptr);
  j["mangled_name"] =
      ops.name[op] >= 0 ? nlohmann::json(std::string(model.strings.Get(ops.name[op]))) : nlohmann::json(nullptr);
  j["stream_id"] = StreamIdJson(model, ops.stream[op]);
  j["device_id"] = ops.device_id[op];
  j["start_ns"] = ops.start_ns[op];
  j["end_ns"] = ops.end_ns[op];
  return j;
}

// A part's name says what it is: the blocking call's name (api_name) for
// host_blocked_in_call and first_launch, the waiting call's name for
// round_trip and sync_wait, the NVTX range's name (nvtx_name) for
// host_nvtx_range; the other is none (NULL).
bool IsApiName(GapCause cause) {
  return cause == GapCause::kHostBlockedInCall || cause == GapCause::kFirstLaunch || IsHostDrain(cause);
}
bool IsNvtxName(GapCause cause) { return cause == GapCause::kHostNvtxRange; }

nlohmann::json NameJson(const TraceModel& model, StringId id, bool applies) {
  if (!applies || id < 0) return nullptr;
  return std::string(DisplayName(model.strings, id));
}

ResultValue NameCell(const TraceModel& model, StringId id, bool applies) {
  if (!applies || id < 0) return ResultValue();
  return ResultValue(std::string(DisplayName(model.strings, id)));
}

nlohmann::json CauseMap(const std::array<int64_t, kNumGapCauses>& ns) {
  nlohmann::json j = nlohmann::json::object();
  for (int c = 0; c < kNumGapCauses; ++c) {
    if (ns[c] > 0) j[std::string(GapCauseName(static_cast<GapCause>(c)))] = ns[c];
  }
  return j;
}

// "inside NVTX range 'host_prepare'", "blocked in cudaMemcpy", ...
std::string DescribePart(const TraceModel& model, GapCause cause, StringId detail) {
  switch (cause) {
    case GapCause::kHostBlockedInCall: return "blocked in " + std::string(DisplayName(model.strings, detail));
    case GapCause::kHostNvtxRange: return "inside NVTX range '" + ShortenName(DisplayName(model.strings, detail)) + "'";
    case GapCause::kHostUnannotated: return "doing unannotated host work";
    case GapCause::kSubmissionLatency: return "submission latency";
    case GapCause::kDependencyEventWait: return "waiting on an event (stream_wait_event)";
    case GapCause::kDependencyHostCallback: return "waiting for a host callback";
    case GapCause::kDependencyOtherStream: return "waiting for work on another stream";
    case GapCause::kQueuedUnexplained: return "queued with no recorded dependency";
    case GapCause::kUnknownSubmitter: return "next op has no recorded API call";
    case GapCause::kWindowStart: return "before the first op";
    case GapCause::kWindowEnd: return "after the last op";
    case GapCause::kFirstLaunch:
      return "blocked in " + std::string(DisplayName(model.strings, detail)) + ", a first launch (module loading)";
    case GapCause::kRoundTrip:
      return "reading back a result (" + std::string(DisplayName(model.strings, detail)) +
             ") and deciding before the next launch (round trip)";
    case GapCause::kSyncWait:
      return "after " + std::string(DisplayName(model.strings, detail)) + " drained the GPU, until the next submission";
  }
  return "unknown";
}

}  // namespace

nlohmann::json GapCausesToJson(const GapCausesResult& r, const TraceModel& model) {
  nlohmann::json j;
  j["analysis"] = "gap_causes";
  j["window"] = {{"label", WindowLabel(r.window)},
                 {"start_ns", r.window.start_ns},
                 {"end_ns", r.window.end_ns},
                 {"length_ns", r.window.length()}};
  j["options"] = {{"submission_latency_threshold_ns", r.options.submission_latency_threshold_ns},
                  {"dependency_tolerance_ns", r.options.dependency_tolerance_ns},
                  {"max_listed_gaps", r.options.max_listed_gaps}};
  j["idle_ns"] = r.idle_ns;
  j["causes"] = nlohmann::json::array();
  for (int c = 0; c < kNumGapCauses; ++c) {
    if (r.cause_ns[c] <= 0) continue;
    GapCause cause = static_cast<GapCause>(c);
    j["causes"].push_back({{"cause", std::string(GapCauseName(cause))},
                           {"cpu_starvation", IsCpuStarvation(cause)},
                           {"ns", r.cause_ns[c]},
                           {"share_of_idle", ShareOf(r.cause_ns[c], r.idle_ns)}});
  }
  j["devices"] = nlohmann::json::array();
  for (const DeviceGapSummary& d : r.devices) {
    j["devices"].push_back({{"device_id", d.device_id},
                            {"window_ns", d.window_ns},
                            {"busy_ns", d.busy_ns},
                            {"idle_ns", d.idle_ns},
                            {"idle_share_of_window", ShareOf(d.idle_ns, d.window_ns)},
                            {"gaps", d.gaps},
                            {"causes", CauseMap(d.cause_ns)}});
  }
  j["totals"] = nlohmann::json::array();
  for (const GapCauseTotal& t : r.totals) {
    int64_t idle = 0;
    for (const DeviceGapSummary& d : r.devices) {
      if (d.device_id == t.device_id) idle = d.idle_ns;
    }
    j["totals"].push_back({{"device_id", t.device_id},
                           {"cause", std::string(GapCauseName(t.cause))},
                           {"api_name", NameJson(model, t.detail, IsApiName(t.cause))},
                           {"nvtx_name", NameJson(model, t.detail, IsNvtxName(t.cause))},
                           {"tid", t.tid >= 0 ? nlohmann::json(t.tid) : nlohmann::json(nullptr)},
                           {"ns", t.ns},
                           {"share_of_idle", ShareOf(t.ns, idle)},
                           {"gaps", t.gaps}});
  }
  j["threads"] = nlohmann::json::array();
  for (const ThreadStarvation& t : r.threads) {
    j["threads"].push_back({{"tid", t.tid},
                            {"device_id", t.device_id},
                            {"starved_ns", t.starved_ns},
                            {"share_of_window", ShareOf(t.starved_ns, r.window.length())},
                            {"gaps", t.gaps},
                            {"causes", CauseMap(t.cause_ns)}});
  }
  j["worst_gaps"] = nlohmann::json::array();
  for (const GapFinding& g : r.worst_gaps) {
    nlohmann::json gj = {{"device_id", g.device_id},
                         {"start_ns", g.start_ns},
                         {"end_ns", g.end_ns},
                         {"length_ns", g.length()},
                         {"primary_cause", std::string(GapCauseName(g.primary))},
                         {"prev_op", GapOpJson(model, g.prev_op)},
                         {"next_op", GapOpJson(model, g.next_op)}};
    if (g.api >= 0) {
      gj["api"] = {{"id", model.api.source_id[g.api]},
                   {"name", std::string(DisplayName(model.strings, model.api.name[g.api]))},
                   {"tid", model.api.tid[g.api]},
                   {"start_ns", model.api.start_ns[g.api]},
                   {"end_ns", model.api.end_ns[g.api]}};
    } else {
      gj["api"] = nullptr;
    }
    gj["parts"] = nlohmann::json::array();
    for (const GapPart& p : g.parts) {
      gj["parts"].push_back(
          {{"cause", std::string(GapCauseName(p.cause))},
           {"start_ns", p.start_ns},
           {"end_ns", p.end_ns},
           {"length_ns", p.length()},
           {"api_id", p.api >= 0 ? nlohmann::json(model.api.source_id[p.api]) : nlohmann::json(nullptr)},
           {"api_name", NameJson(model, p.detail, IsApiName(p.cause))},
           {"nvtx_range_id",
            p.nvtx >= 0 ? nlohmann::json(model.nvtx_ranges[p.nvtx].source_id) : nlohmann::json(nullptr)},
           {"nvtx_name", NameJson(model, p.detail, IsNvtxName(p.cause))}});
    }
    j["worst_gaps"].push_back(std::move(gj));
  }
  return j;
}

void RenderGapCausesText(const GapCausesResult& r, const TraceModel& model, std::ostream& out) {
  int64_t wlen = r.window.length();
  out << "Gap causes (CPU starvation) — window '" << WindowLabel(r.window) << "', " << FormatDuration(wlen) << "\n";
  if (r.devices.empty()) {
    out << "  No GPU ops in the trace.\n";
    return;
  }
  for (const DeviceGapSummary& d : r.devices) {
    out << "  GPU " << d.device_id << " idled " << FormatDuration(d.idle_ns) << " ("
        << FormatWholePercent(ShareOf(d.idle_ns, d.window_ns)) << " of the window) in " << d.gaps
        << (d.gaps == 1 ? " gap.\n" : " gaps.\n");
    // Plain-sentence findings: which host threads the GPU waited for.
    for (const ThreadStarvation& t : r.threads) {
      if (t.device_id != d.device_id || t.starved_ns <= 0) continue;
      std::vector<const GapCauseTotal*> what;
      for (const GapCauseTotal& tot : r.totals) {
        if (tot.device_id == d.device_id && tot.tid == t.tid && IsCpuStarvation(tot.cause)) {
          what.push_back(&tot);
        }
      }
      out << "    GPU " << d.device_id << " idled " << FormatDuration(t.starved_ns) << " ("
          << FormatWholePercent(ShareOf(t.starved_ns, wlen)) << " of the window) waiting for host thread " << t.tid;
      for (size_t k = 0; k < what.size() && k < 3; ++k) {
        out << (k == 0                                      ? ", which was "
                : k + 1 == std::min<size_t>(what.size(), 3) ? " and "
                                                            : ", ")
            << DescribePart(model, what[k]->cause, what[k]->detail) << " for " << FormatDuration(what[k]->ns);
      }
      out << ".\n";
    }
    out << "    By cause:";
    bool first = true;
    for (int c = 0; c < kNumGapCauses; ++c) {
      if (d.cause_ns[c] <= 0) continue;
      out << (first ? " " : ", ") << GapCauseName(static_cast<GapCause>(c)) << " " << FormatDuration(d.cause_ns[c])
          << " (" << FormatWholePercent(ShareOf(d.cause_ns[c], d.idle_ns)) << ")";
      first = false;
    }
    out << (first ? " no idle time.\n" : ".\n");
  }
  if (!r.worst_gaps.empty()) out << "  Longest gaps:\n";
  int rank = 1;
  for (const GapFinding& g : r.worst_gaps) {
    out << "    " << rank++ << ". GPU " << g.device_id << ", " << FormatDuration(g.length()) << " at +"
        << FormatDuration(g.start_ns - r.window.start_ns) << " (" << g.start_ns << " ns)";
    if (g.prev_op >= 0) out << ", after " << OpNamedRef(model, g.prev_op);
    if (g.next_op >= 0) out << ", before " << OpNamedRef(model, g.next_op);
    if (g.api >= 0) {
      out << " submitted by " << CallRef(model, g.api) << " at +"
          << FormatDuration(model.api.start_ns[g.api] - r.window.start_ns);
    }
    out << ":";
    // Parts summed per cause and detail, in order of first appearance (the
    // JSON and tables keep every part with its times).
    std::vector<std::pair<const GapPart*, int64_t>> summed;
    for (const GapPart& p : g.parts) {
      auto same = std::find_if(summed.begin(), summed.end(),
                               [&](const auto& e) { return e.first->cause == p.cause && e.first->detail == p.detail; });
      if (same == summed.end()) {
        summed.emplace_back(&p, p.length());
      } else {
        same->second += p.length();
      }
    }
    constexpr size_t kMaxParts = 5;
    for (size_t k = 0; k < summed.size() && k < kMaxParts; ++k) {
      out << (k == 0 ? " " : ", ") << DescribePart(model, summed[k].first->cause, summed[k].first->detail) << " "
          << FormatDuration(summed[k].second);
    }
    if (summed.size() > kMaxParts) out << ", and " << (summed.size() - kMaxParts) << " more";
    out << ".\n";
  }
}

std::vector<ResultTable> GapCausesToTables(const GapCausesResult& r, const TraceModel& model) {
  ResultTable causes;
  causes.name = "analysis_gap_causes";
  causes.columns = {"window",    "device_id", "cause", "cpu_starvation", "api_name",
                    "nvtx_name", "tid",       "ns",    "share_of_idle",  "gaps"};
  for (const GapCauseTotal& t : r.totals) {
    int64_t idle = 0;
    for (const DeviceGapSummary& d : r.devices) {
      if (d.device_id == t.device_id) idle = d.idle_ns;
    }
    causes.rows.push_back({WindowLabel(r.window), int64_t{t.device_id}, std::string(GapCauseName(t.cause)),
                           int64_t{IsCpuStarvation(t.cause) ? 1 : 0}, NameCell(model, t.detail, IsApiName(t.cause)),
                           NameCell(model, t.detail, IsNvtxName(t.cause)),
                           t.tid >= 0 ? ResultValue(t.tid) : ResultValue(), t.ns, ShareOf(t.ns, idle), t.gaps});
  }
  ResultTable worst;
  worst.name = "analysis_gap_worst";
  worst.columns = {"window",        "rank",          "device_id",  "start_ns",      "end_ns",     "length_ns",
                   "primary_cause", "prev_op_table", "prev_op_id", "next_op_table", "next_op_id", "next_stream_id",
                   "api_id",        "api_name",      "tid",        "api_start_ns"};
  // What the submitting thread did during each worst gap, one row per part
  // (rank joins analysis_gap_worst).
  ResultTable parts;
  parts.name = "analysis_gap_worst_part";
  parts.columns = {"window",    "rank",   "part_index", "cause",         "start_ns", "end_ns",
                   "length_ns", "api_id", "api_name",   "nvtx_range_id", "nvtx_name"};
  int64_t rank = 1;
  for (const GapFinding& g : r.worst_gaps) {
    auto op_table = [&](int32_t op) {
      return op >= 0 ? ResultValue(std::string(OpTable(model.ops.category[op]))) : ResultValue();
    };
    auto op_id = [&](int32_t op) { return op >= 0 ? ResultValue(model.ops.source_id[op]) : ResultValue(); };
    bool has_api = g.api >= 0;
    worst.rows.push_back(
        {WindowLabel(r.window), rank++, int64_t{g.device_id}, g.start_ns, g.end_ns, g.length(),
         std::string(GapCauseName(g.primary)), op_table(g.prev_op), op_id(g.prev_op), op_table(g.next_op),
         op_id(g.next_op), g.next_op >= 0 ? StreamIdCell(model, model.ops.stream[g.next_op]) : ResultValue(),
         has_api ? ResultValue(model.api.source_id[g.api]) : ResultValue(),
         has_api ? ResultValue(std::string(DisplayName(model.strings, model.api.name[g.api]))) : ResultValue(),
         has_api ? ResultValue(g.tid) : ResultValue(),
         has_api ? ResultValue(model.api.start_ns[g.api]) : ResultValue()});
    int64_t part_index = 0;
    for (const GapPart& p : g.parts) {
      parts.rows.push_back({WindowLabel(r.window), rank - 1, part_index++, std::string(GapCauseName(p.cause)),
                            p.start_ns, p.end_ns, p.length(),
                            p.api >= 0 ? ResultValue(model.api.source_id[p.api]) : ResultValue(),
                            NameCell(model, p.detail, IsApiName(p.cause)),
                            p.nvtx >= 0 ? ResultValue(model.nvtx_ranges[p.nvtx].source_id) : ResultValue(),
                            NameCell(model, p.detail, IsNvtxName(p.cause))});
    }
  }
  return {std::move(causes), std::move(worst), std::move(parts)};
}

}  // namespace streamscope
