// The cross-rank pipeline: each trace's compact facts (RankFactsPlan over
// its windows, then ComputeRankFacts: analysis/ranks/rank_facts.h), and their
// merge (MergeRankFacts: analysis/ranks/cross_rank.h). `report A B ...` runs both
// in memory; `facts` the first, `merge-facts` the second.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_RANKS_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_RANKS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/analysis/ranks/rank_facts.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct RankInput {
  const TraceModel* model = nullptr;
  std::vector<Window> windows;     // the windows analyzed in this trace
  bool windows_are_steps = false;  // the instances of one NVTX range
};

absl::StatusOr<RankFacts> RunRankFacts(const TraceModel& model, const std::vector<Window>& windows,
                                       bool windows_are_steps);

// `facts` in argument order.
CrossRankResult RunRankMerge(const std::vector<RankFacts>& facts, int top);

// RunRankFacts of each input, then RunRankMerge.
absl::StatusOr<CrossRankResult> RunCrossRank(const std::vector<RankInput>& inputs, int top);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_RANKS_H_
