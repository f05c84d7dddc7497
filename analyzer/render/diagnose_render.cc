#include "analyzer/render/diagnose_render.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/analysis/causes/idle_partition.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/diagnose_wording.h"
#include "analyzer/render/graph_memory_render.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

// The diagnosis' notes, and why it has no estimated savings when its
// window's graph did not fit in memory.
std::vector<std::string> NoteTexts(const DiagnoseResult& r) {
  std::vector<std::string> notes;
  for (const DiagnoseNote& n : r.notes) notes.push_back(DiagnoseNoteText(n));
  if (r.over_memory) {
    notes.push_back(absl::StrCat("findings ranked by measured cost, without estimated savings: ",
                                 GraphOverMemoryText(*r.over_memory)));
  }
  return notes;
}

nlohmann::json CallJson(const TraceModel& m, int32_t api) {
  return {{"id", m.api.source_id[api]},
          {"name", std::string(DisplayName(m.strings, m.api.name[api]))},
          {"tid", m.api.tid[api]},
          {"start_ns", m.api.start_ns[api]},
          {"end_ns", m.api.end_ns[api]}};
}

std::string CallLabel(const TraceModel& m, int32_t api) {
  return absl::StrCat(CallRef(m, api), " for ", FormatDuration(m.api.end_ns[api] - m.api.start_ns[api]));
}

}  // namespace

nlohmann::json DiagnoseToJson(const DiagnoseResult& r, const TraceModel& m) {
  nlohmann::json steps = nlohmann::json::array();
  for (int s = 0; s < kNumDiagnoseSteps; ++s)
    steps.push_back(std::string(DiagnoseStepName(static_cast<DiagnoseStep>(s))));
  nlohmann::json findings = nlohmann::json::array();
  const std::vector<int32_t> order = r.RankOrder();
  const DiagnoseFinding* primary_finding = r.primary();
  for (size_t i = 0; i < order.size(); ++i) {
    const DiagnoseFinding& f = r.findings[order[i]];
    nlohmann::json ops = nlohmann::json::array(), calls = nlohmann::json::array();
    for (int32_t op : f.ops) ops.push_back(OpRefJson(m, op));
    for (int32_t api : f.calls) calls.push_back(CallJson(m, api));
    nlohmann::json figures = nlohmann::json::object(), labels = nlohmann::json::object();
    for (const auto& [k, v] : f.figures) figures[k] = v;
    for (const auto& [k, v] : DiagnoseLabels(f)) labels[k] = v;
    findings.push_back(
        {{"rank", i + 1},
         {"step", std::string(DiagnoseStepName(StepOf(f.cause)))},
         {"cause", std::string(DiagnoseCauseName(f.cause))},
         {"check_order", order[i] + 1},
         {"primary", &f == primary_finding},
         {"significant", f.significant},
         {"impact_ns", f.impact_ns},
         {"measured_cost_ns", f.impact_ns},
         {"idle_cost_ns", IdleCostNs(f)},
         {"busy_cost_ns", BusyCostNs(f)},
         {"saving_estimated", f.saving_estimated},
         {"estimated_saving_ns", f.saving_estimated ? nlohmann::json(f.estimated_saving_ns) : nlohmann::json(nullptr)},
         {"estimated_saving_share_of_gpu_span",
          f.saving_estimated && r.gpu_span_ns > 0
              ? nlohmann::json(static_cast<double>(f.estimated_saving_ns) / static_cast<double>(r.gpu_span_ns))
              : nlohmann::json(nullptr)},
         {"impact_share_of_gpu_span",
          r.gpu_span_ns > 0 ? static_cast<double>(f.impact_ns) / static_cast<double>(r.gpu_span_ns) : 0.0},
         {"impact_share_of_window",
          r.window.length() > 0 ? static_cast<double>(f.impact_ns) / static_cast<double>(r.window.length()) : 0.0},
         {"summary", DiagnoseSummary(f, m)},
         {"remedy", DiagnoseRemedy(f)},
         {"evidence", {{"ops", ops}, {"calls", calls}, {"tids", f.tids}}},
         {"figures", figures},
         {"labels", labels}});
  }
  nlohmann::json primary = nullptr;
  if (const DiagnoseFinding* p = r.primary()) {
    primary = {{"step", std::string(DiagnoseStepName(StepOf(p->cause)))},
               {"cause", std::string(DiagnoseCauseName(p->cause))}};
  }
  std::vector<std::string> notes = NoteTexts(r);
  const IdleAccount account = AccountIdle(r);
  const CombinedEstimate& c = r.combined;
  auto saving_or_null = [](int64_t ns) { return ns >= 0 ? nlohmann::json(ns) : nlohmann::json(nullptr); };
  nlohmann::json combined = {{"evaluated", c.evaluated},
                             {"reported", c.reported},
                             {"waits_alone_ns", saving_or_null(c.waits_alone_ns)},
                             {"host_alone_ns", saving_or_null(c.host_alone_ns)},
                             {"launches_alone_ns", saving_or_null(c.launches_alone_ns)},
                             {"together_ns", c.evaluated ? nlohmann::json(c.together_ns) : nlohmann::json(nullptr)},
                             {"waits_cost_ns", c.waits_cost_ns},
                             {"host_cost_ns", c.host_cost_ns},
                             {"launches_cost_ns", c.launches_cost_ns},
                             {"summary", c.reported ? DiagnoseCombinedText(c) : std::string()}};
  return {{"analysis", "diagnose"},
          {"window",
           {{"label", WindowLabel(r.window)},
            {"start_ns", r.window.start_ns},
            {"end_ns", r.window.end_ns},
            {"length_ns", r.window.length()}}},
          {"gpu_span_ns", r.gpu_span_ns},
          {"busy_ns", r.busy_ns},
          {"overlap_ns", r.overlap_ns},
          {"idle",
           {{"idle_ns", account.idle_ns},
            {"reported_apart_ns", account.reported_apart_ns},
            {"idle_costs_ns", account.idle_costs_ns},
            {"unclaimed_ns", account.unclaimed_ns},
            {"busy_costs_ns", account.busy_costs_ns}}},
          {"steps", steps},
          {"ranked_by", r.ranked.empty() ? "check_order" : "estimated_saving"},
          {"saving_note", DiagnoseSavingNote()},
          {"primary", primary},
          {"findings", findings},
          {"combined", combined},
          {"notes", notes},
          {"over_memory", r.over_memory ? GraphOverMemoryJson(*r.over_memory) : nlohmann::json(nullptr)}};
}

void RenderDiagnoseText(const DiagnoseResult& r, const TraceModel& m, std::ostream& out, const std::string& indent) {
  out << indent << "Diagnosis (" << WindowLabel(r.window) << ", " << FormatDuration(r.window.length()) << "; GPU span "
      << FormatDuration(r.gpu_span_ns) << ", busy " << FormatDuration(r.busy_ns) << ", ops overlapped "
      << FormatDuration(r.overlap_ns)
      << "). Checked in order: hardware, memory type, dependencies, hidden sync, CPU starvation, contention, "
         "small work.\n";
  if (!r.findings.empty()) {
    if (r.over_memory) {
      out << indent
          << "  Ranked by measured cost: the dependency graph the estimated savings are replayed on did not fit "
             "in memory (see the note).\n";
    } else {
      out << indent << "  " << (r.ranked.empty() ? "Findings in check order. " : "Ranked by estimated saving. ")
          << DiagnoseSavingNote() << "\n";
    }
    const IdleAccount a = AccountIdle(r);
    out << indent << "  Idle " << FormatDuration(a.idle_ns) << " (each ns one cause, as in gap causes): findings own "
        << FormatDuration(a.idle_costs_ns) << ", " << FormatDuration(a.reported_apart_ns)
        << " is window edges and first launches (reported apart), " << FormatDuration(a.unclaimed_ns)
        << " no finding's; costs on busy time (slow copies, lost overlap, contention), a separate budget: "
        << FormatDuration(a.busy_costs_ns) << ".\n";
  }
  if (r.findings.empty()) {
    out << indent << "  No cause found: nothing in this window explains missing overlap or a lost gain.\n";
  } else if (r.primary() == nullptr) {
    out << indent << "  No significant cause (every finding cost less than 1% of the GPU span).\n";
  }
  bool minor_header = false, no_gain_header = false;
  // Causes acting together come after the leading findings.
  bool combined_shown = !r.combined.reported;
  auto show_combined = [&] {
    if (combined_shown) return;
    out << indent << "  " << DiagnoseCombinedText(r.combined) << "\n";
    combined_shown = true;
  };
  const std::vector<int32_t> order = r.RankOrder();
  const DiagnoseFinding* primary = r.primary();
  for (size_t i = 0; i < order.size(); ++i) {
    const DiagnoseFinding& f = r.findings[order[i]];
    const bool lesser = r.ranked.empty() ? !f.significant : static_cast<int32_t>(i) >= r.leading_count;
    if (lesser) show_combined();
    // Ranked: a significant cost whose removal the estimate says would not
    // end the window sooner is not minor; it says why (DiagnoseCostAndSaving).
    if (lesser && !r.ranked.empty() && f.significant && !no_gain_header) {
      out << indent
          << "  Costs that would not end the window sooner by the estimates (saving below 1% of the GPU span):\n";
      no_gain_header = true;
    } else if (lesser && !minor_header && (r.ranked.empty() || !f.significant)) {
      out << indent
          << (r.ranked.empty() ? "  Minor findings:\n"
              : r.over_memory  ? "  Minor findings (cost below 1% of the GPU span):\n"
                               : "  Minor findings (cost and estimated saving below 1% of the GPU span):\n");
      minor_header = true;
    }
    out << indent << "  " << (i + 1) << ". [" << DiagnoseStepName(StepOf(f.cause)) << "] " << DiagnoseCauseName(f.cause)
        << ": " << DiagnoseCostAndSaving(f, r.gpu_span_ns) << (&f == primary ? "  <- primary cause" : "") << "\n";
    out << indent << "     " << DiagnoseSummary(f, m) << "\n";
    if (!f.ops.empty()) {
      out << indent << "     ops:";
      for (size_t k = 0; k < f.ops.size(); ++k) {
        out << (k == 0 ? " " : "; ") << OpLabel(m, f.ops[k]) << " at +"
            << FormatDuration(m.ops.start_ns[f.ops[k]] - r.window.start_ns) << " for "
            << FormatDuration(m.ops.end_ns[f.ops[k]] - m.ops.start_ns[f.ops[k]]);
      }
      out << "\n";
    }
    if (!f.calls.empty()) {
      out << indent << "     calls:";
      for (size_t k = 0; k < f.calls.size(); ++k) out << (k == 0 ? " " : "; ") << CallLabel(m, f.calls[k]);
      out << "\n";
    }
    out << indent << "     remedy: " << DiagnoseRemedy(f) << "\n";
  }
  show_combined();
  for (const std::string& n : NoteTexts(r)) out << indent << "  note: " << n << "\n";
}

void InstanceCauses::Add(DiagnoseResult result) {
  if (instances_++ == 0) name_ = InstancesName(WindowLabel(result.window));
  std::vector<int> seen;  // a cause can be found more than once per window (per device)
  for (const DiagnoseFinding& f : result.findings) {
    Cause& c = causes_[static_cast<int>(f.cause)];
    c.impact_ns += f.impact_ns;
    if (std::find(seen.begin(), seen.end(), static_cast<int>(f.cause)) != seen.end()) continue;
    seen.push_back(static_cast<int>(f.cause));
    c.windows += 1;
  }
  const DiagnoseFinding* primary = result.primary();
  if (primary == nullptr) {
    ++without_primary_;
    return;
  }
  Cause& c = causes_[static_cast<int>(primary->cause)];
  c.primary += 1;
  if (c.worst_label.empty() || primary->impact_ns > c.worst_ns) {
    c.worst_ns = primary->impact_ns;
    c.worst_label = WindowLabel(result.window);
  }
  if (!worst_ || primary->impact_ns > worst_->primary()->impact_ns) worst_ = std::move(result);
}

void InstanceCauses::Render(const TraceModel& model, std::ostream& out) const {
  std::vector<std::pair<int, Cause>> order(causes_.begin(), causes_.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second.primary != b.second.primary ? a.second.primary > b.second.primary
                                                : a.second.impact_ns > b.second.impact_ns;
  });
  out << "Diagnosis of " << instances_ << " windows (" << name_ << "). The primary cause of each:\n";
  for (const auto& [cause, c] : order) {
    if (c.primary == 0) continue;
    out << "  " << DiagnoseCauseName(static_cast<DiagnoseCause>(cause)) << ": primary in " << c.primary << " ("
        << FormatShare(c.primary, instances_) << "), worst " << c.worst_label << " (" << FormatDuration(c.worst_ns)
        << "); found in " << c.windows << " windows, " << FormatDuration(c.impact_ns) << " in all\n";
  }
  if (without_primary_ > 0) out << "  no significant cause: " << without_primary_ << " windows\n";
  std::vector<std::string> minor;
  for (const auto& [cause, c] : order) {
    if (c.primary == 0) {
      minor.push_back(absl::StrCat(std::string(DiagnoseCauseName(static_cast<DiagnoseCause>(cause))), " in ", c.windows,
                                   " (", FormatDuration(c.impact_ns), ")"));
    }
  }
  if (!minor.empty()) out << "  never primary: " << absl::StrJoin(minor, "; ") << "\n";
  out << "  One window in full: --nvtx-instance K; every window in full: --format json.\n";
  if (worst_) {
    out << "The window whose primary cause costs most, in full:\n";
    RenderDiagnoseText(*worst_, model, out);
  }
}

void RenderDiagnoseTraceHeader(const TraceModel& model, const TraceSummary& summary, std::ostream& out) {
  out << "Trace " << model.path << " (pid " << model.pid << ")";
  if (!summary.workload.variant.empty()) out << ", workload " << summary.workload.variant;
  if (!summary.workload.validation.empty()) out << ", validation " << summary.workload.validation;
  out << "\n";
}

nlohmann::json DiagnoseTraceJson(const TraceModel& model, const TraceSummary& summary, nlohmann::json windows) {
  return {{"path", model.path},
          {"pid", model.pid},
          {"workload", summary.workload.variant},
          {"validation", summary.workload.validation},
          {"windows", std::move(windows)}};
}

void RenderDiagnoseDocument(nlohmann::json traces, std::ostream& out) {
  nlohmann::json j = {{"schema_version", kDiagnoseJsonSchemaVersion},
                      {"generator", "streamscope diagnose"},
                      {"traces", std::move(traces)}};
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // names may not be UTF-8
}

}  // namespace streamscope
