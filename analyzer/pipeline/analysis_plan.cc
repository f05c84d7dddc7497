#include "analyzer/pipeline/analysis_plan.h"

#include <algorithm>
#include <climits>
#include <string_view>

namespace streamscope {

namespace {

// Turns on what the report section `name` shows.
void AddSection(std::string_view name, AnalysisPlan& plan) {
  if (name == "summary") {  // its figures and the diagnosis' leading findings
    plan.overlap = plan.idle_gaps = plan.gap_causes = plan.diagnose = true;
    plan.ranking_shown.leading = true;
  } else if (name == "instances") {
    // The window's instances (a row each); with many windows, each window's
    // busy share, copies and primary finding.
    plan.instances = plan.overlap = plan.idle_gaps = plan.diagnose = true;
    plan.ranking_shown.primary = true;
  } else if (name == "combined") {  // totals of busy, idle, compute and copy time
    plan.overlap = plan.idle_gaps = true;
  } else if (name == "overlap") {
    plan.overlap = true;
  } else if (name == "idle-gaps") {
    plan.idle_gaps = true;
  } else if (name == "communication") {
    plan.communication = true;
  } else if (name == "gap-causes") {
    plan.gap_causes = true;
  } else if (name == "hidden-sync") {
    plan.hidden_sync = true;
  } else if (name == "launch-stats") {
    plan.launch_stats = true;
  } else if (name == "diagnose") {
    // With the analyses it reads, at the report's options (WithDependencies
    // would list no ops per overlap interval).
    plan.diagnose = plan.overlap = plan.gap_causes = plan.hidden_sync = plan.launch_stats = true;
    plan.ranking_shown.every_finding = true;
  } else if (name == "critical-path") {
    plan.critical_path = true;
  } else if (name == "hazards") {
    plan.ownership = plan.hazards = true;
  } else if (name == "timing-audit") {
    plan.timing_audit = true;
  } else if (name == "launchers") {
    plan.op_attribution = true;
  }
  // "trace": the trace's own summary, computed for every report.
}

}  // namespace

AnalysisPlan ReportPlan(bool tables, int top, int64_t gap_threshold_ns, const std::vector<std::string>& sections) {
  AnalysisPlan plan;
  // Sections show parts of the ranking (AddSection says which).
  plan.ranking_shown.every_finding = sections.empty();
  if (sections.empty()) {
    plan.overlap = plan.idle_gaps = plan.communication = true;
    plan.gap_causes = plan.hidden_sync = plan.launch_stats = plan.diagnose = plan.critical_path = true;
    plan.instances = true;
    plan.ownership = plan.hazards = plan.timing_audit = plan.op_attribution = true;
  }
  for (const std::string& name : sections) AddSection(name, plan);
  plan.op_attribution_per_op = tables;
  if (tables) {
    plan.overlap_options.max_ops_per_interval = -1;
    plan.hazard_options.max_listed = -1;
    plan.timing_audit_options.max_listed = INT32_MAX;
  } else {
    plan.overlap_options.max_intervals_per_pair = std::max(top, 0);
  }
  plan.idle_gaps_options.list_threshold_ns = gap_threshold_ns;
  plan.threads = true;
  return WithDependencies(plan);
}

bool NeedsHazards(const AnalysisPlan& plan) { return plan.ownership || plan.hazards || plan.timing_audit; }

bool NeedsDependencyGraph(const AnalysisPlan& plan) { return plan.diagnose || plan.critical_path; }

AnalysisPlan WithDependencies(AnalysisPlan plan) {
  if (plan.diagnose) {
    if (!plan.overlap) {
      plan.overlap = true;
      plan.overlap_options.max_ops_per_interval = 0;
    }
    plan.gap_causes = plan.hidden_sync = plan.launch_stats = true;
  }
  // Hidden synchronization and the critical path cite the one account of
  // idle time: the gap causes, with the calls charged; the instances read
  // every part (the critical path classifies the gaps again: RunPlan).
  if (plan.hidden_sync || plan.critical_path || plan.instances) plan.gap_causes = true;
  plan.gap_causes_options.charge_calls = plan.hidden_sync;
  plan.gap_causes_options.keep_parts = plan.instances;
  return plan;
}

AnalysisPlan DiagnosePlan(const DiagnoseOptions& options) {
  AnalysisPlan plan;
  plan.diagnose = true;
  plan.diagnose_options = options;
  return WithDependencies(plan);
}

AnalysisPlan RankFactsPlan() {
  AnalysisPlan plan;
  plan.communication = plan.communication_all_devices = true;
  return plan;
}

AnalysisPlan ComparePlan() {
  AnalysisPlan plan;
  plan.overlap = plan.gap_causes = plan.launch_stats = plan.hazards = true;
  plan.overlap_options.max_ops_per_interval = 0;
  return plan;
}

AnalysisPlan TimelinePlan(int64_t max_gaps, bool summary) {
  AnalysisPlan plan;
  plan.overlap = plan.gap_causes = plan.hidden_sync = plan.launch_stats = true;
  plan.critical_path = true;
  plan.idle_gaps = plan.diagnose = plan.instances = summary;
  plan.overlap_options.max_ops_per_interval = 8;
  plan.gap_causes_options.max_listed_gaps = static_cast<int>(std::min<int64_t>(max_gaps, INT32_MAX));
  plan.threads = true;
  return WithDependencies(plan);
}

}  // namespace streamscope
