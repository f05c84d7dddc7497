// Ranks a diagnosis' findings by what removing their cause would save
// (docs/DEFINITIONS.md "Ranking"): each finding gets the what-if estimate
// (what_if.h) of the causes it names, and DiagnoseResult::ranked orders the
// findings by it. The findings themselves keep the check order.
//
// Finding -> what-if causes (the finding's estimate is the largest saving
// among them: the causes are replayed one at a time, not together):
//   pageable_copies        pageable_copy (any device: copies at the pinned
//                          rate), or the held *Async calls no longer
//                          holding the host (copies at their measured time:
//                          a lower bound when no pinned rate is known)
//   same_stream            same_stream of the stream(s) the finding names
//   sync_between           sync of an explicit synchronize call, and every
//                          host wait of the window removed together (the
//                          explicit syncs and the pageable *Async copies
//                          that held the host: EstimateTogether)
//   implicit_sync_call     sync of a synchronous copy or a draining call
//   legacy_default_stream  legacy_stream
//   cpu_starvation         host_work (any NVTX range or unannotated)
//   round_trip             readback: the read-back calls and their waits
//                          take no time, the host work stays (the remedy
//                          tests the result less often, it does not remove
//                          the host's work); the facts also keep the host
//                          work of cpu_starvation removed alone and both
//                          together (in a host-bound loop the read-backs
//                          cost little: the host work is what the GPU waits
//                          for)
// Other causes (hardware, event waits, contention, small work) have no
// what-if: they keep saving_estimated false. Only the candidate causes a
// finding covers are replayed, and the host work (the combination below
// reads it): a cause no finding names changes no figure of the ranking.
//
// Causes acting together (DiagnoseResult::combined): the host's waits (the
// waits of sync_between), its work between calls (the host work of
// cpu_starvation) and the launch calls' blocking (launch_blocking), when at
// least two are present, are replayed each alone and all together.
// Reported when together saves at least 1.25x the best alone and more than
// the savings alone add up to, by at least the significance threshold:
// they act on the same gaps, and fixing one alone leaves the GPU waiting
// for the others (causes on different gaps only add up). Two replays more
// (the launches alone, all together), skipped when the idle time the
// savings alone leave is below the threshold (no combination could be
// reported).
//
// Ranking: (1) findings whose estimated saving reaches the significance
// threshold (max(min_impact_ns, min_impact_share x GPU span)), whatever
// their measured cost, and significant findings without a what-if, by
// estimated saving (their measured cost for those without one: the best
// figure they have), largest first, then a significant small_grid (the SM
// time kernels with small grids left empty: after the causes of idle time
// and lost overlap, small_grid.h); (2) the rest: first significant costs
// whose estimate says the window would not end sooner, then minor findings
// (cost and saving both below the threshold), largest saving then cost
// first. The primary cause is the first of (1); none when (1) is empty.
// Thread-safe: reads the model and the graph only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_RANKING_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_RANKING_H_

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/what_if.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// What-if options the ranking uses: a few candidates per kind (the
// costliest), enough to find each finding's largest saving; no replay
// with nothing changed (WhatIfOptions::replay_unchanged).
WhatIfOptions RankingWhatIfOptions();
// The same with each device's host link rate (host_link_rate.h), the
// pageable_copy what-if's rate when the trace has no pinned copies to match.
WhatIfOptions RankingWhatIfOptions(const TraceModel& model);

// Fills estimated_saving_ns / saving_estimated of every finding of
// `result` from `what_if` (EstimateSavings over the same window), then
// `result->ranked` and `result->primary_index`.
void RankDiagnoseFindings(const TraceModel& model, const WhatIfResult& what_if, const DiagnoseOptions& options,
                          DiagnoseResult* result);

// Whether a finding of `result` has a what-if cause (pageable copies, same
// stream, syncs, legacy stream, CPU starvation). Without one the ranking
// reads no estimate: RankDiagnoseFindings with an empty WhatIfResult ranks
// the same, and no dependency graph is needed.
bool RankingNeedsWhatIf(const DiagnoseResult& result);

// What a caller shows of the ranking. Each part of it may depend on an
// estimate; showing none of it needs none (RankingNeedsWhatIf below): the
// replays, and the dependency graph they run on, are the dearest part of a
// diagnosis.
struct RankingShown {
  // Every finding's estimate and place (the diagnose section, JSON).
  bool every_finding = true;
  // The leading findings, their estimates and order (a report's summary).
  // Any finding with a what-if cause may lead through its estimate,
  // significant or not (a measured cost under the threshold with a saving
  // over it), so only findings none of which has a what-if cause need no
  // estimate.
  bool leading = false;
  // Which finding is primary (the main finding of each NVTX instance):
  // likewise.
  bool primary = false;
};
// Whether what `shown` shows of the ranking of `result` depends on what-if
// estimates. When false, RankDiagnoseFindings with an empty WhatIfResult
// shows the same.
bool RankingNeedsWhatIf(const DiagnoseResult& result, const RankingShown& shown);

// The same, estimating the savings on `graph` (BuildDependencyGraph of the
// result's window). `detections`: the window's, as the diagnosis read them
// (DiagnoseInputs::detections), so that the hardware_queue and
// lazy_module_loading estimates replay the kernels their findings name;
// nullptr: the what-ifs find them again.
void RankDiagnoseFindings(const TraceModel& model, const DependencyGraph& graph, const DiagnoseOptions& options,
                          DiagnoseResult* result, const WindowDetections* detections = nullptr);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_RANKING_H_
