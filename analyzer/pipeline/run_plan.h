// The analysis pipeline: runs an AnalysisPlan over one window of a trace.
// Analyses only read the finalized model, so a plan may run them on
// several threads; results do not depend on it.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_RUN_PLAN_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_RUN_PLAN_H_

#include "absl/status/statusor.h"
#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/window_results.h"

namespace streamscope {

// Runs `plan`, with the analyses its analyses read (WithDependencies),
// over `window`. Ownership, hazards and the timing audit read
// `hazards` (PrepareHazards of the same model, once per trace) and are
// skipped when it is null. INVALID_ARGUMENT when the window ends before it
// starts.
absl::StatusOr<WindowResults> RunPlan(const TraceModel& model, const Window& window, const AnalysisPlan& plan,
                                      const TraceHazards* hazards = nullptr);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_RUN_PLAN_H_
