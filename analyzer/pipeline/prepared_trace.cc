#include "analyzer/pipeline/prepared_trace.h"

#include <utility>

namespace streamscope {

absl::StatusOr<PreparedTrace> PrepareTrace(const TraceModel& model, const TracePreparation& what) {
  PreparedTrace t;
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
