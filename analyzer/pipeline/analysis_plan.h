// Which analyses run over a window, and with which options: the one place
// where `report`, `diagnose`, `compare` and `export` say what they need.
// RunPlan (run_plan.h) runs a plan; every command builds its plan with one
// of the functions below.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_ANALYSIS_PLAN_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_ANALYSIS_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/diagnose.h"
#include "analyzer/analysis/gap_causes.h"
#include "analyzer/analysis/hazards.h"
#include "analyzer/analysis/hidden_sync.h"
#include "analyzer/analysis/idle_gaps.h"
#include "analyzer/analysis/launch_stats.h"
#include "analyzer/analysis/overlap.h"
#include "analyzer/analysis/timing_audit.h"

namespace streamscope {

struct AnalysisPlan {
  bool overlap = false;
  bool idle_gaps = false;
  bool communication = false;
  bool gap_causes = false;
  bool hidden_sync = false;
  bool launch_stats = false;
  // Reuses the analyses above that ran; computes the ones it needs itself.
  // Its findings are ranked by what-if savings on the window's dependency
  // graph (diagnose_ranking.h).
  bool diagnose = false;
  // The window's critical path through host threads and GPU streams
  // (critical_path.h), on the same dependency graph as the ranking: a
  // report section and the export's timeline track.
  bool critical_path = false;
  // Need the trace's TraceHazards (PrepareHazards, once per trace).
  bool ownership = false;
  bool hazards = false;
  bool timing_audit = false;
  // Which PyTorch operator or annotation launched each GPU op (traces
  // with CPU-op or annotation ranges: torch.profiler imports).
  bool op_attribution = false;

  OverlapOptions overlap_options;
  IdleGapsOptions idle_gaps_options;
  GapCausesOptions gap_causes_options;
  HiddenSyncOptions hidden_sync_options;
  LaunchStatsOptions launch_stats_options;
  DiagnoseOptions diagnose_options;
  HazardOptions hazard_options;
  TimingAuditOptions timing_audit_options;

  // Overlap, idle gaps and communication on a second thread, the
  // diagnosis' contention step on a third, and without a diagnosis the
  // dependency graph (and critical path) on a third (STREAMSCOPE_THREADS=1
  // turns them off). Results are the same either way.
  bool threads = false;
};

// `report`: every analysis, or with `sections` (report section names,
// render/report_render.h) only the analyses those sections show and the
// ones they are derived from: `--section overlap` computes the overlap
// alone, not the diagnosis' what-if ranking. `tables`: CSV or --save, which
// carry every op of every overlap interval and every hazard; otherwise text
// and JSON list the `top` longest intervals.
AnalysisPlan ReportPlan(bool tables, int top, int64_t gap_threshold_ns, const std::vector<std::string>& sections = {});

// Whether a plan needs the trace's TraceHazards (PrepareHazards).
bool NeedsHazards(const AnalysisPlan& plan);

// `diagnose`: the diagnosis alone (it runs what it needs).
AnalysisPlan DiagnosePlan(const DiagnoseOptions& options);

// `compare`: the figures of one run (overlap totals, gap causes, launch
// statistics, hazard counts).
AnalysisPlan ComparePlan();

// `export`: what the timeline's analysis tracks draw (overlap, gap causes
// with up to `max_gaps` gaps listed, hidden sync, launch statistics, the
// critical path); with `summary`, also idle gaps and the diagnosis, for the
// HTML page's summary and diagnosis.
AnalysisPlan TimelinePlan(int64_t max_gaps, bool summary = false);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_ANALYSIS_PLAN_H_
