#include "analyzer/pipeline/analysis_plan.h"

#include <algorithm>
#include <climits>

namespace streamscope {

AnalysisPlan ReportPlan(bool tables, int top, int64_t gap_threshold_ns) {
  AnalysisPlan plan;
  plan.overlap = plan.idle_gaps = plan.communication = true;
  plan.gap_causes = plan.hidden_sync = plan.launch_stats = plan.diagnose = plan.critical_path = true;
  plan.ownership = plan.hazards = plan.timing_audit = plan.op_attribution = true;
  if (tables) {
    plan.overlap_options.max_ops_per_interval = -1;
    plan.hazard_options.max_listed = -1;
    plan.timing_audit_options.max_listed = INT32_MAX;
  } else {
    plan.overlap_options.max_intervals_per_pair = std::max(top, 0);
  }
  plan.idle_gaps_options.list_threshold_ns = gap_threshold_ns;
  plan.threads = true;
  return plan;
}

AnalysisPlan DiagnosePlan(const DiagnoseOptions& options) {
  AnalysisPlan plan;
  plan.diagnose = true;
  plan.diagnose_options = options;
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
  plan.idle_gaps = plan.diagnose = summary;
  plan.overlap_options.max_ops_per_interval = 8;
  plan.gap_causes_options.max_listed_gaps = static_cast<int>(std::min<int64_t>(max_gaps, INT32_MAX));
  return plan;
}

}  // namespace streamscope
