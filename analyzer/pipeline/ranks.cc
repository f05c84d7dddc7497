#include "analyzer/pipeline/ranks.h"

#include <utility>

#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/run_plan.h"

namespace streamscope {

absl::StatusOr<RankFacts> RunRankFacts(const TraceModel& model, const std::vector<Window>& windows,
                                       bool windows_are_steps) {
  const AnalysisPlan plan = RankFactsPlan();
  std::vector<CommunicationResult> communication;
  communication.reserve(windows.size());
  for (const Window& w : windows) {
    absl::StatusOr<WindowResults> results = RunPlan(model, w, plan);
    if (!results.ok()) return results.status();
    communication.push_back(std::move(results->communication));
  }
  std::vector<const CommunicationResult*> per_window;
  for (const CommunicationResult& c : communication) per_window.push_back(&c);
  return ComputeRankFacts(model, windows, per_window, windows_are_steps);
}

CrossRankResult RunRankMerge(const std::vector<RankFacts>& facts, int top) { return MergeRankFacts(facts, top); }

absl::StatusOr<CrossRankResult> RunCrossRank(const std::vector<RankInput>& inputs, int top) {
  std::vector<RankFacts> facts;
  facts.reserve(inputs.size());
  for (const RankInput& input : inputs) {
    absl::StatusOr<RankFacts> f = RunRankFacts(*input.model, input.windows, input.windows_are_steps);
    if (!f.ok()) return f.status();
    facts.push_back(*std::move(f));
  }
  return RunRankMerge(facts, top);
}

}  // namespace streamscope
