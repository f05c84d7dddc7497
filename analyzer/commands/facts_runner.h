// `streamscope facts` and `streamscope merge-facts`: the two halves of the
// cross-rank analysis, for running it where the traces are (one task per
// trace on a Dask worker) and merging only the small facts.
//   facts: loads traces, resolves the window in each (the same rule as
//     report), and writes each process's rank facts (render/rank_facts_json.h).
//   merge-facts: reads facts documents in argument order and merges them
//     (analysis/ranks/cross_rank.h) into the cross-rank figures: the same object
//     `report --format json` writes as "combined"."ranks" for the same
//     traces and window, or the same text.
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_FACTS_RUNNER_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_FACTS_RUNNER_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/analysis/windows/window.h"

namespace streamscope {

struct FactsOptions {
  std::vector<std::string> traces;
  WindowSpec window;
  std::string output_path;  // "" = `out`
  bool force = false;       // replace an existing output file
};

// The facts to `out` (or output_path); notes (a window cut by --clip) to `err`.
absl::Status RunFacts(const FactsOptions& options, std::ostream& out, std::ostream& err);

struct MergeFactsOptions {
  enum class Format { kText, kJson };
  std::vector<std::string> facts;  // files; "-" = `in`
  Format format = Format::kJson;
  int top = 10;
  std::string output_path;
  bool force = false;
};

absl::Status RunMergeFacts(const MergeFactsOptions& options, std::istream& in, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_FACTS_RUNNER_H_
