// The plan lists what each analysis reads (WithDependencies) and RunPlan
// runs every plan through it: a plan that asks for the diagnosis alone
// diagnoses as the diagnose command does, from the analyses it turned on.
#include "analyzer/pipeline/analysis_plan.h"

#include <vector>

#include "analyzer/pipeline/run_plan.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/planted_traces.h"

namespace streamscope {
namespace {

TEST(AnalysisPlan, TheDiagnosisTurnsOnWhatItReads) {
  AnalysisPlan asked;
  asked.diagnose = true;
  AnalysisPlan plan = WithDependencies(asked);
  EXPECT_TRUE(plan.overlap && plan.gap_causes && plan.hidden_sync && plan.launch_stats);
  EXPECT_EQ(plan.overlap_options.max_ops_per_interval, 0);  // the diagnosis reads totals
  EXPECT_FALSE(plan.idle_gaps || plan.communication || plan.critical_path || NeedsHazards(plan));

  AnalysisPlan overlap;  // reads nothing: as asked
  overlap.overlap = true;
  overlap.overlap_options.max_ops_per_interval = 8;
  plan = WithDependencies(overlap);
  EXPECT_FALSE(plan.diagnose || plan.gap_causes || plan.hidden_sync || plan.launch_stats);
  EXPECT_EQ(plan.overlap_options.max_ops_per_interval, 8);
}

std::vector<DiagnoseCause> Ranking(const DiagnoseResult& r) {
  std::vector<DiagnoseCause> causes;
  for (int32_t i : r.RankOrder()) causes.push_back(r.findings[i].cause);
  return causes;
}

TEST(RunPlan, ADiagnosisAskedAloneIsTheDiagnoseCommands) {
  TraceModel m = testing::HostSleepTrace();
  const Window w = WholeTraceWindow(m);
  AnalysisPlan asked;
  asked.diagnose = true;
  absl::StatusOr<WindowResults> alone = RunPlan(m, w, asked);
  absl::StatusOr<WindowResults> command = RunPlan(m, w, DiagnosePlan({}));
  ASSERT_TRUE(alone.ok() && command.ok());
  ASSERT_NE(alone->diagnose.primary(), nullptr);
  EXPECT_EQ(alone->diagnose.primary()->cause, DiagnoseCause::kCpuStarvation);  // the 2 ms host sleeps
  EXPECT_EQ(Ranking(alone->diagnose), Ranking(command->diagnose));
  // What the diagnosis read is in the results too.
  EXPECT_EQ(alone->gap_causes.idle_ns, command->gap_causes.idle_ns);
  EXPECT_GT(alone->gap_causes.idle_ns, 0);
}

}  // namespace
}  // namespace streamscope
