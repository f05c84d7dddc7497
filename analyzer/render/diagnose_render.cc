#include "analyzer/render/diagnose_render.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/analysis/trace_summary.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/units.h"

namespace streamscope {
namespace {

nlohmann::json CallJson(const TraceModel& m, int32_t api) {
  return {{"id", m.api.source_id[api]},
          {"name", std::string(m.strings.Get(m.api.name[api]))},
          {"tid", m.api.tid[api]},
          {"start_ns", m.api.start_ns[api]},
          {"end_ns", m.api.end_ns[api]}};
}

// The diagnoses of many windows (instances of one NVTX range), told as
// causes across the instances; only the worst instance is kept in full.
class InstanceCauses {
 public:
  void Add(DiagnoseResult result) {
    if (instances_++ == 0) name_ = InstancesName(result.window.label);
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
      c.worst_label = result.window.label;
    }
    if (!worst_ || primary->impact_ns > worst_->primary()->impact_ns) worst_ = std::move(result);
  }

  void Render(const TraceModel& model, std::ostream& out) const {
    std::vector<std::pair<int, Cause>> order(causes_.begin(), causes_.end());
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.second.primary != b.second.primary ? a.second.primary > b.second.primary
                                                  : a.second.impact_ns > b.second.impact_ns;
    });
    out << "Diagnosis of " << instances_ << " windows (" << name_ << "). The primary cause of each:\n";
    for (const auto& [cause, c] : order) {
      if (c.primary == 0) continue;
      out << "  " << DiagnoseCauseName(static_cast<DiagnoseCause>(cause)) << ": primary in " << c.primary << " ("
          << FormatShare(c.primary, instances_) << "), worst " << c.worst_label << " ("
          << FormatDuration(c.worst_ns) << "); found in " << c.windows << " windows, "
          << FormatDuration(c.impact_ns) << " in all\n";
    }
    if (without_primary_ > 0) out << "  no significant cause: " << without_primary_ << " windows\n";
    std::vector<std::string> minor;
    for (const auto& [cause, c] : order) {
      if (c.primary == 0) {
        minor.push_back(absl::StrCat(std::string(DiagnoseCauseName(static_cast<DiagnoseCause>(cause))), " in ", c.windows, " (",
                                     FormatDuration(c.impact_ns), ")"));
      }
    }
    if (!minor.empty()) out << "  never primary: " << absl::StrJoin(minor, "; ") << "\n";
    out << "  One window in full: --nvtx-instance K; every window in full: --format json.\n";
    if (worst_) {
      out << "The window whose primary cause costs most, in full:\n";
      RenderDiagnoseText(*worst_, model, out);
    }
  }

 private:
  struct Cause {
    int64_t primary = 0, windows = 0, impact_ns = 0, worst_ns = 0;
    std::string worst_label;
  };
  int64_t instances_ = 0, without_primary_ = 0;
  std::string name_;             // "NVTX 'step'"
  std::map<int, Cause> causes_;  // by DiagnoseCause
  std::optional<DiagnoseResult> worst_;
};

std::string CallLabel(const TraceModel& m, int32_t api) {
  return absl::StrCat(std::string(m.strings.Get(m.api.name[api])), "#", m.api.source_id[api], " (tid ",
                      m.api.tid[api], ", ", FormatDuration(m.api.end_ns[api] - m.api.start_ns[api]), ")");
}

}  // namespace

nlohmann::json DiagnoseToJson(const DiagnoseResult& r, const TraceModel& m) {
  nlohmann::json steps = nlohmann::json::array();
  for (int s = 0; s < kNumDiagnoseSteps; ++s) steps.push_back(std::string(DiagnoseStepName(static_cast<DiagnoseStep>(s))));
  nlohmann::json findings = nlohmann::json::array();
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const DiagnoseFinding& f = r.findings[i];
    nlohmann::json ops = nlohmann::json::array(), calls = nlohmann::json::array();
    for (int32_t op : f.ops) ops.push_back(OpRefJson(m, op));
    for (int32_t api : f.calls) calls.push_back(CallJson(m, api));
    nlohmann::json figures = nlohmann::json::object(), labels = nlohmann::json::object();
    for (const auto& [k, v] : f.figures) figures[k] = v;
    for (const auto& [k, v] : f.labels) labels[k] = v;
    findings.push_back({{"rank", i + 1},
                        {"step", std::string(DiagnoseStepName(StepOf(f.cause)))},
                        {"cause", std::string(DiagnoseCauseName(f.cause))},
                        {"primary", i == 0 && f.significant},
                        {"significant", f.significant},
                        {"impact_ns", f.impact_ns},
                        {"impact_share_of_gpu_span",
                         r.gpu_span_ns > 0 ? static_cast<double>(f.impact_ns) / static_cast<double>(r.gpu_span_ns) : 0.0},
                        {"impact_share_of_window",
                         r.window.length() > 0 ? static_cast<double>(f.impact_ns) / static_cast<double>(r.window.length()) : 0.0},
                        {"summary", f.summary},
                        {"remedy", f.remedy},
                        {"evidence", {{"ops", ops}, {"calls", calls}, {"tids", f.tids}}},
                        {"figures", figures},
                        {"labels", labels}});
  }
  nlohmann::json primary = nullptr;
  if (const DiagnoseFinding* p = r.primary()) {
    primary = {{"step", std::string(DiagnoseStepName(StepOf(p->cause)))}, {"cause", std::string(DiagnoseCauseName(p->cause))}};
  }
  return {{"analysis", "diagnose"},
          {"window", {{"label", r.window.label}, {"start_ns", r.window.start_ns}, {"end_ns", r.window.end_ns},
                      {"length_ns", r.window.length()}}},
          {"gpu_span_ns", r.gpu_span_ns},
          {"busy_ns", r.busy_ns},
          {"overlap_ns", r.overlap_ns},
          {"steps", steps},
          {"primary", primary},
          {"findings", findings},
          {"notes", r.notes}};
}

void RenderDiagnoseText(const DiagnoseResult& r, const TraceModel& m, std::ostream& out, const std::string& indent) {
  out << indent << "Diagnosis (" << r.window.label << ", " << FormatDuration(r.window.length()) << "; GPU span "
      << FormatDuration(r.gpu_span_ns) << ", busy "
      << FormatDuration(r.busy_ns) << ", ops overlapped " << FormatDuration(r.overlap_ns)
      << "). Checked in order: hardware, memory type, dependencies, hidden sync, CPU starvation, contention, "
         "small work.\n";
  if (r.findings.empty()) {
    out << indent << "  No cause found: nothing in this window explains missing overlap or a lost gain.\n";
  } else if (r.primary() == nullptr) {
    out << indent << "  No significant cause (every finding cost less than 1% of the GPU span).\n";
  }
  bool minor_header = false;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const DiagnoseFinding& f = r.findings[i];
    if (!f.significant && !minor_header) {
      out << indent << "  Minor findings:\n";
      minor_header = true;
    }
    out << indent << "  " << (i + 1) << ". [" << DiagnoseStepName(StepOf(f.cause)) << "] "
        << DiagnoseCauseName(f.cause) << ": " << FormatDuration(f.impact_ns) << " ("
        << FormatShare(f.impact_ns, r.gpu_span_ns) << " of the GPU span)"
        << (i == 0 && f.significant ? "  <- primary cause" : "") << "\n";
    out << indent << "     " << f.summary << "\n";
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
    out << indent << "     remedy: " << f.remedy << "\n";
  }
  for (const std::string& n : r.notes) out << indent << "  note: " << n << "\n";
}

int RunDiagnose(const DiagnoseCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) {
    err << "streamscope: diagnose needs a trace file\n";
    return kExitUsage;
  }
  nlohmann::json traces = nlohmann::json::array();
  bool first = true;
  for (const std::string& path : options.traces) {
    auto models = LoadTraceFile(path);
    if (!models.ok()) {
      err << "streamscope: " << models.status().message() << "\n";
      return ExitCodeFor(models.status());
    }
    for (const TraceModel& model : *models) {
      std::vector<Window> windows;
      if (options.window_given) {
        auto w = ResolveWindows(model, options.window);
        if (!w.ok()) {
          err << "streamscope: " << w.status().message() << "\n";
          return ExitCodeFor(w.status());
        }
        windows = *w;
      } else {
        bool has_measured = false;
        for (const NvtxRange& r : model.nvtx_ranges) has_measured |= model.strings.Get(r.name) == "measured";
        if (has_measured) {
          WindowSpec spec;
          spec.kind = WindowSpec::Kind::kNvtxRange;
          spec.nvtx_name = "measured";
          auto w = ResolveWindows(model, spec);
          if (!w.ok()) {
            err << "streamscope: " << w.status().message() << "\n";
            return ExitCodeFor(w.status());
          }
          windows = *w;
        } else if (model.ops.size() > 0) {
          Window w;
          w.start_ns = model.ops.start_ns.front();
          w.end_ns = w.start_ns + 1;
          for (int64_t e : model.ops.end_ns) w.end_ns = std::max(w.end_ns, e);
          w.label = "whole GPU activity";
          windows.push_back(w);
        } else {
          windows.push_back(WholeTraceWindow(model));
        }
      }
      TraceSummary summary = SummarizeTrace(model);
      nlohmann::json wj = nlohmann::json::array();
      if (options.format == DiagnoseCommandOptions::Format::kText) {
        if (!first) out << "\n";
        out << "Trace " << model.path << " (pid " << model.pid << ")";
        if (!summary.workload.variant.empty()) out << ", workload " << summary.workload.variant;
        if (!summary.workload.validation.empty()) out << ", validation " << summary.workload.validation;
        out << "\n";
        for (const std::string& w : summary.warnings) err << "streamscope: " << model.path << ": warning: " << w << "\n";
      }
      first = false;
      // Text over many instances of an NVTX range: the causes across them,
      // then the instance whose primary cause costs most, in full.
      const bool summarize =
          options.format == DiagnoseCommandOptions::Format::kText && windows.size() > kFullTextWindows;
      InstanceCauses causes;
      for (const Window& w : windows) {
        DiagnoseResult result = AnalyzeDiagnose(model, w, options.diagnose);
        if (summarize) {
          causes.Add(std::move(result));
        } else if (options.format == DiagnoseCommandOptions::Format::kText) {
          RenderDiagnoseText(result, model, out);
        } else {
          wj.push_back(DiagnoseToJson(result, model));
        }
      }
      if (summarize) causes.Render(model, out);
      if (options.format == DiagnoseCommandOptions::Format::kJson) {
        traces.push_back({{"path", model.path},
                          {"pid", model.pid},
                          {"workload", summary.workload.variant},
                          {"validation", summary.workload.validation},
                          {"windows", wj}});
      }
    }
  }
  if (options.format == DiagnoseCommandOptions::Format::kJson) {
    nlohmann::json j = {{"schema_version", kDiagnoseJsonSchemaVersion},
                        {"generator", "streamscope diagnose"},
                        {"traces", traces}};
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // names may not be UTF-8
  }
  return kExitOk;
}

}  // namespace streamscope
