// What the timeline exports show beyond the ops: the critical path as an
// analysis track, the HTML page opening on the analysed window, and the
// report's summary and diagnosis above the timeline.
#include <regex>
#include <string>

#include "analyzer/analysis/causes/critical_path.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/base/units.h"
#include "analyzer/export/html_report.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_window.h"
#include "analyzer/render/window_label.h"
#include "gtest/gtest.h"
#include "tests/analyzer/export/export_test_util.h"

namespace streamscope {
namespace {

using testing::LoadFixture;
using testing::ReadFile;
using testing::TempDir;

std::string WriteHtml(const TempDir& dir, const HtmlTimelineInput& in) {
  auto file = OutputFile::Create(dir / "page.html", true);
  EXPECT_TRUE(file.ok());
  absl::Status s = WriteHtmlReport({&in, 1}, HtmlReportOptions{}, file->get(), nullptr);
  EXPECT_TRUE(s.ok()) << s;
  return ReadFile(dir / "page.html");
}

class TimelineSummary : public ::testing::Test {
 protected:
  TempDir dir_;
  TraceModel model_ = LoadFixture(dir_);
  Window whole_ = WholeTraceWindow(model_);
};

TEST_F(TimelineSummary, TheCriticalPathIsATrackWithOneSlicePerSegment) {
  AnalysisTracks tracks = AnalyzeForTimeline(model_, whole_).value();
  CriticalPath path = FindCriticalPath(model_, whole_);
  ASSERT_FALSE(path.segments.empty());
  const AnalysisTrack* track = nullptr;
  for (const AnalysisTrack& t : tracks.tracks) {
    if (t.name == "critical path") track = &t;
  }
  ASSERT_NE(track, nullptr);
  EXPECT_EQ(track->group, "critical-path");
  EXPECT_EQ(track->device_id, -1);
  int64_t covered = 0, previous_end = INT64_MIN;
  size_t nonempty = 0;
  for (const PathSegment& s : path.segments) nonempty += s.end_ns > s.start_ns ? 1 : 0;
  ASSERT_EQ(track->slices.size(), nonempty);
  for (const AnalysisSlice& s : track->slices) {
    EXPECT_GE(s.start_ns, previous_end);  // in time order, disjoint
    previous_end = s.end_ns;
    covered += s.end_ns - s.start_ns;
    EXPECT_TRUE(s.args.contains("segment"));
  }
  EXPECT_EQ(covered, path.end_ns - path.start_ns);
}

TEST_F(TimelineSummary, ThePageOpensOnTheAnalysedWindow) {
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "iteration";
  spec.nvtx_instance = 3;
  Window view = ResolveWindows(model_, spec).value().front();
  AnalysisTracks tracks = AnalyzeForTimeline(model_, view).value();
  HtmlTimelineInput in{"", &model_, whole_, &tracks, view};
  std::string html = WriteHtml(dir_, in);
  EXPECT_NE(html.find("data-view-start-ns=\"" + std::to_string(view.start_ns) + "\""), std::string::npos);
  EXPECT_NE(html.find("data-view-end-ns=\"" + std::to_string(view.end_ns) + "\""), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex(R"re(data-view-start="([0-9.]+)" data-view-width="([0-9.]+)")re")));
  EXPECT_NEAR(std::stod(m[1]), (view.start_ns - whole_.start_ns) / 1e3, 1e-3);
  EXPECT_NEAR(std::stod(m[2]), view.length() / 1e3, 1e-3);
}

// The summary table gives the analysed window's label and length and counts
// its ops; the span drawn around it is a row of its own.
TEST_F(TimelineSummary, TheWindowRowIsTheAnalysedWindowNotTheDrawnSpan) {
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "iteration";
  spec.nvtx_instance = 3;
  Window view = ResolveWindows(model_, spec).value().front();
  ASSERT_LT(view.length(), whole_.length());
  HtmlTimelineInput in{"", &model_, whole_, nullptr, view};
  std::string html = WriteHtml(dir_, in);
  EXPECT_NE(html.find("<th>window</th><td>" + HtmlEscaped(WindowLabel(view)) + " — " + FormatDuration(view.length()) +
                      "</td>"),
            std::string::npos);
  EXPECT_EQ(html.find("<th>window</th><td>" + HtmlEscaped(WindowLabel(view)) + " — " + FormatDuration(whole_.length())),
            std::string::npos);
  EXPECT_NE(html.find("<th>drawn</th><td>" + FormatDuration(whole_.length())), std::string::npos);
  int64_t in_view = 0;
  for (size_t i = 0; i < model_.ops.size(); ++i) {
    in_view += InWindow(model_.ops.start_ns[i], model_.ops.end_ns[i], view) ? 1 : 0;
  }
  ASSERT_GT(in_view, 0);
  ASSERT_LT(in_view, static_cast<int64_t>(model_.ops.size()));
  EXPECT_NE(html.find("<th>ops in window</th><td>" + std::to_string(in_view) + "</td>"), std::string::npos);
}

TEST_F(TimelineSummary, WithoutAViewThePageOpensOnEverythingDrawn) {
  HtmlTimelineInput in{"", &model_, whole_, nullptr};
  std::string html = WriteHtml(dir_, in);
  EXPECT_NE(html.find("data-view-start=\"0.000\""), std::string::npos);
  EXPECT_NE(html.find("data-view-start-ns=\"" + std::to_string(whole_.start_ns) + "\""), std::string::npos);
}

TEST_F(TimelineSummary, TheSummaryAndThePrimaryFindingWithItsFixComeBeforeTheTimeline) {
  AnalysisTracks tracks;
  tracks.summary_lines = {"Summary of window whole trace, 1 ms at +0 ns (the default window)"};
  tracks.diagnosis = {{"pageable_copies", "costs 4.30 ms measured", "8 H2D copies used pageable host memory",
                       "allocate the host buffers with cudaMallocHost/cudaHostAlloc"},
                      {"sync_between", "costs 205 us measured", "1 explicit synchronization", "remove the syncs"}};
  HtmlTimelineInput in{"", &model_, whole_, &tracks, whole_};
  std::string html = WriteHtml(dir_, in);
  size_t summary = html.find("<pre class=\"report-summary\" id=\"report-summary\">Summary of window whole trace");
  size_t primary = html.find("<li class=\"finding primary\" data-cause=\"pageable_copies\">");
  size_t fix = html.find("<b>Fix:</b> allocate the host buffers with cudaMallocHost");
  size_t second = html.find("<li class=\"finding\" data-cause=\"sync_between\">");
  size_t timeline = html.find("<svg id=\"tl-svg\"");
  ASSERT_NE(summary, std::string::npos);
  ASSERT_NE(primary, std::string::npos);
  ASSERT_NE(fix, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  ASSERT_NE(timeline, std::string::npos);
  EXPECT_LT(summary, primary);
  EXPECT_LT(primary, fix);
  EXPECT_LT(fix, second);
  EXPECT_LT(second, timeline);
}

TEST_F(TimelineSummary, AnalysingWithASpecFillsTheSummaryAsTheReportWordsIt) {
  WindowSpec spec;
  AnalysisTracks tracks = AnalyzeForTimeline(model_, whole_, 200'000, &spec).value();
  ASSERT_FALSE(tracks.summary_lines.empty());
  EXPECT_EQ(tracks.summary_lines[0].rfind("Summary of window whole trace, ", 0), 0u) << tracks.summary_lines[0];
  EXPECT_NE(tracks.summary_lines[0].find("(the default window)"), std::string::npos);
  for (const DiagnosisItem& d : tracks.diagnosis) EXPECT_FALSE(d.remedy.empty()) << d.cause;
}

}  // namespace
}  // namespace streamscope
