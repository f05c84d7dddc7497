// Renders a CompareResult as JSON and text (`streamscope compare` itself
// runs in analyzer/commands/compare_runner.cc). The JSON structure is
// documented in analyzer/COMPARE.md:
//   { "schema_version": 2, "generator": "streamscope compare",
//     "window_rule", "window": {rule, comparison, figure, text, compared, note},
//     "options": {noise_pct, goal, min_overlap_share},
//     "control": [run], "variant": [run],
//     "work": {same, reference, summary: {...}, differences: [...], occasional: [...]},
//     "validation": {passed, failures: [...], not_recorded},
//     "overlap_present",
//     "metrics": [{name, control: stats, variant: stats, change_ns, change_pct}],
//     "verdict": {verdict, verified, sentence, failed_conditions, figure, control_total_ns,
//                 variant_total_ns, saved_ns, saved_pct, noise_ns},
//     "diagnose": null or {path, pid, ...diagnose window JSON} }
#ifndef STREAMSCOPE_ANALYZER_RENDER_COMPARE_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_COMPARE_RENDER_H_

#include <ostream>
#include <string>

#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/compare.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// 2: the diagnose object's cpu_starvation labels top_api_name/top_nvtx_name
// (was top_detail).
inline constexpr int kCompareJsonSchemaVersion = 2;

nlohmann::json CompareToJson(const CompareResult& result);
void RenderCompareText(const CompareResult& result, std::ostream& out);

// The verdict in one paragraph: "Verified: same work, ..." or "Not
// verified: ..." with the figures behind it.
std::string CompareVerdictSentence(const CompareResult& result);
// The window rule in words: "NVTX range 'measured' (all instances, summed;
// every trace has it)", "whole GPU activity", ...
std::string CompareWindowRuleText(const CompareResult& result);
// "time per instance" (per instance) or "total interval": the verdict's figure.
std::string CompareFigureName(const CompareResult& result);
// How the runs are compared: "per instance (time per instance = ...;
// instances: control 12, variant 12)" or "over the whole window (...)".
std::string CompareModeText(const CompareResult& result);
// One certain hazard of the variant, naming the buffer and both ops; "" if none.
std::string CompareHazardSentence(const CompareResult& result);
// "kernel 'k': 8 instances vs 10", "H2D copies: 3 (...) vs 4 (...)".
std::string WorkDifferenceSentence(const WorkDifference& d);
// "control a.sqlite: failed: checksum" (the side, the path, the validation
// as recorded).
std::string ValidationFailureText(const RunValidationFailure& f);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_COMPARE_RENDER_H_
