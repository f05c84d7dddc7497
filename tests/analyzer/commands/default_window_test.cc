// One default window: report, diagnose and export analyse the same window of
// every bundled trace (the steady state, else the span of GPU activity).
#include <dirent.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/diagnose_runner.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/export/timeline_window.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/bundled_traces.h"

namespace streamscope {
namespace {

using testing::BundledSqliteTraces;

TEST(DefaultWindow, ReportDiagnoseAndExportAnalyseTheSameWindowOfEveryBundledTrace) {
  const std::vector<std::string> traces = BundledSqliteTraces();
  ASSERT_GE(traces.size(), 20u);
  for (const std::string& path : traces) {
    SCOPED_TRACE(path);
    ReportOptions report;
    report.traces = {path};
    report.format = ReportOptions::Format::kJson;
    report.sections = {"summary"};
    std::ostringstream rout, rerr;
    ASSERT_EQ(ExitWith(RunReport(report, rout, rerr), rerr), kExitOk) << rerr.str();
    const nlohmann::json r = nlohmann::json::parse(rout.str())["traces"][0]["windows"][0];

    DiagnoseCommandOptions diagnose;
    diagnose.traces = {path};
    diagnose.format = DiagnoseCommandOptions::Format::kJson;
    std::ostringstream dout, derr;
    ASSERT_EQ(ExitWith(RunDiagnose(diagnose, dout, derr), derr), kExitOk) << derr.str();
    const nlohmann::json d = nlohmann::json::parse(dout.str())["traces"][0]["windows"][0]["window"];
    EXPECT_EQ(d["start_ns"], r["start_ns"]);
    EXPECT_EQ(d["end_ns"], r["end_ns"]);

    auto models = LoadTraceFile(path);
    ASSERT_TRUE(models.ok()) << models.status();
    const TraceModel& m = models->front();
    absl::StatusOr<Window> e = ResolveExportWindow(m, WindowSpec{});
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->start_ns, r["start_ns"].get<int64_t>());
    EXPECT_EQ(e->end_ns, r["end_ns"].get<int64_t>());
    EXPECT_EQ(DefaultSteadyState(m).window.start_ns, r["start_ns"].get<int64_t>());
  }
}

}  // namespace
}  // namespace streamscope
