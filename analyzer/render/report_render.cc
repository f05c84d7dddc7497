#include "analyzer/render/report_render.h"

#include <algorithm>
#include <sstream>

#include "analyzer/base/units.h"
#include "analyzer/render/communication_render.h"
#include "analyzer/render/critical_path_render.h"
#include "analyzer/render/csv_writer.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/render/diagnose_wording.h"
#include "analyzer/render/gap_causes_render.h"
#include "analyzer/render/hazards_render.h"
#include "analyzer/render/hidden_sync_render.h"
#include "analyzer/render/idle_gaps_render.h"
#include "analyzer/render/launch_stats_render.h"
#include "analyzer/render/op_attribution_render.h"
#include "analyzer/render/overlap_render.h"
#include "analyzer/render/steady_state_render.h"
#include "analyzer/render/summary_render.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/timing_audit_render.h"
#include "analyzer/render/trace_summary_render.h"
#include "analyzer/render/window_label.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

InstanceFigures FiguresOf(const WindowResults& w, size_t index, const TraceModel& model, int64_t trace_start_ns) {
  InstanceFigures x;
  x.index = index;
  x.label = WindowLabel(w.window);
  x.start_ns = w.window.start_ns - trace_start_ns;
  x.length_ns = w.window.length();
  for (const DeviceGaps& g : w.idle.devices) {
    x.device_ns += g.window_ns;
    x.busy_ns += g.busy_ns;
  }
  for (const DeviceOverlap& d : w.overlap.devices) {
    x.copy_ns += d.copy_ns;
    x.exposed_copy_ns += d.exposed_copy_ns;
  }
  if (const DiagnoseFinding* f = w.diagnose.primary()) x.finding = DiagnoseSummary(*f, model);
  return x;
}

std::vector<DeviceTotals> Combine(const std::vector<TraceAnalysis>& traces) {
  std::vector<DeviceTotals> out;
  for (const TraceAnalysis& t : traces) {
    for (const auto& [id, totals] : t.by_device) {
      DeviceTotals x = totals;
      x.path = t.model.path;
      x.pid = t.model.pid;
      x.device_id = id;
      out.push_back(x);
    }
  }
  return out;
}

nlohmann::json DeviceTotalsJson(const DeviceTotals& x) {
  return {{"window_ns", x.window_ns},
          {"busy_ns", x.busy_ns},
          {"idle_ns", x.idle_ns},
          {"compute_ns", x.compute_ns},
          {"copy_ns", x.copy_ns},
          {"copy_hidden_ns", x.copy_ns - x.exposed_copy_ns},
          {"exposed_copy_ns", x.exposed_copy_ns},
          {"listed_gap_count", x.listed_gaps},
          {"listed_gap_ns", x.listed_gap_ns}};
}

DeviceTotals Sum(const std::vector<DeviceTotals>& all) {
  DeviceTotals s;
  for (const DeviceTotals& x : all) {
    s.window_ns += x.window_ns;
    s.busy_ns += x.busy_ns;
    s.idle_ns += x.idle_ns;
    s.compute_ns += x.compute_ns;
    s.copy_ns += x.copy_ns;
    s.exposed_copy_ns += x.exposed_copy_ns;
    s.listed_gaps += x.listed_gaps;
    s.listed_gap_ns += x.listed_gap_ns;
  }
  return s;
}

nlohmann::json WindowSpecJson(const WindowSpec& spec) {
  switch (spec.kind) {
    case WindowSpec::Kind::kDefault: return {{"kind", "default"}};
    case WindowSpec::Kind::kWholeTrace: return {{"kind", "whole"}};
    case WindowSpec::Kind::kNvtxRange:
      return {{"kind", "nvtx"},
              {"nvtx_name", spec.nvtx_name},
              {"nvtx_instance", spec.nvtx_instance ? nlohmann::json(*spec.nvtx_instance) : nlohmann::json()}};
    case WindowSpec::Kind::kExplicit:
      return {{"kind", "explicit"},
              {"from_ns", spec.start_ns},
              {"to_ns", spec.end_ns},
              {"relative_to_trace_start", spec.relative_to_trace_start}};
  }
  return nullptr;
}

nlohmann::json WindowJson(const WindowResults& w, size_t index, const TraceModel& model, const RenderOptions& render,
                          const ReportJsonHeader& header, int window_count, int64_t trace_start_ns) {
  auto shown = [&](std::string_view name) { return SectionShown(header.sections, name); };
  nlohmann::json j = {{"index", index},
                      {"label", WindowLabel(w.window)},
                      {"start_ns", w.window.start_ns},
                      {"end_ns", w.window.end_ns},
                      {"length_ns", w.window.length()}};
  if (shown("overlap")) j["overlap"] = OverlapToJson(w.overlap, model, render);
  if (shown("idle-gaps")) j["idle_gaps"] = IdleGapsToJson(w.idle, model, render);
  if (shown("instances")) j["instances"] = InstanceRowsToJson(w.instances, model);
  if (shown("communication")) j["communication"] = CommunicationToJson(w.communication, model, render);
  if (shown("summary")) {
    j["summary"] = SummaryToJson(SummarizeWindow(w, model, header.window, window_count, false, trace_start_ns));
  }
  if (shown("gap-causes")) j["gap_causes"] = GapCausesToJson(w.gap_causes, model);
  if (shown("hidden-sync")) j["hidden_sync"] = HiddenSyncToJson(w.hidden_sync, model);
  if (shown("launch-stats")) j["launch_stats"] = LaunchStatsToJson(w.launch_stats, model);
  if (shown("diagnose")) j["diagnose"] = DiagnoseToJson(w.diagnose, model);
  if (shown("critical-path")) j["critical_path"] = CriticalPathToJson(w.critical_path, model, render.top);
  if (shown("hazards")) {
    j["ownership"] = OwnershipToJson(w.ownership, model, render.top);
    j["hazards"] = HazardsToJson(w.hazards, model, w.order_stats, render.top);
  }
  if (shown("timing-audit")) j["timing_audit"] = TimingAuditToJson(w.timing_audit, model);
  if (shown("launchers") && ShouldRenderOpAttribution(w.op_attribution)) {
    j["op_attribution"] = OpAttributionToJson(w.op_attribution, model);
  }
  return j;
}

// Writes `value` as report.dump(2) would print it `depth` levels deep.
void WriteJsonAt(std::ostream& out, const nlohmann::json& value, int depth) {
  // Names come from the trace and may not be UTF-8: replace, never throw.
  const std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    out << pad;
    from = nl + 1;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

}  // namespace

void TraceAnalysis::Add(WindowResults w, bool summarize) {
  window_list.push_back(w.window);
  for (const DeviceOverlap& d : w.overlap.devices) {
    DeviceTotals& x = by_device[d.device_id];
    x.compute_ns += d.category_ns[static_cast<int>(OpCategory::kKernel)];
    x.copy_ns += d.copy_ns;
    x.exposed_copy_ns += d.exposed_copy_ns;
  }
  for (const DeviceGaps& g : w.idle.devices) {
    DeviceTotals& x = by_device[g.device_id];
    x.window_ns += g.window_ns;
    x.busy_ns += g.busy_ns;
    x.idle_ns += g.idle_ns;
    x.listed_gaps += g.listed_count;
    x.listed_gap_ns += g.listed_ns;
  }
  if (!summarize) {
    windows.push_back(std::move(w));
    return;
  }
  // Keep only the longest instance (the earliest among equals) in full.
  InstanceFigures x = FiguresOf(w, window_list.size() - 1, model, summary.whole.start_ns);
  if (windows.empty() || x.length_ns > windows.front().window.length()) windows = {std::move(w)};
  instances.push_back(std::move(x));
}

// The document is written piece by piece, one window at a time, in the
// exact layout of one dump(2) of the whole (keys in sorted order): a report
// of thousands of NVTX instances would otherwise build a DOM of gigabytes.
void RenderReportJson(const std::vector<TraceAnalysis>& traces, const ReportJsonHeader& options,
                      const RenderOptions& render, std::ostream& out) {
  out << "{";
  if (SectionShown(options.sections, "combined")) {
    std::vector<DeviceTotals> totals = Combine(traces);
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceTotals& x : totals) {
      nlohmann::json d = DeviceTotalsJson(x);
      d["path"] = x.path;
      d["pid"] = x.pid;
      d["device_id"] = x.device_id;
      devices.push_back(d);
    }
    nlohmann::json combined = {{"devices", devices}, {"total", DeviceTotalsJson(Sum(totals))}};
    if (traces.size() > 1 && options.ranks != nullptr) combined["ranks"] = CrossRankToJson(*options.ranks);
    out << "\n  \"combined\": ";
    WriteJsonAt(out, combined, 1);
    out << ",";
  }
  out << "\n  \"gap_threshold_ns\": " << nlohmann::json(options.gap_threshold_ns).dump()
      << ",\n  \"generator\": \"streamscope report\""
      << ",\n  \"schema_version\": " << nlohmann::json(kReportJsonSchemaVersion).dump();
  if (!options.sections.empty()) {  // a partial report says which sections it holds
    out << ",\n  \"sections\": ";
    WriteJsonAt(out, options.sections, 1);
  }
  out << ",\n  \"top\": " << nlohmann::json(options.top).dump() << ",\n  \"traces\": ";
  if (traces.empty()) out << "[]";
  for (size_t ti = 0; ti < traces.size(); ++ti) {
    const TraceAnalysis& t = traces[ti];
    out << (ti == 0 ? "[\n    {" : ",\n    {");
    if (t.default_window) {
      out << "\n      \"default_window\": ";
      WriteJsonAt(out, SteadyStateToJson(*t.default_window, t.model), 3);
      out << ",";
    }
    out << "\n      \"format\": ";
    WriteJsonAt(out, t.model.format, 3);
    out << ",\n      \"path\": ";
    WriteJsonAt(out, t.model.path, 3);
    out << ",\n      \"pid\": " << nlohmann::json(t.model.pid).dump() << ",\n      \"summary\": ";
    WriteJsonAt(out, TraceSummaryToJson(t.summary, t.model), 3);
    out << ",\n      \"windows\": ";
    if (t.windows.empty()) out << "[]";
    for (size_t i = 0; i < t.windows.size(); ++i) {
      out << (i == 0 ? "[\n        " : ",\n        ");
      WriteJsonAt(out,
                  WindowJson(t.windows[i], i, t.model, render, options, static_cast<int>(t.window_list.size()),
                             t.summary.whole.start_ns),
                  4);
    }
    if (!t.windows.empty()) out << "\n      ]";
    out << "\n    }";
    if (ti + 1 == traces.size()) out << "\n  ]";
  }
  out << ",\n  \"window_spec\": ";
  WriteJsonAt(out, WindowSpecJson(options.window), 1);
  out << "\n}\n";
}

const std::vector<std::string>& ReportSectionNames() {
  static const std::vector<std::string> names = {"summary",      "trace",         "instances",     "overlap",
                                                 "idle-gaps",    "communication", "gap-causes",    "hidden-sync",
                                                 "launch-stats", "diagnose",      "critical-path", "hazards",
                                                 "timing-audit", "launchers",     "combined"};
  return names;
}

bool SectionShown(const std::vector<std::string>& sections, std::string_view name) {
  return sections.empty() || std::find(sections.begin(), sections.end(), name) != sections.end();
}

void RenderReportText(const std::vector<TraceAnalysis>& traces, const RenderOptions& render, std::ostream& final_out,
                      const ReportTextOptions& text) {
  auto shown = [&](std::string_view name) { return SectionShown(text.sections, name); };
  bool any_window_section = false;
  for (std::string_view name : {"overlap", "idle-gaps", "communication", "gap-causes", "hidden-sync", "launch-stats",
                                "diagnose", "critical-path", "hazards", "timing-audit", "launchers"}) {
    any_window_section |= shown(name);
  }
  std::ostringstream out;
  bool first_block = true;
  auto separate = [&] {
    if (!first_block) out << "\n";
    first_block = false;
  };
  for (size_t ti = 0; ti < traces.size(); ++ti) {
    const TraceAnalysis& t = traces[ti];
    if (shown("summary") && !t.windows.empty()) {
      separate();
      if (traces.size() > 1) out << "Trace " << t.model.path << " (pid " << t.model.pid << ")\n";
      RenderSummaryText(SummarizeWindow(t.windows.front(), t.model, text.window, static_cast<int>(t.window_list.size()),
                                        !t.instances.empty(), t.summary.whole.start_ns),
                        t.model, out);
    }
    // The window's instances: a compact table right after the summary in a
    // full report, every row when the section is asked for.
    if (shown("instances") && t.instances.empty() && !t.windows.empty() && !t.windows.front().instances.rows.empty()) {
      separate();
      RenderInstanceRowsText(t.windows.front().instances, t.model, t.summary.whole.start_ns, text.sections.empty(),
                             out);
    }
    if (shown("trace")) {
      separate();
      RenderTraceSummaryText(t.summary, t.model, out);
      if (t.default_window) RenderDefaultWindowText(*t.default_window, t.model, out, "  ");
    }
    auto render_window = [&](const WindowResults& w) {
      if (!any_window_section) return;
      separate();
      out << "Window " << WindowLabel(w.window) << ": " << FormatDuration(w.window.length()) << " at "
          << FormatOffset(w.window.start_ns - t.summary.whole.start_ns) << " from the trace start ["
          << w.window.start_ns << ", " << w.window.end_ns << ") ns\n";
      if (shown("overlap")) RenderOverlapText(w.overlap, t.model, render, out);
      if (shown("idle-gaps")) RenderIdleGapsText(w.idle, t.model, render, out);
      if (shown("communication")) RenderCommunicationText(w.communication, t.model, render, out);
      if (shown("gap-causes")) RenderGapCausesText(w.gap_causes, t.model, out);
      if (shown("hidden-sync")) RenderHiddenSyncText(w.hidden_sync, t.model, out);
      if (shown("launch-stats")) RenderLaunchStatsText(w.launch_stats, t.model, out);
      if (shown("diagnose")) RenderDiagnoseText(w.diagnose, t.model, out);
      if (shown("critical-path")) RenderCriticalPathText(w.critical_path, t.model, render.top, out);
      if (shown("hazards")) RenderHazardsText(w.hazards, w.ownership, t.model, render.top, out);
      if (shown("timing-audit")) RenderTimingAuditText(w.timing_audit, t.model, render.top, out);
      if (shown("launchers")) RenderOpAttributionText(w.op_attribution, t.model, render, out);
    };
    if (t.instances.empty()) {
      for (const WindowResults& w : t.windows) render_window(w);
      continue;
    }
    // Many instances of an NVTX range: their spread and the longest ones,
    // then the longest in full.
    if (shown("instances")) {
      RenderInstancesText(t.instances, render.top, out);
      first_block = false;
    }
    if (any_window_section) {
      separate();
      out << "The longest instance in full:\n";
    }
    for (const WindowResults& w : t.windows) render_window(w);
  }
  if (traces.size() > 1 && shown("combined")) {
    std::vector<DeviceTotals> totals = Combine(traces);
    separate();
    out << "Combined over " << traces.size() << " processes:\n";
    for (const DeviceTotals& x : totals) {
      out << "  pid " << x.pid << " device " << x.device_id << ": busy " << FormatDuration(x.busy_ns) << " of "
          << FormatDuration(x.window_ns) << " (" << FormatShare(x.busy_ns, x.window_ns) << "), copies hidden "
          << FormatDuration(x.copy_ns - x.exposed_copy_ns) << " of " << FormatDuration(x.copy_ns) << " ("
          << FormatShare(x.copy_ns - x.exposed_copy_ns, x.copy_ns) << "), " << x.listed_gaps << " long gaps ("
          << FormatDuration(x.listed_gap_ns) << ")  [" << x.path << "]\n";
    }
    DeviceTotals s = Sum(totals);
    out << "  all: busy " << FormatDuration(s.busy_ns) << " of " << FormatDuration(s.window_ns) << " device time ("
        << FormatShare(s.busy_ns, s.window_ns) << "), copies hidden " << FormatDuration(s.copy_ns - s.exposed_copy_ns)
        << " of " << FormatDuration(s.copy_ns) << " (" << FormatShare(s.copy_ns - s.exposed_copy_ns, s.copy_ns)
        << ").\n";
    bool any_comm = false;
    if (text.ranks != nullptr) {
      for (const RankFigures& r : text.ranks->ranks) any_comm |= r.comm_ns > 0;
    }
    if (any_comm) RenderCrossRankText(*text.ranks, out);
  }
  final_out << WrapLines(out.str(), kReportTextColumns);
}

// All tables of one trace: the trace-level ones, then each per-window table
// with a leading window_index column, rows of all windows together.
std::vector<ResultTable> ReportTables(const TraceAnalysis& t, const std::vector<std::string>& sections) {
  auto shown = [&](std::string_view name) { return SectionShown(sections, name); };
  std::vector<ResultTable> out;
  out.push_back(TraceSummaryToTable(t.summary));
  ResultTable windows{"analysis_window", {"window_index", "label", "start_ns", "end_ns", "length_ns"}, {}};
  std::vector<ResultTable> merged;
  auto merge = [&](int64_t index, std::vector<ResultTable> tables) {
    for (ResultTable& table : tables) {
      ResultTable* target = nullptr;
      for (ResultTable& m : merged) {
        if (m.name == table.name) target = &m;
      }
      if (target == nullptr) {
        merged.push_back({table.name, {"window_index"}, {}});
        target = &merged.back();
        target->columns.insert(target->columns.end(), table.columns.begin(), table.columns.end());
      }
      for (auto& row : table.rows) {
        row.insert(row.begin(), ResultValue(index));
        target->rows.push_back(std::move(row));
      }
      // A table's rows come all materialized or all generated, so the
      // windows' rows stay in window order either way.
      for (ResultTable::RowSource& source : table.sources) {
        source.prefix.insert(source.prefix.begin(), ResultValue(index));
        target->sources.push_back(std::move(source));
      }
    }
  };
  for (size_t i = 0; i < t.windows.size(); ++i) {
    const WindowResults& w = t.windows[i];
    int64_t index = static_cast<int64_t>(i);
    windows.rows.push_back({index, WindowLabel(w.window), w.window.start_ns, w.window.end_ns, w.window.length()});
    if (shown("overlap")) merge(index, OverlapToTables(w.overlap, t.model));
    if (shown("idle-gaps")) merge(index, IdleGapsToTables(w.idle, t.model));
    if (shown("instances")) merge(index, InstanceRowsToTables(w.instances, t.model));
    if (shown("communication")) merge(index, CommunicationToTables(w.communication));
    if (shown("gap-causes")) merge(index, GapCausesToTables(w.gap_causes, t.model));
    if (shown("hidden-sync")) merge(index, HiddenSyncToTables(w.hidden_sync, t.model));
    if (shown("launch-stats")) merge(index, LaunchStatsToTables(w.launch_stats, t.model));
    if (shown("critical-path")) merge(index, CriticalPathToTables(w.critical_path, t.model));
    if (shown("hazards")) merge(index, HazardsToTables(w.hazards, w.ownership, t.model));
    if (shown("timing-audit")) merge(index, TimingAuditToTables(w.timing_audit, t.model));
    if (shown("launchers")) merge(index, OpAttributionToTables(w.op_attribution, t.model));
  }
  out.push_back(std::move(windows));
  for (ResultTable& m : merged) out.push_back(std::move(m));
  return out;
}

void RenderReportCsv(const std::vector<TraceAnalysis>& traces, std::ostream& out,
                     const std::vector<std::string>& sections) {
  for (const TraceAnalysis& t : traces) {
    for (const ResultTable& table : ReportTables(t, sections)) {
      out << "# trace: " << t.model.path << "\n# table: " << table.name << "\n";
      WriteCsv(table, out);
      out << "\n";
    }
  }
}

}  // namespace streamscope
