#include "analyzer/render/compare_render.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analyzer/base/demangle.h"
#include "analyzer/base/units.h"
#include "analyzer/pipeline/compare_work.h"
#include "analyzer/render/compare_windows_render.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/render/diagnose_wording.h"
#include "analyzer/render/hazards_render.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/window_label.h"

namespace streamscope {

std::string ValidationFailureText(const RunValidationFailure& f) {
  return absl::StrCat(f.side, " ", f.path, ": ", f.validation);
}

std::string WorkDifferenceSentence(const WorkDifference& d) {
  if (d.expected_instances > 0 && d.actual_instances > 0) {  // per instance: counts over different instance counts
    auto in = [](int64_t n) { return absl::StrCat(" in ", n, n == 1 ? " instance" : " instances"); };
    std::string what = d.kind == "kernel" ? absl::StrCat("kernel '", d.key, "'")
                       : d.kind == "copy" ? absl::StrCat(d.key, " copies")
                                          : std::string("memsets");
    std::string actual =
        absl::StrCat(d.actual_count, d.kind == "kernel" ? "" : absl::StrCat(" (", FormatBytes(d.actual_bytes), ")"));
    std::string expected = absl::StrCat(
        d.expected_count, d.kind == "kernel" ? "" : absl::StrCat(" (", FormatBytes(d.expected_bytes), ")"));
    return absl::StrCat(what, " per instance: ", actual, in(d.actual_instances), " vs ", expected,
                        in(d.expected_instances));
  }
  if (d.kind == "kernel") {
    return absl::StrCat("kernel '", d.key, "': ", d.actual_count, " instances vs ", d.expected_count);
  }
  std::string what = d.kind == "copy" ? absl::StrCat(d.key, " copies") : std::string("memsets");
  return absl::StrCat(what, ": ", d.actual_count, " (", FormatBytes(d.actual_bytes), ", ", d.actual_bytes,
                      " bytes) vs ", d.expected_count, " (", FormatBytes(d.expected_bytes), ", ", d.expected_bytes,
                      " bytes)");
}

std::string CompareWindowRuleText(const CompareResult& r) {
  const CompareOptions& o = r.options;
  std::string instances =
      o.nvtx_instance ? absl::StrCat("instance ", *o.nvtx_instance) : std::string("all instances, summed");
  switch (r.window_rule) {
    case CompareWindowRule::kSteadyStateSameRange:
      return absl::StrCat("each run's steady state: NVTX range '", o.nvtx_name, "' (every run's steady state)");
    case CompareWindowRule::kNvtxMeasured:
      return absl::StrCat("NVTX range '", o.nvtx_name, "' (", instances,
                          "; every trace has it, the steady states are not all one range)");
    case CompareWindowRule::kSteadyStateMatched:
      return "each run's steady state (different NVTX ranges or kernel sequences, matched per instance)";
    case CompareWindowRule::kGpuSpanWorkDiffers:
      return "whole GPU activity of every run (the steady states do different work per instance)";
    case CompareWindowRule::kGpuSpanNoSteadyState:
      return "whole GPU activity of every run (not every run has a steady state)";
    case CompareWindowRule::kNvtx: return absl::StrCat("NVTX range '", o.nvtx_name, "' (", instances, ")");
    case CompareWindowRule::kWholeGpu: return "whole GPU activity";
  }
  return "";
}

std::string CompareFigureName(const CompareResult& r) {
  return r.per_instance ? "time per instance" : "total interval";
}

std::string CompareModeText(const CompareResult& r) {
  if (!r.per_instance) return "over the whole window (total interval: first GPU op start to last GPU op end)";
  std::string counts;
  for (int side = 0; side < 2; ++side) {
    std::vector<std::string> seen;
    for (const CompareRun& run : side == 0 ? r.control : r.variant) {
      std::string c = absl::StrCat(run.window.instances);
      if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
    }
    absl::StrAppend(&counts, side == 0 ? "control " : ", variant ", absl::StrJoin(seen, "/"));
  }
  return absl::StrCat("per instance (time per instance, with instance counts: ", counts, ")");
}

std::string CompareHazardSentence(const CompareResult& r) {
  if (r.hazard_run < 0 || static_cast<size_t>(r.hazard_run) >= r.variant.size()) return "";
  const CompareRun& run = r.variant[r.hazard_run];
  if (!run.first_certain_hazard || run.model == nullptr) return "";
  return HazardSentence(*run.model, *run.first_certain_hazard);
}

namespace {

std::string Pct(double pct) { return absl::StrFormat("%.1f%%", pct); }
std::string SignedDuration(int64_t ns) { return (ns > 0 ? "+" : "") + FormatDuration(ns); }
std::string SignedPct(double pct) { return absl::StrFormat("%+.1f%%", pct); }

// "kernel launch gaps fell from 3.1 ms to 0.4 ms" when they fell noticeably, else "".
// " per instance" when the metrics are per instance, else "".
std::string PerInstance(const CompareResult& r) { return r.per_instance ? " per instance" : ""; }

std::string LaunchSaving(const CompareResult& r) {
  const MetricComparison* gaps = r.Find("kernel_gap_ns");
  if (gaps == nullptr || gaps->control.median <= 0) return "";
  int64_t fell = gaps->control.median - gaps->variant.median;
  if (fell < 1000 || fell * 10 < gaps->control.median) return "";
  return absl::StrCat("kernel launch gaps fell from ", FormatDuration(gaps->control.median), " to ",
                      FormatDuration(gaps->variant.median), PerInstance(r), " (launch-time saving of ",
                      FormatDuration(fell), ")");
}

// The largest overlap pair of the variant: "compute|H2D 1.30 ms".
std::string LargestPair(const CompareResult& r) {
  const MetricComparison* best = nullptr;
  for (const MetricComparison& m : r.metrics) {
    if (m.name.rfind("overlap:", 0) == 0 && (best == nullptr || m.variant.median > best->variant.median)) best = &m;
  }
  if (best == nullptr || best->variant.median <= 0) return "";
  return absl::StrCat("; largest: ", best->name.substr(8), " ", FormatDuration(best->variant.median));
}

std::string WhyText(const CompareResult& r) {
  if (!r.diagnose) return "";
  const DiagnoseFinding* p = r.diagnose->primary();
  if (p == nullptr) return " Diagnose found no significant cause.";
  const TraceModel& model = *r.variant[r.diagnosed_run].model;
  return absl::StrCat(" Why (diagnose, primary cause ", std::string(DiagnoseCauseName(p->cause)),
                      "): ", DiagnoseSummary(*p, model), ".");
}

std::string ChangeText(const CompareResult& r) {
  return absl::StrCat(FormatDuration(r.control_total_ns), " -> ", FormatDuration(r.variant_total_ns));
}

}  // namespace

std::string CompareVerdictSentence(const CompareResult& r) {
  const MetricComparison* ov = r.Find("overlap_ns");
  const MetricComparison* busy = r.Find("busy_ns");
  int64_t overlap = ov ? ov->variant.median : 0;
  std::string noise = absl::StrCat("the noise threshold of ", FormatDuration(r.noise_ns), " (max of ",
                                   absl::StrFormat("%g", r.options.noise_pct), "% of the control ",
                                   r.per_instance ? "time per instance" : "total", " and the run-to-run spread)");
  std::string launch = LaunchSaving(r);
  std::string s;
  switch (r.verdict) {
    case CompareVerdict::kDifferentWork: {
      const RunWorkDifference& d = r.work_differences.front();
      s = absl::StrCat("Not verified: the runs did different work: ", d.side, " ", d.path, " vs ", r.reference_path,
                       ": ", WorkDifferenceSentence(d.difference));
      if (r.work_differences.size() > 1)
        absl::StrAppend(&s, " (and ", r.work_differences.size() - 1, " more differences)");
      absl::StrAppend(&s, ".");
      break;
    }
    case CompareVerdict::kValidationFailed:
      s = absl::StrCat("Not verified: the workload's validation failed: ",
                       ValidationFailureText(r.validation_failures.front()));
      if (r.validation_failures.size() > 1)
        absl::StrAppend(&s, " (and ", r.validation_failures.size() - 1, " more runs)");
      absl::StrAppend(&s, ".");
      break;
    case CompareVerdict::kHazard:
      s = absl::StrCat("Not verified: the variant has ", r.variant_certain_hazards,
                       " certain cross-stream hazards (accesses to the same bytes, one writing, that nothing "
                       "orders): ",
                       CompareHazardSentence(r),
                       " Whatever it saved, the overlap is not verified until an event wait or sync orders them.");
      break;
    case CompareVerdict::kNoOverlap:
      s = absl::StrCat("Not verified: no overlap in the variant (", FormatDuration(overlap),
                       " of concurrent GPU activity, below ", absl::StrFormat("%g", 100 * r.options.min_overlap_share),
                       "% of its ", FormatDuration(busy ? busy->variant.median : 0), " busy time", PerInstance(r),
                       ").");
      if (std::llabs(r.saved_ns) <= r.noise_ns) {
        absl::StrAppend(&s, " The ", CompareFigureName(r), " changed by ", SignedDuration(-r.saved_ns), " (",
                        ChangeText(r), "), within noise.");
      } else if (r.saved_ns > 0) {
        absl::StrAppend(&s, " The ", CompareFigureName(r), " still improved by ", FormatDuration(r.saved_ns), " (",
                        Pct(r.saved_pct), ", ", ChangeText(r), "): a gain that does not come from overlap",
                        launch.empty() ? "" : ": ", launch, ".");
      } else {
        absl::StrAppend(&s, " The ", CompareFigureName(r), " got worse by ", FormatDuration(-r.saved_ns), " (",
                        SignedPct(-r.saved_pct), ", ", ChangeText(r), ").");
      }
      absl::StrAppend(&s, WhyText(r));
      break;
    case CompareVerdict::kWithinNoise:
      s = absl::StrCat("Not verified: the ", CompareFigureName(r), " changed by ", SignedDuration(-r.saved_ns), " (",
                       SignedPct(-r.saved_pct), ", ", ChangeText(r), "), within ", noise, ".");
      if (r.options.goal == CompareGoal::kOverlap) {
        absl::StrAppend(&s, " Overlap is present (", FormatDuration(overlap), PerInstance(r), LargestPair(r),
                        ") but brings no measurable gain.");
      }
      absl::StrAppend(&s, WhyText(r));
      break;
    case CompareVerdict::kOverlapWithoutGain:
      s = absl::StrCat("Not verified: overlap is present in the variant (", FormatDuration(overlap), PerInstance(r),
                       LargestPair(r), ") but the ", CompareFigureName(r), " got worse by ",
                       FormatDuration(-r.saved_ns), " (", SignedPct(-r.saved_pct), ", ", ChangeText(r), ").",
                       WhyText(r));
      break;
    case CompareVerdict::kNoGain:
      s = absl::StrCat("Not verified: the ", CompareFigureName(r), " got worse by ", FormatDuration(-r.saved_ns), " (",
                       SignedPct(-r.saved_pct), ", ", ChangeText(r), ").", WhyText(r));
      break;
    case CompareVerdict::kVerified:
      s = absl::StrCat("Verified: same work, validation ",
                       r.validation_not_recorded > 0 ? "passed where recorded" : "passed",
                       r.options.goal == CompareGoal::kOverlap
                           ? absl::StrCat(", ", FormatDuration(overlap), " of overlap in the variant", PerInstance(r),
                                          LargestPair(r))
                           : std::string(),
                       "; the ", CompareFigureName(r), " fell from ", FormatDuration(r.control_total_ns), " to ",
                       FormatDuration(r.variant_total_ns), ": ", FormatDuration(r.saved_ns), " saved (",
                       Pct(r.saved_pct), "), beyond ", noise, ".");
      if (!launch.empty()) absl::StrAppend(&s, " Also: ", launch, ".");
      break;
  }
  return s;
}

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
  for (const auto& [name, count] : w.kernels) {
    kernels.push_back({{"name", Demangle(name)}, {"mangled_name", name}, {"count", count}});
  }
  nlohmann::json copies = nlohmann::json::array();
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (w.copy_count[c] == 0 && w.copy_bytes[c] == 0) continue;
    copies.push_back({{"direction", std::string(OpCategoryName(static_cast<OpCategory>(c)))},
                      {"count", w.copy_count[c]},
                      {"bytes", w.copy_bytes[c]}});
  }
  return {
      {"kernels", kernels}, {"copies", copies}, {"memsets", {{"count", w.memset_count}, {"bytes", w.memset_bytes}}}};
}

nlohmann::json RunJson(const CompareRun& run) {
  const std::string unit = RunWindowUnit(run.window);
  nlohmann::json windows = nlohmann::json::array();
  for (const Window& w : run.windows) {
    windows.push_back(
        {{"label", WindowLabel(w)}, {"start_ns", w.start_ns}, {"end_ns", w.end_ns}, {"length_ns", w.length()}});
  }
  return {{"path", run.path},
          {"pid", run.pid},
          {"workload", run.workload},
          {"validation", run.validation.empty() ? nlohmann::json() : nlohmann::json(run.validation)},
          {"windows", windows},
          {"window",
           {{"source", run.window.source},
            {"description", RunWindowDescription(run.window)},
            {"unit", unit.empty() ? nlohmann::json() : nlohmann::json(unit)},
            {"instances", run.window.instances}}},
          {"time_per_instance_ns", run.metrics.time_per_instance_ns},
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
    parts.push_back(absl::StrCat("'", ShortenName(Demangle(name), 50), "' x", count));
  }
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (w.copy_count[c] == 0) continue;
    parts.push_back(absl::StrCat(std::string(OpCategoryName(static_cast<OpCategory>(c))), " ", w.copy_count[c],
                                 " copies, ", FormatBytes(w.copy_bytes[c])));
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
  auto diff_json = [](const std::vector<RunWorkDifference>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const RunWorkDifference& d : list) {
      nlohmann::json j = {{"side", d.side},
                          {"path", d.path},
                          {"kind", d.difference.kind},
                          {"key", d.difference.key},
                          {"expected_count", d.difference.expected_count},
                          {"actual_count", d.difference.actual_count},
                          {"expected_bytes", d.difference.expected_bytes},
                          {"actual_bytes", d.difference.actual_bytes},
                          {"sentence", WorkDifferenceSentence(d.difference)}};
      if (d.difference.expected_instances > 0) {
        j["expected_instances"] = d.difference.expected_instances;
        j["actual_instances"] = d.difference.actual_instances;
      }
      out.push_back(std::move(j));
    }
    return out;
  };
  nlohmann::json diffs = diff_json(r.work_differences);
  const std::string note = CompareWindowNoteText(r.window_rule, r.window_note);
  std::vector<std::string> failures;
  for (const RunValidationFailure& f : r.validation_failures) failures.push_back(ValidationFailureText(f));
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
          {"window_rule", CompareWindowRuleText(r)},
          {"window",
           {{"rule", std::string(CompareWindowRuleName(r.window_rule))},
            {"comparison", r.per_instance ? "per_instance" : "whole_window"},
            {"figure", r.figure},
            {"text", CompareWindowRuleText(r)},
            {"compared", CompareModeText(r)},
            {"note", note.empty() ? nlohmann::json() : nlohmann::json(note)}}},
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
            {"differences", diffs},
            {"occasional", diff_json(r.occasional_work)}}},
          {"validation",
           {{"passed", r.validation_passed}, {"failures", failures}, {"not_recorded", r.validation_not_recorded}}},
          {"overlap_present", r.overlap_present},
          {"metrics", metrics},
          {"verdict",
           {{"verdict", std::string(CompareVerdictName(r.verdict))},
            {"verified", r.verdict == CompareVerdict::kVerified},
            {"sentence", CompareVerdictSentence(r)},
            {"failed_conditions", r.failed_conditions},
            {"hazard", r.hazard_run < 0 ? nlohmann::json(nullptr) : nlohmann::json(CompareHazardSentence(r))},
            {"figure", r.figure},
            {"control_total_ns", r.control_total_ns},
            {"variant_total_ns", r.variant_total_ns},
            {"saved_ns", r.saved_ns},
            {"saved_pct", r.saved_pct},
            {"noise_ns", r.noise_ns}}},
          {"diagnose", diagnose}};
}

void RenderCompareText(const CompareResult& r, std::ostream& final_out) {
  // Lines wrap at the report's width (text_layout.h); the metric table's
  // columns are as wide as their widest cell.
  std::ostringstream out;
  out << "streamscope compare: " << r.control.size() << " control run" << (r.control.size() == 1 ? "" : "s") << " vs "
      << r.variant.size() << " variant run" << (r.variant.size() == 1 ? "" : "s")
      << " (goal: " << CompareGoalName(r.options.goal) << ")\n";
  out << "Window: " << CompareWindowRuleText(r) << "\n";
  out << "Compared: " << CompareModeText(r) << "\n";
  if (std::string note = CompareWindowNoteText(r.window_rule, r.window_note); !note.empty()) {
    for (const std::string& line : WrapParagraph(note, kReportTextColumns, "Note: ", "  ")) {
      out << line << "\n";
    }
  }
  for (int side = 0; side < 2; ++side) {
    for (const CompareRun& run : side == 0 ? r.control : r.variant) {
      out << "  " << (side == 0 ? "control " : "variant ") << run.path;
      if (!run.workload.empty()) out << "  workload " << run.workload;
      out << "  validation " << (run.validation.empty() ? "not recorded" : run.validation) << "  total "
          << FormatDuration(run.metrics.total_interval_ns);
      if (r.per_instance) {
        out << "  per instance " << FormatDuration(run.metrics.time_per_instance_ns) << " x" << run.window.instances;
      }
      out << "\n";
      for (const std::string& line :
           WrapParagraph(RunWindowDescription(run.window), kReportTextColumns, "    window: ", "      ")) {
        out << line << "\n";
      }
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
  for (const RunWorkDifference& d : r.occasional_work) {
    out << (IsFewerReadbacks(d.difference)
                ? "  fewer small read-backs (results tested less often; listed, not counted as different work): "
                : "  not in every instance (listed, not counted as different work): ")
        << d.side << " " << d.path << ": " << WorkDifferenceSentence(d.difference) << "\n";
  }
  out << "Validation: ";
  if (r.validation_passed) {
    out << "passed"
        << (r.validation_not_recorded > 0
                ? absl::StrCat(" where recorded (not recorded in ", r.validation_not_recorded, " runs)")
                : std::string(" in every run"))
        << "\n";
  } else {
    out << "FAILED\n";
    for (const RunValidationFailure& f : r.validation_failures) out << "  " << ValidationFailureText(f) << "\n";
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

  if (r.per_instance) out << "Metrics per instance: each run's figures over its windows / its instances\n";
  std::vector<std::array<std::string, 4>> rows = {{"metric (median [min..max, MAD])", "control", "variant", "change"}};
  for (const MetricComparison& m : r.metrics) {
    std::string change = absl::StrCat(m.change_ns > 0 ? "+" : "", FormatDuration(m.change_ns));
    if (m.control.median != 0) absl::StrAppend(&change, absl::StrFormat(" (%+.1f%%)", m.change_pct));
    rows.push_back({MetricLabel(m.name), StatsText(m.control), StatsText(m.variant), change});
  }
  std::array<size_t, 3> width{};
  for (const auto& row : rows) {
    for (size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], TextColumns(row[c]));
  }
  for (const auto& row : rows) {
    for (size_t c = 0; c < width.size(); ++c) out << row[c] << std::string(width[c] + 2 - TextColumns(row[c]), ' ');
    out << row[3] << "\n";
  }
  out << "\nVerdict: " << CompareVerdictName(r.verdict) << "\n  " << CompareVerdictSentence(r) << "\n";
  if (r.diagnose && r.diagnosed_run >= 0) {
    const CompareRun& run = r.variant[r.diagnosed_run];
    out << "\nDiagnosis of the variant run " << run.path;
    if (r.reference) out << " (reference: control " << r.reference->source << ")";
    out << ":\n";
    RenderDiagnoseText(*r.diagnose, *run.model, out, "  ");
  }
  final_out << WrapLines(out.str(), kReportTextColumns);
}

}  // namespace streamscope
