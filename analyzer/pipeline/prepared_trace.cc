#include "analyzer/pipeline/prepared_trace.h"

#include <utility>

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/base/threads.h"

namespace streamscope {

absl::StatusOr<PreparedTrace> PrepareTrace(const TraceModel& model, const TracePreparation& what) {
  PreparedTrace t;
  TaskThreads graph_facts;
  if (what.dependency_graph_facts && ThreadsAllowed()) {
    graph_facts.Start([&model] { BuildDependencyGraphFacts(model); });
  }
  if (what.summary) t.summary = SummarizeTrace(model);
  if (what.default_window && what.windows != nullptr && what.windows->kind == WindowSpec::Kind::kDefault) {
    t.default_window = DefaultSteadyState(model);
  }
  if (what.windows != nullptr) {
    absl::StatusOr<std::vector<Window>> windows = ResolveWindows(model, *what.windows);
    if (!windows.ok()) return windows.status();
    t.windows = *std::move(windows);
  }
  if (what.hazards) t.hazards = PrepareHazards(model);
  return t;
}

}  // namespace streamscope
