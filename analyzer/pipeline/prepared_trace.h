// What a command computes once per trace, before any window: the trace's
// summary, its default steady state, the windows asked for and, for plans
// that check memory accesses, the happens-before order and the hazards.
// report, diagnose, compare, export and facts prepare every trace here, then
// run their plan over its windows (run_plan.h).
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_PREPARED_TRACE_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_PREPARED_TRACE_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// What to prepare; each part is left empty unless asked for.
struct TracePreparation {
  bool summary = false;  // SummarizeTrace
  // The default steady state (the default window, and what lies apart
  // from it), when `windows` is the default window.
  bool default_window = false;
  const WindowSpec* windows = nullptr;  // the windows to resolve (ResolveWindows)
  bool hazards = false;                 // PrepareHazards (NeedsHazards of the plan)
  // The dependency graph's whole-trace facts (BuildDependencyGraphFacts),
  // built on a thread of their own while the rest is prepared, for a plan
  // that builds the graph (NeedsDependencyGraph) and may use threads: the
  // steady state is found on one core, and the other would wait.
  bool dependency_graph_facts = false;
};

struct PreparedTrace {
  TraceSummary summary;
  std::optional<SteadyState> default_window;
  std::vector<Window> windows;
  TraceHazards hazards;  // empty unless asked for
};

// In this order: summary, default steady state, windows (whose error
// returns before the hazards are built), hazards.
absl::StatusOr<PreparedTrace> PrepareTrace(const TraceModel& model, const TracePreparation& what);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_PREPARED_TRACE_H_
