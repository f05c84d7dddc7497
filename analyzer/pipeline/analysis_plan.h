// Which analyses run over a window, and with which options: the one place
// where `report`, `diagnose`, `compare`, `export` and the rank facts say
// what they need. RunPlan (run_plan.h) runs a plan; every command builds its
// plan with one of the functions below.
//
// A new analysis is a flag here (set by the plans that want it), a field in
// WindowResults and a call in RunPlan. One that reads another analysis'
// result takes it as an argument, and WithDependencies turns the other on
// with it.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_ANALYSIS_PLAN_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_ANALYSIS_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/diagnose_ranking.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/hidden_sync.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/memory/timing_audit.h"
#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"

namespace streamscope {

struct AnalysisPlan {
  bool overlap = false;
  bool idle_gaps = false;
  bool communication = false;
  // Communication figures of every device that ran a kernel or a peer copy,
  // communication or not (a rank's facts), instead of those with
  // communication only.
  bool communication_all_devices = false;
  bool gap_causes = false;
  // One row per instance of the steady state's repeated range or kernel
  // sequence inside the window (step_breakdown.h); reads the gap causes'
  // parts (WithDependencies turns them on with keep_parts).
  bool instances = false;
  bool hidden_sync = false;
  bool launch_stats = false;
  // Reads overlap, gap causes, hidden sync, launch statistics and its own
  // contention step (WithDependencies turns them on). Its findings are
  // ranked by what-if savings on the window's dependency graph
  // (diagnose_ranking.h).
  bool diagnose = false;
  // What the output shows of the diagnosis' ranking: a report's summary
  // alone or its instances need the what-if estimates (and the dependency
  // graph) only on some windows (RankingNeedsWhatIf).
  RankingShown ranking_shown;
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
  // Each op's launchers as well as the totals (CSV and --save tables).
  bool op_attribution_per_op = true;

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
  // No later window of the same model follows: the whole-trace facts that
  // only the analyses before the dependency graph read (hidden syncs, the
  // diagnosis' sync spans, the busy-time index) are dropped before it is
  // built. At 10M ops about 90 MiB less under the graph, the what-ifs and
  // the critical path; a later analysis that needs them builds them again.
  bool last_window = false;
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
// Whether a plan may build the dependency graph (the diagnosis' ranking, the
// critical path): its whole-trace facts are then worth building ahead,
// while the trace is prepared (TracePreparation::dependency_graph_facts).
bool NeedsDependencyGraph(const AnalysisPlan& plan);

// The analyses that others read, turned on with them (RunPlan runs every
// plan through it): the diagnosis reads overlap, gap causes, hidden sync and
// launch statistics (an overlap turned on here lists no ops per interval:
// the diagnosis reads totals); the instances read every gap cause part.
// The diagnosis' ranking and the critical path read the dependency graph,
// which RunPlan builds when either is on. Hidden synchronization and the
// critical path cite the gap causes (the one account of idle time).
AnalysisPlan WithDependencies(AnalysisPlan plan);

// `diagnose` (and compare's diagnosis of a variant): the diagnosis and what
// it reads.
AnalysisPlan DiagnosePlan(const DiagnoseOptions& options);

// A rank's facts (pipeline/ranks.h): communication per device, every
// device.
AnalysisPlan RankFactsPlan();

// `compare`: the figures of one run (overlap totals, gap causes, launch
// statistics, hazard counts).
AnalysisPlan ComparePlan();

// `export`: what the timeline's analysis tracks draw (overlap, gap causes
// with up to `max_gaps` gaps listed, hidden sync, launch statistics, the
// critical path); with `summary`, also idle gaps, the diagnosis and the
// instances, for the HTML page's summary, diagnosis and per-instance chart.
AnalysisPlan TimelinePlan(int64_t max_gaps, bool summary = false);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_ANALYSIS_PLAN_H_
