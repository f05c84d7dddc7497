#include "analyzer/pipeline/run_plan.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "analyzer/analysis/causes/critical_path.h"
#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/causes/diagnose_ranking.h"
#include "analyzer/analysis/causes/op_attribution.h"
#include "analyzer/analysis/causes/step_breakdown.h"
#include "analyzer/analysis/causes/window_detections.h"
#include "analyzer/analysis/overlap_gaps/busy_time_index.h"
#include "analyzer/analysis/overlap_gaps/contention.h"
#include "analyzer/base/threads.h"
#include "analyzer/pipeline/memory_budget.h"
#include "analyzer/pipeline/phase_timer.h"

namespace streamscope {

namespace {

// About the ops of the window (those that overlap its range): enough to
// decide on a thread.
size_t OpsIn(const TraceModel& model, const Window& window) {
  auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns);
  return last - first;
}

}  // namespace

absl::StatusOr<WindowResults> RunPlan(const TraceModel& model, const Window& window, const AnalysisPlan& planned,
                                      const TraceHazards* hazards) {
  if (window.end_ns < window.start_ns) {
    return absl::InvalidArgumentError(
        absl::StrCat(model.path, ": window [", window.start_ns, " ns, ", window.end_ns, " ns) ends before it starts"));
  }
  const AnalysisPlan plan = WithDependencies(planned);
  WindowResults w;
  w.window = window;
  const bool own_any = plan.overlap || plan.idle_gaps || plan.communication;
  auto own_analyses = [&] {
    if (plan.overlap) w.overlap = AnalyzeOverlap(model, window, plan.overlap_options);
    if (plan.idle_gaps) w.idle = AnalyzeIdleGaps(model, window, plan.idle_gaps_options);
    if (plan.communication) {
      w.communication = plan.communication_all_devices ? AnalyzeCommunicationAllDevices(model, window)
                                                       : AnalyzeCommunication(model, window);
    }
  };
  const bool threads = plan.threads && ThreadsAllowed();
  // The diagnosis' contention step reads only the model: it starts first,
  // on a third thread, so that it fills the time the other two wait on each
  // other (two cores: the three threads share them). A plan without
  // threads gives it one of its own only for a large window: below that a
  // thread costs more than it saves.
  std::optional<DiagnoseFinding> contention;
  TaskThreads contention_thread(plan.diagnose && (threads || OpsIn(model, window) >= kOpsWorthAThread));
  if (plan.diagnose) {
    contention_thread.Start([&] { contention = AnalyzeContention(model, window, plan.diagnose_options); });
  }
  // The dependency graph reads only the model too. Without a diagnosis
  // (an export's timeline) it is built, and the critical path found, on its
  // own thread from the start. With one, after the other analyses: its
  // buffers (about half a GiB at 1M ops) then come after theirs, not on top
  // of them (a full report at 1M ops: 1066 MiB peak built at once, 938 after).
  const bool graph_needed = plan.diagnose || plan.critical_path;
  // A graph that would not fit in memory is not built: the window is
  // reported without the what-if ranking and the critical path, and says
  // why (memory_budget.h). Asked again, with the heap of that moment, right
  // before a graph built after the other analyses.
  std::optional<GraphOverMemory> over_memory;
  auto skip_for_memory = [&] {
    over_memory = GraphDoesNotFit(EstimateGraphMemory(model, window));
    if (!over_memory) return false;
    over_memory->fits_from_ns = EarliestStartThatFits(model, window, over_memory->room_bytes);
    over_memory->window_end_ns = window.end_ns;
    if (plan.critical_path) {
      w.critical_path.window = window;
      w.critical_path.over_memory = over_memory;
    }
    return true;
  };
  const bool graph_first = graph_needed && threads && !plan.diagnose && !skip_for_memory();
  std::optional<DependencyGraph> graph;
  auto find_path = [&] {
    if (plan.critical_path) w.critical_path = FindCriticalPath(model, *graph);
  };
  TaskThreads graph_thread(threads);
  if (graph_first) {
    graph_thread.Start([&] {
      graph.emplace(BuildDependencyGraph(model, window));
      find_path();
    });
  }
  TaskThreads own(threads);
  own.Start(own_analyses);
  if (!threads && own_any) MarkPhase("overlap+gaps");
  if (plan.gap_causes) {
    w.gap_causes = AnalyzeGapCauses(model, window, plan.gap_causes_options);
    MarkPhase("gap_causes");
  }
  if (plan.instances) {
    w.instances = AnalyzeStepBreakdown(model, window, w.gap_causes);
    MarkPhase("instances");
  }
  std::vector<GapPart>().swap(w.gap_causes.parts);  // every gap's parts: only the instances read them
  if (plan.hidden_sync) {
    w.hidden_sync =
        AnalyzeHiddenSync(model, window, plan.hidden_sync_options, plan.gap_causes ? &w.gap_causes : nullptr);
    MarkPhase("hidden_sync");
  }
  absl::flat_hash_map<int32_t, int64_t>().swap(w.gap_causes.idle_by_call);  // read by hidden sync only
  if (plan.launch_stats) {
    // Here, not on the other thread: at 10M ops gap causes + hidden syncs +
    // launch statistics cost about what overlap + idle gaps cost.
    w.launch_stats = AnalyzeLaunchStats(model, window, plan.launch_stats_options);
    MarkPhase("launch_stats");
  }
  // The ops' attribution beside the diagnosis, which does not read it, on a
  // thread of its own for a large window (at 10M ops 0.75 s and 0.6 s). Not
  // beside the launch statistics: both at once took 2.1 GiB at 10M ops.
  TaskThreads attribution(threads && OpsIn(model, window) >= kOpsWorthAThread);
  if (plan.op_attribution) {
    attribution.Start([&] { w.op_attribution = AnalyzeOpAttribution(model, window, plan.op_attribution_per_op); });
  }
  if (threads) {
    own.Join();
    MarkPhase("overlap+gaps");
  }
  // Read by the diagnosis and again by its ranking's what-ifs: found once.
  std::optional<WindowDetections> detections;
  if (plan.diagnose) {
    contention_thread.Join();
    if (threads) MarkPhase("contention");
    detections.emplace(FindWindowDetections(model, window));
    w.diagnose = AnalyzeDiagnose(model, window, plan.diagnose_options,
                                 {w.overlap, w.gap_causes, w.hidden_sync, w.launch_stats, contention, *detections});
    if (plan.overlap) MarkPhase("diagnose");
  }
  attribution.Join();
  if (plan.op_attribution) MarkPhase("op_attribution");
  // The path cites the idle account's figures: every gap's parts, classified
  // again with the same options (kept from the first pass through the graph
  // and the what-ifs they cost about 400 MB of peak at 10M ops; classifying
  // again, a few tenths of a second).
  const bool cite_idle = plan.critical_path && plan.gap_causes;
  std::optional<GapCausesResult> path_gaps;
  auto classify_gaps_again = [&] {
    GapCausesOptions parts = plan.gap_causes_options;
    parts.keep_parts = true;
    parts.charge_calls = false;
    parts.max_listed_gaps = 0;
    path_gaps = AnalyzeGapCauses(model, window, parts);
  };
  // The ranking and the critical path share one dependency graph; a ranking
  // of findings without a what-if cause needs none, nor one of which the
  // output shows no estimate (a summary whose significant findings have no
  // what-if cause).
  if (graph_needed && !plan.critical_path && !graph_first && !RankingNeedsWhatIf(w.diagnose, plan.ranking_shown)) {
    RankDiagnoseFindings(model, WhatIfResult{}, plan.diagnose_options, &w.diagnose);
  } else if (graph_needed && (over_memory || (!graph_first && skip_for_memory()))) {
    if (plan.diagnose) {
      RankDiagnoseFindings(model, WhatIfResult{}, plan.diagnose_options, &w.diagnose);
      w.diagnose.over_memory = over_memory;
    }
  } else if (graph_needed) {
    if (graph_first) {
      graph_thread.Join();
      if (plan.overlap) MarkPhase("dependency_graph+critical_path");
    } else {
      if (plan.last_window) {  // the other threads are joined: nothing reads these facts now
        ForgetHiddenSyncFacts(model);
        ForgetDiagnoseFacts(model);
        model.derived->Forget<BusyTimeIndex>();
      }
      graph.emplace(BuildDependencyGraph(model, window));
      if (plan.last_window) ForgetDependencyGraphFacts(model);
      if (plan.overlap) MarkPhase("dependency_graph");
      // The path reads the graph's recorded times and binding edges, the
      // ranking its own replayed times: for a large window the path is found
      // beside the ranking. The ranking's two replay workers end apart (at
      // 10M ops the host work's replay 1.3-1.7 s, the syncs' 0.7-0.9 s) and
      // the path fills the core the shorter leaves. Its segments are kept in
      // blocks that fit where the graph's making freed memory (one array of
      // them raised the peak at 10M ops by 300 MB).
      const bool large = threads && OpsIn(model, window) >= kOpsWorthAThread;
      const bool path_beside = large && plan.critical_path;
      TaskThreads path_thread(path_beside);
      if (path_beside) path_thread.Start(find_path);
      if (plan.diagnose) RankDiagnoseFindings(model, *graph, plan.diagnose_options, &w.diagnose, &*detections);
      detections.reset();
      if (plan.overlap) MarkPhase("what_if");
      // What only the replays read goes: the path reads none of it, and what
      // follows has the room (on one thread, the path's segments).
      graph->DropReplayColumns();
      if (path_beside) {
        // The idle account's second pass reads only the model (at 10M ops
        // 0.45 s): beside the rest of the path.
        if (cite_idle) classify_gaps_again();
        path_thread.Join();
      } else {
        find_path();
      }
      if (plan.overlap) MarkPhase("critical_path");
    }
    graph.reset();  // before the hazards' own large buffers
  }
  if (cite_idle && !over_memory) {
    if (!path_gaps) classify_gaps_again();
    CiteIdleOnPath(*path_gaps, &w.critical_path);
    path_gaps.reset();
    if (plan.overlap) MarkPhase("critical_path_idle");
  }
  if (hazards != nullptr && (plan.ownership || plan.hazards || plan.timing_audit)) {
    if (plan.ownership) w.ownership = AnalyzeOwnership(model, hazards->accesses, window);
    if (plan.hazards) {
      w.hazards = SummarizeHazards(model, hazards->all, window, plan.hazard_options, hazards->stats);
      if (hazards->order) w.order_stats = hazards->order->stats();
    }
    if (plan.timing_audit) {
      w.timing_audit =
          AnalyzeTimingAudit(model, hazards->order ? &*hazards->order : nullptr, window, plan.timing_audit_options);
    }
    if (plan.timing_audit) MarkPhase("hazards+audit");
  }
  return w;
}

}  // namespace streamscope
