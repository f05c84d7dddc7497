// What RunPlan returns for one window: the result of every analysis the
// plan asked for (the others stay default-constructed).
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_WINDOW_RESULTS_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_WINDOW_RESULTS_H_

#include <cstdint>
#include <map>
#include <string>

#include "analyzer/analysis/causes/critical_path.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/hidden_sync.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/analysis/causes/op_attribution.h"
#include "analyzer/analysis/causes/step_breakdown.h"
#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/memory/ownership.h"
#include "analyzer/analysis/memory/timing_audit.h"
#include "analyzer/analysis/overlap_gaps/communication.h"
#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/window.h"

namespace streamscope {

struct WindowResults {
  Window window;
  OverlapResult overlap;
  IdleGapsResult idle;
  CommunicationResult communication;
  GapCausesResult gap_causes;  // without its parts (RunPlan drops them once read)
  StepBreakdown instances;
  HiddenSyncResult hidden_sync;
  LaunchStatsResult launch_stats;
  DiagnoseResult diagnose;
  CriticalPath critical_path;
  OwnershipResult ownership;
  HazardsResult hazards;
  std::map<std::string, int64_t> order_stats;  // the happens-before order's counters
  TimingAuditResult timing_audit;
  OpAttributionResult op_attribution;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_WINDOW_RESULTS_H_
