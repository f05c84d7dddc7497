// The diagnosis of a window with the inputs the pipeline gives it (the
// analyses DiagnosePlan reads, at its options), not ranked: the tests of
// the checks read the findings in check order.
#ifndef STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_DIAGNOSE_UNRANKED_H_
#define STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_DIAGNOSE_UNRANKED_H_

#include <optional>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/window_detections.h"
#include "analyzer/analysis/overlap_gaps/contention.h"
#include "analyzer/pipeline/analysis_plan.h"

namespace streamscope::testing {

// `detections`: the window's (window_detections.h); nullptr: found here.
inline DiagnoseResult DiagnoseUnranked(const TraceModel& m, const Window& w, const DiagnoseOptions& o = {},
                                       const WindowDetections* detections = nullptr) {
  const AnalysisPlan plan = DiagnosePlan(o);
  const OverlapResult overlap = AnalyzeOverlap(m, w, plan.overlap_options);
  const GapCausesResult gaps = AnalyzeGapCauses(m, w, plan.gap_causes_options);
  const HiddenSyncResult hidden = AnalyzeHiddenSync(m, w, plan.hidden_sync_options);
  const LaunchStatsResult launch = AnalyzeLaunchStats(m, w, plan.launch_stats_options);
  const std::optional<DiagnoseFinding> contention = AnalyzeContention(m, w, o);
  const WindowDetections found = detections != nullptr ? WindowDetections{} : FindWindowDetections(m, w);
  return AnalyzeDiagnose(m, w, o,
                         {overlap, gaps, hidden, launch, contention, detections != nullptr ? *detections : found});
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_DIAGNOSE_UNRANKED_H_
