// The diagnosis of a window as the pipeline makes it (DiagnosePlan: ranked
// by the what-ifs), and the helpers its tests share to look at it.
#ifndef STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_DIAGNOSE_RANKED_H_
#define STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_DIAGNOSE_RANKED_H_

#include <string>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/run_plan.h"
#include "gtest/gtest.h"

namespace streamscope::testing {

inline DiagnoseResult DiagnoseThroughPipeline(const TraceModel& m, const Window& w) {
  absl::StatusOr<WindowResults> r = RunPlan(m, w, DiagnosePlan(DiagnoseOptions{}));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r->diagnose) : DiagnoseResult{};
}

// The finding of cause `c`, or nullptr.
inline const DiagnoseFinding* Find(const DiagnoseResult& r, DiagnoseCause c) {
  for (const DiagnoseFinding& f : r.findings) {
    if (f.cause == c) return &f;
  }
  return nullptr;
}

// "cause (cost N, saving M); ..." in ranking order, for failure messages.
inline std::string Ranking(const DiagnoseResult& r) {
  std::string s;
  for (int32_t i : r.RankOrder()) {
    const DiagnoseFinding& f = r.findings[i];
    s += std::string(DiagnoseCauseName(f.cause)) + " (cost " + std::to_string(f.impact_ns) + ", saving " +
         (f.saving_estimated ? std::to_string(f.estimated_saving_ns) : std::string("-")) + "); ";
  }
  return s;
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_DIAGNOSE_RANKED_H_
