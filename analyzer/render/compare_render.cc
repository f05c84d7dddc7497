#include "analyzer/render/compare_render.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/render/units.h"

namespace streamscope {
namespace {

nlohmann::json StatsJson(const MetricStats& s) {
  return {{"median", s.median},
          {"min", s.min},
          {"max", s.max},
          {"mad", s.mad ? nlohmann::json(*s.mad) : nlohmann::json()},
          {"stdev", s.stdev ? nlohmann::json(*s.stdev) : nlohmann::json()},
          {"values", s.values}};
}

nlohmann::json WorkJson(const WorkSummary& w) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& [name, count] : w.kernels) kernels.push_back({{"name", name}, {"count", count}});
  nlohmann::json copies = nlohmann::json::array();
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (w.copy_count[c] == 0 && w.copy_bytes[c] == 0) continue;
    copies.push_back({{"direction", std::string(OpCategoryName(static_cast<OpCategory>(c)))},
                      {"count", w.copy_count[c]},
                      {"bytes", w.copy_bytes[c]}});
  }
  return {{"kernels", kernels},
          {"copies", copies},
          {"memsets", {{"count", w.memset_count}, {"bytes", w.memset_bytes}}}};
}

nlohmann::json RunJson(const CompareRun& run) {
  nlohmann::json windows = nlohmann::json::array();
  for (const Window& w : run.windows) {
    windows.push_back({{"label", w.label}, {"start_ns", w.start_ns}, {"end_ns", w.end_ns}, {"length_ns", w.length()}});
  }
  return {{"path", run.path},
          {"pid", run.pid},
          {"workload", run.workload},
          {"validation", run.validation.empty() ? nlohmann::json() : nlohmann::json(run.validation)},
          {"windows", windows},
          {"total_interval_ns", run.metrics.total_interval_ns},
          {"window_ns", run.metrics.window_ns},
          {"busy_ns", run.metrics.busy_ns},
          {"overlap_ns", run.metrics.overlap_ns},
          {"idle_ns", run.metrics.idle_ns},
          {"hazards",
           {{"checked", run.hazards_checked},
            {"certain", run.certain_hazards},
            {"certain_observed_concurrent", run.certain_hazards_observed},
            {"possible", run.possible_hazards}}}};
}

// "total interval" from "total_interval_ns", "overlap compute|H2D" from "overlap:compute|H2D".
std::string MetricLabel(const std::string& name) {
  std::string s = name;
  if (s.size() > 3 && s.ends_with("_ns")) s.resize(s.size() - 3);
  for (char& c : s) {
    if (c == '_' || c == ':') c = ' ';
  }
  if (name.rfind("overlap:", 0) == 0 || name.rfind("idle:", 0) == 0) s = "  " + s;
  return s;
}

std::string StatsText(const MetricStats& s) {
  std::string out = FormatDuration(s.median);
  if (s.values.size() > 1) absl::StrAppend(&out, " [", FormatDuration(s.min), "..", FormatDuration(s.max));
  if (s.mad) absl::StrAppend(&out, ", MAD ", FormatDuration(static_cast<int64_t>(*s.mad)));
  if (s.values.size() > 1) absl::StrAppend(&out, "]");
  return out;
}

std::string WorkText(const WorkSummary& w) {
  std::vector<std::string> parts;
  for (const auto& [name, count] : w.kernels) {
    parts.push_back(absl::StrCat("'", name.size() > 50 ? name.substr(0, 47) + "..." : name, "' x", count));
  }
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (w.copy_count[c] == 0) continue;
    parts.push_back(absl::StrCat(std::string(OpCategoryName(static_cast<OpCategory>(c))), " ", w.copy_count[c], " copies, ",
                                 FormatBytes(w.copy_bytes[c])));
  }
  if (w.memset_count > 0) parts.push_back(absl::StrCat(w.memset_count, " memsets, ", FormatBytes(w.memset_bytes)));
  if (parts.empty()) return "no GPU op";
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) absl::StrAppend(&s, i ? "; " : "", parts[i]);
  return s;
}

}  // namespace

nlohmann::json CompareToJson(const CompareResult& r) {
  nlohmann::json control = nlohmann::json::array(), variant = nlohmann::json::array();
  for (const CompareRun& run : r.control) control.push_back(RunJson(run));
  for (const CompareRun& run : r.variant) variant.push_back(RunJson(run));
  nlohmann::json diffs = nlohmann::json::array();
  for (const RunWorkDifference& d : r.work_differences) {
    diffs.push_back({{"side", d.side},
                     {"path", d.path},
                     {"kind", d.difference.kind},
                     {"key", d.difference.key},
                     {"expected_count", d.difference.expected_count},
                     {"actual_count", d.difference.actual_count},
                     {"expected_bytes", d.difference.expected_bytes},
                     {"actual_bytes", d.difference.actual_bytes},
                     {"sentence", WorkDifferenceSentence(d.difference)}});
  }
  nlohmann::json metrics = nlohmann::json::array();
  for (const MetricComparison& m : r.metrics) {
    metrics.push_back({{"name", m.name},
                       {"control", StatsJson(m.control)},
                       {"variant", StatsJson(m.variant)},
                       {"change_ns", m.change_ns},
                       {"change_pct", m.change_pct}});
  }
  nlohmann::json diagnose = nullptr;
  if (r.diagnose && r.diagnosed_run >= 0) {
    const CompareRun& run = r.variant[r.diagnosed_run];
    diagnose = DiagnoseToJson(*r.diagnose, *run.model);
    diagnose["path"] = run.path;
    diagnose["pid"] = run.pid;
    diagnose["reference"] = r.reference ? nlohmann::json(r.reference->source) : nlohmann::json();
  }
  return {{"schema_version", kCompareJsonSchemaVersion},
          {"generator", "streamscope compare"},
          {"window_rule", r.window_rule},
          {"options",
           {{"noise_pct", r.options.noise_pct},
            {"goal", std::string(CompareGoalName(r.options.goal))},
            {"min_overlap_share", r.options.min_overlap_share}}},
          {"control", control},
          {"variant", variant},
          {"work",
           {{"same", r.work_same},
            {"reference", r.reference_path},
            {"summary", WorkJson(r.control.front().work)},
            {"differences", diffs}}},
          {"validation",
           {{"passed", r.validation_passed},
            {"failures", r.validation_failures},
            {"not_recorded", r.validation_not_recorded}}},
          {"overlap_present", r.overlap_present},
          {"metrics", metrics},
          {"verdict",
           {{"verdict", std::string(CompareVerdictName(r.verdict))},
            {"verified", r.verdict == CompareVerdict::kVerified},
            {"sentence", r.sentence},
            {"failed_conditions", r.failed_conditions},
            {"hazard", r.hazard_sentence.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.hazard_sentence)},
            {"control_total_ns", r.control_total_ns},
            {"variant_total_ns", r.variant_total_ns},
            {"saved_ns", r.saved_ns},
            {"saved_pct", r.saved_pct},
            {"noise_ns", r.noise_ns}}},
          {"diagnose", diagnose}};
}

void RenderCompareText(const CompareResult& r, std::ostream& out) {
  out << "streamscope compare: " << r.control.size() << " control run" << (r.control.size() == 1 ? "" : "s")
      << " vs " << r.variant.size() << " variant run" << (r.variant.size() == 1 ? "" : "s") << " (goal: "
      << CompareGoalName(r.options.goal) << ")\n";
  out << "Window: " << r.window_rule << "\n";
  for (int side = 0; side < 2; ++side) {
    for (const CompareRun& run : side == 0 ? r.control : r.variant) {
      out << "  " << (side == 0 ? "control " : "variant ") << run.path;
      if (!run.workload.empty()) out << "  workload " << run.workload;
      out << "  validation " << (run.validation.empty() ? "not recorded" : run.validation) << "  total "
          << FormatDuration(run.metrics.total_interval_ns) << "\n";
    }
  }
  out << "\nWork: ";
  if (r.work_same) {
    out << "same in every run (" << WorkText(r.control.front().work) << ")\n";
  } else {
    out << "DIFFERENT from " << r.reference_path << " (" << WorkText(r.control.front().work) << "):\n";
    for (const RunWorkDifference& d : r.work_differences) {
      out << "  " << d.side << " " << d.path << ": " << WorkDifferenceSentence(d.difference) << "\n";
    }
  }
  out << "Validation: ";
  if (r.validation_passed) {
    out << "passed" << (r.validation_not_recorded > 0 ? absl::StrCat(" where recorded (not recorded in ",
                                                                     r.validation_not_recorded, " runs)")
                                                      : std::string(" in every run"))
        << "\n";
  } else {
    out << "FAILED\n";
    for (const std::string& f : r.validation_failures) out << "  " << f << "\n";
  }
  out << "Overlap in the variant: " << (r.overlap_present ? "present" : "absent") << "\n";
  {
    int64_t checked = 0, certain = 0, possible = 0;
    for (const CompareRun& run : r.variant) {
      checked += run.hazards_checked ? 1 : 0;
      certain += run.certain_hazards;
      possible += run.possible_hazards;
    }
    out << "Hazards in the variant: ";
    if (checked == 0) {
      out << "not checked (no memory_access records: record with --kinds +memory)\n\n";
    } else {
      out << certain << " certain, " << possible << " possible (kernel arguments)\n\n";
    }
  }

  const size_t label_w = 32, col_w = 40;
  auto pad = [](std::string s, size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s + " ";
  };
  out << pad("metric (median [min..max, MAD])", label_w) << pad("control", col_w) << pad("variant", col_w)
      << "change\n";
  for (const MetricComparison& m : r.metrics) {
    std::string change = absl::StrCat(m.change_ns > 0 ? "+" : "", FormatDuration(m.change_ns));
    if (m.control.median != 0) absl::StrAppend(&change, absl::StrFormat(" (%+.1f%%)", m.change_pct));
    out << pad(MetricLabel(m.name), label_w) << pad(StatsText(m.control), col_w) << pad(StatsText(m.variant), col_w)
        << change << "\n";
  }
  out << "\nVerdict: " << CompareVerdictName(r.verdict) << "\n  " << r.sentence << "\n";
  if (r.diagnose && r.diagnosed_run >= 0) {
    const CompareRun& run = r.variant[r.diagnosed_run];
    out << "\nDiagnosis of the variant run " << run.path;
    if (r.reference) out << " (reference: control " << r.reference->source << ")";
    out << ":\n";
    RenderDiagnoseText(*r.diagnose, *run.model, out, "  ");
  }
}

absl::StatusOr<TraceModel> LoadSingleProcessTrace(const std::string& path) {
  auto models = LoadTraceFile(path);
  if (!models.ok()) return models.status();
  int with_ops = 0, chosen = 0;
  for (size_t i = 0; i < models->size(); ++i) {
    if ((*models)[i].ops.size() > 0) {
      with_ops += 1;
      chosen = static_cast<int>(i);
    }
  }
  if (with_ops > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": holds ", with_ops, " processes with GPU work; compare needs one per file (split it with "
        "streamscope convert)"));
  }
  if (models->empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": holds no process"));
  return std::move((*models)[chosen]);
}

int RunCompare(const CompareCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.control.empty() || options.variant.empty()) {
    err << "streamscope: compare needs at least one control and one variant trace (CONTROL... -- VARIANT...)\n";
    return kExitUsage;
  }
  std::vector<std::unique_ptr<TraceModel>> models;
  std::vector<const TraceModel*> control, variant;
  for (int side = 0; side < 2; ++side) {
    for (const std::string& path : side == 0 ? options.control : options.variant) {
      auto m = LoadSingleProcessTrace(path);
      if (!m.ok()) {
        err << "streamscope: " << m.status().message() << "\n";
        return ExitCodeFor(m.status());
      }
      models.push_back(std::make_unique<TraceModel>(std::move(*m)));
      (side == 0 ? control : variant).push_back(models.back().get());
    }
  }
  auto result = Compare(control, variant, options.compare);
  if (!result.ok()) {
    err << "streamscope: " << result.status().message() << "\n";
    return ExitCodeFor(result.status());
  }
  if (options.format == CompareCommandOptions::Format::kJson) {
    out << CompareToJson(*result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // names may not be UTF-8
  } else {
    RenderCompareText(*result, out);
  }
  return result->verdict == CompareVerdict::kVerified ? kExitOk : kExitVerdictFailed;
}

}  // namespace streamscope
