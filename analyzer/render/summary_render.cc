#include "analyzer/render/summary_render.h"

#include <algorithm>
#include <sstream>
#include <variant>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/render/diagnose_wording.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

constexpr int kMaxDeviceLines = 3;

std::string Chosen(const ReportSummary& s) {
  std::string why = s.chosen_by == "default" ? "the default window" : absl::StrCat("picked with ", s.chosen_by);
  if (s.window_count > 1)
    absl::StrAppend(&why, s.longest ? "; the longest of " : "; the first of ", s.window_count, " windows");
  return why;
}

std::string FindingHead(const SummaryFinding& f, size_t rank) {
  std::string qualifier = f.qualifier.empty() ? "" : absl::StrCat(" (", f.qualifier, ")");
  return absl::StrCat("    ", rank, ". ", std::string(DiagnoseCauseName(f.cause)), qualifier, ": ",
                      SummarySavingText(f));
}

}  // namespace

std::string SummarySavingText(const SummaryFinding& f) {
  if (f.saving_estimated) {
    return absl::StrCat("saves about ", FormatDuration(f.estimated_saving_ns), " (estimate); costs ",
                        FormatDuration(f.impact_ns), " measured");
  }
  return absl::StrCat("costs ", FormatDuration(f.impact_ns), " measured (no saving estimate)");
}

std::string WindowChosenBy(const WindowSpec& spec) {
  switch (spec.kind) {
    case WindowSpec::Kind::kDefault: return "default";
    case WindowSpec::Kind::kWholeTrace: return "--window whole";
    case WindowSpec::Kind::kNvtxRange: return "--nvtx";
    case WindowSpec::Kind::kExplicit: return "--from/--to";
  }
  return "default";
}

ReportSummary SummarizeWindow(const WindowResults& r, const TraceModel& model, const WindowSpec& spec, int window_count,
                              bool longest, std::optional<int64_t> trace_start_ns) {
  ReportSummary s;
  s.longest = longest;
  s.window = r.window;
  s.chosen_by = WindowChosenBy(spec);
  s.window_count = window_count;
  s.trace_start_ns = trace_start_ns ? *trace_start_ns : WholeTraceWindow(model).start_ns;
  for (const DeviceGaps& g : r.idle.devices) {
    SummaryDevice d;
    d.device_id = g.device_id;
    d.window_ns = g.window_ns;
    d.busy_ns = g.busy_ns;
    d.idle_ns = g.idle_ns;
    for (const DeviceGapSummary& c : r.gap_causes.devices) {
      if (c.device_id == d.device_id) d.first_launch_ns = c.cause_ns[static_cast<int>(GapCause::kFirstLaunch)];
    }
    s.devices.push_back(d);
  }
  for (const DeviceOverlap& o : r.overlap.devices) {
    auto it = std::find_if(s.devices.begin(), s.devices.end(),
                           [&](const SummaryDevice& d) { return d.device_id == o.device_id; });
    if (it == s.devices.end()) {
      s.devices.push_back({});
      it = std::prev(s.devices.end());
      it->device_id = o.device_id;
    }
    it->copy_ns = o.copy_ns;
    it->compute_ns = o.category_ns[static_cast<int>(OpCategory::kKernel)];
    it->overlap_ns = o.copy_ns - o.exposed_copy_ns;
    it->overlap_possible_ns = std::min(it->copy_ns, it->compute_ns);
    s.any_pair_overlap_ns += o.overlap_ns;
  }
  for (const SummaryDevice& d : s.devices) {
    s.device_window_ns += d.window_ns;
    s.busy_ns += d.busy_ns;
    s.idle_ns += d.idle_ns;
    s.copy_ns += d.copy_ns;
    s.overlap_ns += d.overlap_ns;
    s.overlap_possible_ns += d.overlap_possible_ns;
  }
  const DiagnoseResult& dg = r.diagnose;
  s.diagnosed = !dg.findings.empty() || !dg.notes.empty() || dg.gpu_span_ns > 0;
  s.ranked = !dg.ranked.empty();
  s.over_memory = dg.over_memory.has_value();
  std::vector<int32_t> order = dg.ranked;
  if (order.empty()) {
    for (size_t i = 0; i < dg.findings.size(); ++i) order.push_back(static_cast<int32_t>(i));
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const int32_t i = order[k];
    if (i < 0 || static_cast<size_t>(i) >= dg.findings.size()) continue;
    const DiagnoseFinding& f = dg.findings[i];
    // Ranked: the leading findings are the changes to make, a small measured
    // cost with a large estimated saving among them (the diagnosis' primary
    // cause: 156k syncs that each idle the GPU a little, whose removal lets
    // every later submission run ahead); a measured cost that no estimate
    // says would shorten the window is not one.
    if (s.ranked) {
      if (k >= static_cast<size_t>(std::max(0, dg.leading_count))) {
        if (f.significant) ++s.lesser_significant;
        continue;
      }
    } else if (!f.significant) {
      continue;
    }
    if (static_cast<int>(s.top.size()) == kSummaryMaxFindings) continue;
    SummaryFinding x;
    x.finding = i;
    x.cause = f.cause;
    x.saving_estimated = f.saving_estimated;
    x.estimated_saving_ns = f.estimated_saving_ns;
    x.impact_ns = f.impact_ns;
    x.summary = DiagnoseSummary(f, model);
    if (const auto* c = std::get_if<CopyBoundFacts>(&f.facts)) x.qualifier = std::string(OpCategoryName(c->category));
    x.change = DiagnoseRemedy(f);
    s.top.push_back(std::move(x));
  }
  return s;
}

std::vector<std::string> SummaryTextLines(const ReportSummary& s, const TraceModel& model) {
  (void)model;
  std::vector<std::string> lines;
  // Every line within kSummaryColumns: a longer one continues on the next.
  auto add = [&lines](const std::string& line) {
    const std::string wrapped = WrapLines(line, kSummaryColumns);
    size_t from = 0;
    for (size_t nl = wrapped.find('\n'); nl != std::string::npos; nl = wrapped.find('\n', from)) {
      lines.push_back(wrapped.substr(from, nl - from));
      from = nl + 1;
    }
    lines.push_back(wrapped.substr(from));
  };
  add(absl::StrCat("Summary of window ", WindowLabel(s.window), ", ", FormatDuration(s.window.length()), " at ",
                   FormatOffset(s.window.start_ns - s.trace_start_ns), " (", Chosen(s), ")"));
  if (s.devices.empty()) {
    add("  No GPU op in the window.");
  } else if (static_cast<int>(s.devices.size()) <= kMaxDeviceLines) {
    for (const SummaryDevice& d : s.devices) {
      add(absl::StrCat(
          "  GPU ", d.device_id, ": busy ", FormatDuration(d.busy_ns), " (", FormatShare(d.busy_ns, d.window_ns),
          "), idle ", FormatDuration(d.idle_ns), " (", FormatShare(d.idle_ns, d.window_ns),
          // Module loading is reported apart (start-up line), not a cause to remove.
          d.first_launch_ns > 0 ? absl::StrCat("; ", FormatDuration(d.first_launch_ns), " in first launches") : "",
          ") of the window"));
    }
  } else {
    add(absl::StrCat("  ", s.devices.size(), " GPUs: busy ", FormatDuration(s.busy_ns), " (",
                     FormatShare(s.busy_ns, s.device_window_ns), "), idle ", FormatDuration(s.idle_ns), " (",
                     FormatShare(s.idle_ns, s.device_window_ns), ") of ", FormatDuration(s.device_window_ns),
                     " device time"));
  }
  if (!s.devices.empty()) {
    if (s.copy_ns == 0) {
      add(absl::StrCat("  Overlap: no copies in the window; ops of any two kinds overlapped ",
                       FormatDuration(s.any_pair_overlap_ns)));
    } else {
      add(absl::StrCat("  Overlap: copies beside kernels ", FormatDuration(s.overlap_ns), " of ",
                       FormatDuration(s.overlap_possible_ns), " possible (",
                       FormatShare(s.overlap_ns, s.overlap_possible_ns), "; possible = min(copy, compute))"));
    }
  }
  if (!s.diagnosed) return lines;
  if (s.top.empty() && s.lesser_significant > 0) {
    add(absl::StrCat("  No change found that would end the window sooner by the estimates (", s.lesser_significant,
                     s.lesser_significant == 1 ? " finding" : " findings",
                     " with a measured cost: report --section diagnose)."));
    return lines;
  }
  if (s.top.empty()) {
    add("  No significant finding (report --section diagnose lists the minor ones).");
    return lines;
  }
  add(s.over_memory ? "  Top findings by measured cost (no estimated savings: the dependency graph did not fit in "
                      "memory; report --section diagnose says more), each with the change to make:"
      : s.ranked    ? "  Top findings by estimated saving, each with the change to make:"
                    : "  Top findings (in the diagnosis' order), each with the change to make:");
  for (size_t i = 0; i < s.top.size(); ++i) {
    const SummaryFinding& f = s.top[i];
    std::vector<std::string> block = {FindingHead(f, i + 1)};
    for (std::string& l : WrapParagraph(f.change, kSummaryColumns, "       ", "       ")) block.push_back(std::move(l));
    if (lines.size() + block.size() > kSummaryMaxLines) {
      if (i == 0) {  // the first finding always shows, its change cut to the budget
        const size_t room = lines.size() < kSummaryMaxLines ? kSummaryMaxLines - lines.size() : 1;
        block.resize(std::max<size_t>(1, room));
        if (block.size() > 1 && TextColumns(block.back()) + 4 <= kSummaryColumns) block.back() += " ...";
      } else {
        break;
      }
    }
    for (std::string& l : block) lines.push_back(std::move(l));
  }
  return lines;
}

void RenderSummaryText(const ReportSummary& s, const TraceModel& model, std::ostream& out) {
  for (const std::string& l : SummaryTextLines(s, model)) out << l << "\n";
}

nlohmann::json SummaryToJson(const ReportSummary& s) {
  nlohmann::json devices = nlohmann::json::array();
  for (const SummaryDevice& d : s.devices) {
    devices.push_back({{"device_id", d.device_id},
                       {"window_ns", d.window_ns},
                       {"busy_ns", d.busy_ns},
                       {"idle_ns", d.idle_ns},
                       {"copy_ns", d.copy_ns},
                       {"compute_ns", d.compute_ns},
                       {"overlap_ns", d.overlap_ns},
                       {"overlap_possible_ns", d.overlap_possible_ns}});
  }
  nlohmann::json top = nlohmann::json::array();
  for (size_t i = 0; i < s.top.size(); ++i) {
    const SummaryFinding& f = s.top[i];
    top.push_back(
        {{"rank", i + 1},
         {"finding_index", f.finding},
         {"cause", std::string(DiagnoseCauseName(f.cause))},
         {"step", std::string(DiagnoseStepName(StepOf(f.cause)))},
         {"saving_estimated", f.saving_estimated},
         {"estimated_saving_ns", f.saving_estimated ? nlohmann::json(f.estimated_saving_ns) : nlohmann::json()},
         {"impact_ns", f.impact_ns},
         {"summary", f.summary},
         {"change", f.change}});
  }
  return {{"window",
           {{"label", WindowLabel(s.window)},
            {"start_ns", s.window.start_ns},
            {"end_ns", s.window.end_ns},
            {"length_ns", s.window.length()},
            {"chosen_by", s.chosen_by},
            {"windows", s.window_count}}},
          {"busy_ns", s.busy_ns},
          {"idle_ns", s.idle_ns},
          {"device_window_ns", s.device_window_ns},
          {"overlap_ns", s.overlap_ns},
          {"overlap_possible_ns", s.overlap_possible_ns},
          {"any_pair_overlap_ns", s.any_pair_overlap_ns},
          {"devices", devices},
          {"top_findings", top}};
}

}  // namespace streamscope
