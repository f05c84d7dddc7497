// Compare and diagnose on recorded reference-workload traces
// (tests/data/<variant>.sqlite, recorded on a GPU with
// `streamscope run -o tests/data/<variant>.sqlite -- streamscope_workloads --variant <variant>`).
// Each test skips, saying which file is missing, when its traces are absent.
#include <sys/stat.h>

#include <string>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/commands/compare_runner.h"
#include "analyzer/pipeline/compare.h"
#include "analyzer/render/compare_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/diagnose_unranked.h"

namespace streamscope {
namespace {

std::string TracePath(const std::string& variant) { return "tests/data/" + variant + ".sqlite"; }

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Declares TraceModel `var` loaded from tests/data/<variant>.sqlite, or skips the test.
#define LOAD_TRACE_OR_SKIP(var, variant)                                        \
  if (!Exists(TracePath(variant))) {                                            \
    GTEST_SKIP() << TracePath(variant) << " is absent: record the '" << variant \
                 << "' workload on a GPU to run this test";                     \
  }                                                                             \
  auto var##_loaded = LoadSingleProcessTrace(TracePath(variant));               \
  ASSERT_TRUE(var##_loaded.ok()) << var##_loaded.status();                      \
  TraceModel var = std::move(*var##_loaded)

// The first instance of the NVTX range "measured" (the whole GPU activity if absent).
Window Measured(const TraceModel& m) {
  CompareOptions o;
  auto w = CompareWindows(m, o, /*use_nvtx=*/true);
  if (w.ok() && !w->empty()) return w->front();
  return CompareWindows(m, o, false)->front();
}

std::string Causes(const DiagnoseResult& r) {
  std::string s;
  for (const DiagnoseFinding& f : r.findings) {
    s += std::string(DiagnoseCauseName(f.cause)) + (f.significant ? " " : "(minor) ");
  }
  return s;
}

TEST(CompareRealTraces, SequentialVsOverlappedIsVerifiedWithItsSaving) {
  LOAD_TRACE_OR_SKIP(control, "sequential");
  LOAD_TRACE_OR_SKIP(variant, "overlapped");
  auto r = Compare({&control}, {&variant}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, CompareVerdict::kVerified) << CompareVerdictSentence(*r);
  EXPECT_TRUE(r->work_same);
  EXPECT_TRUE(r->validation_passed);
  EXPECT_EQ(r->validation_not_recorded, 0);
  EXPECT_TRUE(r->overlap_present);
  EXPECT_GT(r->saved_ns, 0);
  EXPECT_NE(CompareWindowRuleText(*r).find("'measured'"), std::string::npos) << CompareWindowRuleText(*r);
  const MetricComparison* pair = r->Find("overlap:compute|H2D");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->control.median, 0);
  EXPECT_GT(pair->variant.median, 0);
}

TEST(CompareRealTraces, SequentialVsPageableGotWorseAndNamesPageableCopies) {
  LOAD_TRACE_OR_SKIP(control, "sequential");
  LOAD_TRACE_OR_SKIP(variant, "pageable");
  auto r = Compare({&control}, {&variant}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NE(r->verdict, CompareVerdict::kVerified) << CompareVerdictSentence(*r);
  EXPECT_TRUE(r->work_same);
  EXPECT_LT(r->saved_ns, 0) << CompareVerdictSentence(*r);  // got worse
  EXPECT_NE(CompareVerdictSentence(*r).find("worse"), std::string::npos) << CompareVerdictSentence(*r);
  ASSERT_TRUE(r->diagnose.has_value());
  ASSERT_NE(r->diagnose->primary(), nullptr) << Causes(*r->diagnose);
  EXPECT_EQ(r->diagnose->primary()->cause, DiagnoseCause::kPageableCopies) << Causes(*r->diagnose);
  EXPECT_GT(r->diagnose->primary()->figures.at("H2D_slowdown"), 1.5);
}

TEST(CompareRealTraces, LaunchIndividualVsGraphReportsTheLaunchTimeSaving) {
  LOAD_TRACE_OR_SKIP(control, "launch_individual");
  LOAD_TRACE_OR_SKIP(variant, "launch_graph");
  CompareOptions o;
  o.goal = CompareGoal::kSpeedup;  // a CUDA graph removes launch gaps; it adds no overlap
  auto r = Compare({&control}, {&variant}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->work_same) << CompareVerdictSentence(*r);
  EXPECT_EQ(r->verdict, CompareVerdict::kVerified) << CompareVerdictSentence(*r);
  EXPECT_GT(r->saved_ns, 0);
  const MetricComparison* gaps = r->Find("kernel_gap_ns");
  ASSERT_NE(gaps, nullptr);
  EXPECT_LT(gaps->variant.median, gaps->control.median);
  // One cudaGraphLaunch replaces 500 launch calls: counted once, not per kernel.
  const MetricComparison* launch_api = r->Find("launch_api_ns");
  ASSERT_NE(launch_api, nullptr);
  EXPECT_LT(launch_api->variant.median, launch_api->control.median);
  EXPECT_NE(CompareVerdictSentence(*r).find("launch"), std::string::npos) << CompareVerdictSentence(*r);
}

struct PlantedCause {
  const char* variant;
  DiagnoseCause cause;
};

class DiagnoseRealTraces : public ::testing::TestWithParam<PlantedCause> {};

TEST_P(DiagnoseRealTraces, NamesThePlantedCauseFirst) {
  LOAD_TRACE_OR_SKIP(model, GetParam().variant);
  DiagnoseResult r = testing::DiagnoseUnranked(model, Measured(model), {});
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  EXPECT_EQ(r.primary()->cause, GetParam().cause) << Causes(r);
  if (GetParam().cause == DiagnoseCause::kCpuStarvation) {
    EXPECT_EQ(r.primary()->labels.at("top_nvtx_name"), "host_prepare");
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, DiagnoseRealTraces,
                         ::testing::Values(PlantedCause{"pageable", DiagnoseCause::kPageableCopies},
                                           PlantedCause{"legacy_default", DiagnoseCause::kLegacyDefaultStream},
                                           PlantedCause{"implicit_sync", DiagnoseCause::kImplicitSyncCall},
                                           PlantedCause{"cpu_starved", DiagnoseCause::kCpuStarvation}),
                         [](const ::testing::TestParamInfo<PlantedCause>& info) {
                           return std::string(info.param.variant);
                         });

}  // namespace
}  // namespace streamscope
