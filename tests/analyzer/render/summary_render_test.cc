// The summary every report opens with (analyzer/render/summary_render.h):
// findings by the ranking's order, overlap against min(copy, compute), the
// line budget; and, end to end, on the recorded traces: no line of a report,
// diagnosis or comparison is wider than 120 columns.
#include "analyzer/render/summary_render.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/compare_runner.h"
#include "analyzer/commands/diagnose_runner.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/render/text_layout.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/bundled_traces.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::BundledSqliteTraces;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

DiagnoseFinding Finding(DiagnoseCause cause, int64_t impact_ns, bool estimated, int64_t saving_ns) {
  DiagnoseFinding f;
  f.cause = cause;
  f.impact_ns = impact_ns;
  f.significant = true;
  f.saving_estimated = estimated;
  f.estimated_saving_ns = saving_ns;
  return f;
}

class SummaryRender : public ::testing::Test {
 protected:
  SummaryRender() {
    testing::ModelBuilder b;
    b.Stream(13, StreamKind::kNonBlocking);
    b.Kernel("k", 13, 1'000, 2'000);
    model_ = b.Build();
    results_.window = {1'000, 11'000, {}};
    results_.window.origin.kind = WindowKind::kWholeTrace;
    DeviceGaps g;
    g.window_ns = 10'000;
    g.busy_ns = 4'000;
    g.idle_ns = 6'000;
    results_.idle.devices.push_back(g);
    DeviceOverlap o;
    o.copy_ns = 3'000;
    o.exposed_copy_ns = 2'000;  // 1 us of copy ran beside a kernel
    o.category_ns[static_cast<int>(OpCategory::kKernel)] = 2'000;
    results_.overlap.devices.push_back(o);
    results_.diagnose.gpu_span_ns = 10'000;
  }
  TraceModel model_;
  WindowResults results_;
};

TEST_F(SummaryRender, OverlapPossibleIsTheSmallerOfCopyAndComputeTime) {
  ReportSummary s = SummarizeWindow(results_, model_, WindowSpec{});
  EXPECT_EQ(s.overlap_ns, 1'000);
  EXPECT_EQ(s.overlap_possible_ns, 2'000);
  EXPECT_EQ(s.busy_ns, 4'000);
  EXPECT_EQ(s.idle_ns, 6'000);
  EXPECT_EQ(s.chosen_by, "default");
}

TEST_F(SummaryRender, FindingsFollowTheRankingNotTheCheckOrder) {
  results_.diagnose.findings = {Finding(DiagnoseCause::kPageableCopies, 5'000, true, 1'000),
                                Finding(DiagnoseCause::kSyncBetween, 2'000, true, 3'000),
                                Finding(DiagnoseCause::kCpuStarvation, 1'000, false, 0)};
  results_.diagnose.ranked = {1, 0, 2};
  results_.diagnose.leading_count = 3;
  ReportSummary s = SummarizeWindow(results_, model_, WindowSpec{});
  ASSERT_EQ(s.top.size(), 3u);
  EXPECT_EQ(s.top[0].cause, DiagnoseCause::kSyncBetween);
  EXPECT_EQ(s.top[0].estimated_saving_ns, 3'000);
  EXPECT_EQ(s.top[1].cause, DiagnoseCause::kPageableCopies);
  EXPECT_FALSE(s.top[2].saving_estimated);
  nlohmann::json j = SummaryToJson(s);
  EXPECT_EQ(j["top_findings"][0]["cause"], "sync_between");
  EXPECT_EQ(j["top_findings"][0]["finding_index"], 1);
  EXPECT_TRUE(j["top_findings"][2]["estimated_saving_ns"].is_null());
  EXPECT_EQ(j["overlap_possible_ns"], 2'000);
}

TEST_F(SummaryRender, AMeasuredCostWithNoSavingIsNotAChangeToMake) {
  // concurrent_kernels: the one significant finding (a sync, 26.5 us
  // measured) would not end the window sooner; the ranking leads with none.
  results_.diagnose.findings = {Finding(DiagnoseCause::kSyncBetween, 2'000, true, 0),
                                Finding(DiagnoseCause::kPageableCopies, 5'000, true, 3'000)};
  results_.diagnose.ranked = {1, 0};
  results_.diagnose.leading_count = 1;
  ReportSummary s = SummarizeWindow(results_, model_, WindowSpec{});
  ASSERT_EQ(s.top.size(), 1u);
  EXPECT_EQ(s.top[0].cause, DiagnoseCause::kPageableCopies);
  EXPECT_EQ(s.lesser_significant, 1);
  results_.diagnose.leading_count = 0;
  s = SummarizeWindow(results_, model_, WindowSpec{});
  EXPECT_TRUE(s.top.empty());
  std::string text = absl::StrJoin(SummaryTextLines(s, model_), "\n");
  EXPECT_NE(text.find("No change found that would end the window sooner by the estimates (2 findings"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("saves about 0 ns"), std::string::npos) << text;
}

TEST_F(SummaryRender, ALeadingSavingWithASmallMeasuredCostIsAChangeToMake) {
  // The diagnosis' primary cause on a synthetic 10M-op loop: 156k syncs
  // that each idle the GPU a little (measured cost 0.49% of the span: not
  // significant on its own) whose removal ends the window 21% sooner. The
  // summary shows what the diagnosis leads with, not "No significant finding".
  results_.diagnose.findings = {Finding(DiagnoseCause::kCpuStarvation, 50, true, 100),
                                Finding(DiagnoseCause::kSyncBetween, 49, true, 2'100)};
  results_.diagnose.findings[0].significant = false;
  results_.diagnose.findings[1].significant = false;
  results_.diagnose.ranked = {1, 0};
  results_.diagnose.leading_count = 1;  // only sync_between's saving is significant
  ReportSummary s = SummarizeWindow(results_, model_, WindowSpec{});
  ASSERT_EQ(s.top.size(), 1u);
  EXPECT_EQ(s.top[0].cause, DiagnoseCause::kSyncBetween);
  EXPECT_EQ(s.top[0].estimated_saving_ns, 2'100);
  EXPECT_EQ(s.lesser_significant, 0);  // the minor one is not counted as a lesser significant one
  std::string text = absl::StrJoin(SummaryTextLines(s, model_), "\n");
  EXPECT_NE(text.find("1. sync_between: saves about 2.10 us (estimate)"), std::string::npos) << text;
  EXPECT_EQ(text.find("No significant finding"), std::string::npos) << text;
}

TEST_F(SummaryRender, WithoutARankingTheFindingsOrderAndMeasuredCostAreUsed) {
  results_.diagnose.findings = {Finding(DiagnoseCause::kPageableCopies, 5'000, false, 0),
                                Finding(DiagnoseCause::kSyncBetween, 2'000, false, 0)};
  results_.diagnose.findings[1].significant = false;  // minor: left out
  ReportSummary s = SummarizeWindow(results_, model_, WindowSpec{});
  ASSERT_EQ(s.top.size(), 1u);
  EXPECT_EQ(s.top[0].cause, DiagnoseCause::kPageableCopies);
  std::string text = absl::StrJoin(SummaryTextLines(s, model_), "\n");
  EXPECT_NE(text.find("pageable_copies: costs 5.00 us measured"), std::string::npos) << text;
  EXPECT_NE(text.find("cudaMallocHost"), std::string::npos) << text;
}

TEST_F(SummaryRender, TwoCopyBoundDirectionsAreToldApartByTheirDirection) {
  // simpleMultiCopy: H2D and D2H both keep a copy engine busy; the summary
  // must not print the same head twice.
  for (OpCategory dir : {OpCategory::kDtoH, OpCategory::kHtoD}) {
    DiagnoseFinding f = Finding(DiagnoseCause::kCopyBandwidthBound, 6'000, false, 0);
    CopyBoundFacts x;
    x.category = dir;
    f.facts = x;
    results_.diagnose.findings.push_back(f);
  }
  std::string text = absl::StrJoin(SummaryTextLines(SummarizeWindow(results_, model_, WindowSpec{}), model_), "\n");
  EXPECT_NE(text.find("1. copy_bandwidth_bound (D2H): costs 6.00 us measured"), std::string::npos) << text;
  EXPECT_NE(text.find("2. copy_bandwidth_bound (H2D): costs 6.00 us measured"), std::string::npos) << text;
}

TEST_F(SummaryRender, TheTextKeepsItsLineBudgetWithLongRemedies) {
  for (DiagnoseCause c : {DiagnoseCause::kContention, DiagnoseCause::kEventWait, DiagnoseCause::kPageableCopies,
                          DiagnoseCause::kSmallWork}) {
    results_.diagnose.findings.push_back(Finding(c, 1'000, true, 500));
  }
  std::vector<std::string> lines = SummaryTextLines(SummarizeWindow(results_, model_, WindowSpec{}), model_);
  EXPECT_LE(lines.size(), kSummaryMaxLines);
  for (const std::string& l : lines) EXPECT_LE(TextColumns(l), kSummaryColumns) << l;
}

std::string Report(ReportOptions options) {
  std::ostringstream out, err;
  EXPECT_EQ(ExitWith(RunReport(options, out, err), err), kExitOk) << err.str();
  return out.str();
}

TEST(SummaryReport, ThePageableTraceOpensWithPinnedMemoryAsTheChange) {
  ReportOptions options;
  options.traces = {"tests/data/pageable.sqlite"};
  options.sections = {"summary"};
  std::vector<std::string> lines = Lines(Report(options));
  ASSERT_FALSE(lines.empty());
  EXPECT_LE(lines.size(), kSummaryMaxLines);
  EXPECT_EQ(lines[0].rfind("Summary of window ", 0), 0u) << lines[0];
  std::string all;
  for (const std::string& l : lines) {
    EXPECT_LE(TextColumns(l), kSummaryColumns) << l;
    all += l + "\n";
  }
  EXPECT_NE(all.find("GPU 0: busy "), std::string::npos) << all;
  EXPECT_NE(all.find("possible"), std::string::npos) << all;
  EXPECT_NE(all.find("1. pageable_copies"), std::string::npos) << all;
  EXPECT_NE(all.find("cudaMallocHost"), std::string::npos) << all;
}

// The first line of `text` wider than the report's width, or "".
std::string FirstWideLine(const std::string& text) {
  for (const std::string& l : Lines(text)) {
    if (TextColumns(l) > kReportTextColumns) return l;
  }
  return "";
}

TEST(SummaryReport, TheFullReportStartsWithTheSummaryAndHasNoLineOver120Columns) {
  std::vector<std::string> traces = BundledSqliteTraces({"tests/data", "tests/data/nsys"});
  ASSERT_GE(traces.size(), 15u);
  for (const std::string& trace : traces) {
    ReportOptions options;
    options.traces = {trace};
    std::string text = Report(options);
    std::vector<std::string> lines = Lines(text);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0].rfind("Summary of window ", 0), 0u) << trace;
    EXPECT_EQ(FirstWideLine(text), "") << trace;
  }
}

TEST(SummaryReport, NoDiagnosisLineIsWiderThan120Columns) {
  for (const std::string& trace : BundledSqliteTraces({"tests/data", "tests/data/nsys"})) {
    DiagnoseCommandOptions options;
    options.traces = {trace};
    std::ostringstream out, err;
    EXPECT_EQ(ExitWith(RunDiagnose(options, out, err), err), kExitOk) << trace << ": " << err.str();
    ASSERT_NE(out.str().find("Diagnosis ("), std::string::npos) << trace << ":\n" << out.str();
    EXPECT_EQ(FirstWideLine(out.str()), "") << trace;
  }
}

TEST(SummaryReport, NoComparisonLineIsWiderThan120Columns) {
  const std::string seq = "tests/data/sequential.sqlite", ovl = "tests/data/overlapped.sqlite";
  for (const auto& [control, variant] : std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>{
           {{seq}, {ovl}},
           {{seq}, {"tests/data/pageable.sqlite"}},
           {{seq}, {"tests/data/racy.sqlite"}},
           {{"tests/data/launch_individual.sqlite"}, {"tests/data/launch_graph.sqlite"}},
           {{seq, seq, seq}, {ovl, ovl, ovl}}}) {  // several runs: the table shows [min..max, MAD]
    CompareCommandOptions options;
    options.control = control;
    options.variant = variant;
    std::ostringstream out;
    (void)RunCompare(options, out);  // a verdict other than VERIFIED is not an error here
    const std::string what = absl::StrJoin(control, " ") + " vs " + absl::StrJoin(variant, " ");
    ASSERT_NE(out.str().find("Verdict: "), std::string::npos) << what;
    EXPECT_EQ(FirstWideLine(out.str()), "") << what << ":\n" << out.str();
  }
}

TEST(SummaryReport, SectionsPrintOnlyWhatWasAskedFor) {
  ReportOptions options;
  options.traces = {"tests/data/pageable.sqlite"};
  options.sections = {"diagnose"};
  std::string text = Report(options);
  EXPECT_EQ(text.find("Summary of window"), std::string::npos) << text;
  EXPECT_EQ(text.find("Overlap on device"), std::string::npos) << text;
  EXPECT_NE(text.find("Diagnosis ("), std::string::npos) << text;
}

TEST(SummaryReport, AnUnknownSectionIsAUsageError) {
  ReportOptions options;
  options.traces = {"tests/data/pageable.sqlite"};
  options.sections = {"nonsense"};
  std::ostringstream out, err;
  EXPECT_EQ(ExitWith(RunReport(options, out, err), err), kExitUsage);
  EXPECT_NE(err.str().find("idle-gaps"), std::string::npos) << err.str();
}

TEST(SummaryReport, JsonWindowsCarryTheSummary) {
  ReportOptions options;
  options.traces = {"tests/data/pageable.sqlite"};
  options.format = ReportOptions::Format::kJson;
  nlohmann::json j = nlohmann::json::parse(Report(options));
  const nlohmann::json& s = j["traces"][0]["windows"][0]["summary"];
  ASSERT_TRUE(s.is_object()) << j.dump(1).substr(0, 2000);
  EXPECT_EQ(s["window"]["chosen_by"], "default");
  EXPECT_EQ(s["top_findings"][0]["cause"], "pageable_copies");
  EXPECT_LE(s["overlap_ns"].get<int64_t>(), s["overlap_possible_ns"].get<int64_t>());
}

}  // namespace
}  // namespace streamscope
