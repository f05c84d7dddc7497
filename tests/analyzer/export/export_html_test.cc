// The self-contained HTML report: its markup (no network, the DOM contract
// the browser test and users rely on), downsampling of huge windows and the
// several-timelines form `compare` uses. The browser itself runs in
// tests/analyzer/export/html_browser_test.sh.
#include <regex>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/html_report.h"
#include "analyzer/export/op_downsampler.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_window.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "gtest/gtest.h"
#include "tests/analyzer/export/export_test_util.h"

namespace streamscope {
namespace {

using testing::LoadFixture;
using testing::ReadFile;
using testing::TempDir;

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) ++n;
  return n;
}

struct Html {
  std::string text;
  HtmlReportStats stats;
  nlohmann::json data;  // the timeline data the page's script draws from
};

nlohmann::json ParseTimelineData(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"tl-data\">";
  size_t a = html.find(open);
  if (a == std::string::npos) return nullptr;
  a += open.size();
  return nlohmann::json::parse(html.substr(a, html.find("</script>", a) - a));
}

// Items of the data rows of kind `kind` ("op", "api", "sl") whose class is
// `cls` (op rows: the category's name; slice rows: the class string).
int CountItems(const nlohmann::json& data, const std::string& kind, const std::string& cls) {
  int n = 0;
  for (const auto& row : data["rows"]) {
    if (row["k"] != kind) continue;
    for (const auto& c : row["c"]) {
      std::string name =
          kind == "op" ? data["cats"][c.get<int>()].get<std::string>() : data["strs"][c.get<int>()].get<std::string>();
      n += name == cls || name.rfind(cls + " ", 0) == 0 ? 1 : 0;
    }
  }
  return n;
}

// Op items that are aggregates of several ops.
int CountAggregates(const nlohmann::json& data) {
  int n = 0;
  for (const auto& row : data["rows"]) {
    if (row["k"] != "op") continue;
    for (const auto& name : row["n"]) n += name.get<int>() < 0 ? 1 : 0;
  }
  return n;
}

Html Write(const TempDir& dir, std::span<const HtmlTimelineInput> inputs, int64_t max_ops = 200'000,
           const std::string& name = "report.html") {
  HtmlReportOptions options;
  options.max_ops = max_ops;
  auto file = OutputFile::Create(dir / name, false);
  EXPECT_TRUE(file.ok());
  Html h;
  absl::Status s = WriteHtmlReport(inputs, options, file->get(), &h.stats);
  EXPECT_TRUE(s.ok()) << s;
  h.text = ReadFile(dir / name);
  h.data = ParseTimelineData(h.text);
  return h;
}

class HtmlReport : public ::testing::Test {
 protected:
  TempDir dir_;
  TraceModel model_ = LoadFixture(dir_);
  Window whole_ = WholeTraceWindow(model_);
  AnalysisTracks tracks_ = AnalyzeForTimeline(model_, whole_).value();
};

TEST_F(HtmlReport, NeedsNothingFromTheNetwork) {
  HtmlTimelineInput in{"", &model_, whole_, &tracks_};
  Html h = Write(dir_, {&in, 1});
  EXPECT_EQ(Count(h.text, "<script src"), 0);
  EXPECT_EQ(Count(h.text, "<link"), 0);
  EXPECT_EQ(Count(h.text, "@import"), 0);
  EXPECT_EQ(Count(h.text, "url("), 0);
  // The only URL is the SVG namespace name used by createElementNS.
  std::regex url(R"(https?://[^"' )]+)");
  for (auto it = std::sregex_iterator(h.text.begin(), h.text.end(), url); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  }
  EXPECT_EQ(Count(h.text, "<body data-render-ok=\"0\">"), 1);
}

TEST_F(HtmlReport, DrawsEveryOpInItsStreamRowColouredByCategory) {
  HtmlTimelineInput in{"", &model_, whole_, &tracks_};
  Html h = Write(dir_, {&in, 1});
  EXPECT_EQ(CountItems(h.data, "op", "compute"), 9);
  EXPECT_EQ(CountItems(h.data, "op", "H2D"), 8);
  EXPECT_EQ(CountItems(h.data, "op", "D2H"), 8);
  EXPECT_EQ(CountItems(h.data, "op", "memset"), 8);
  EXPECT_EQ(CountAggregates(h.data), 0);
  EXPECT_EQ(Count(h.text, "data-stream=\"13\" data-lane=\"0\""), 1);
  EXPECT_EQ(Count(h.text, "data-stream=\"14\" data-lane=\"0\""), 1);
  EXPECT_EQ(Count(h.text, "data-stream=\"14\" data-lane=\"1\""), 1);  // jitter overflow
  EXPECT_EQ(Count(h.text, "data-stream=\"15\" data-lane=\"0\""), 1);
  EXPECT_EQ(h.stats.stream_rows, 4);
  EXPECT_EQ(h.stats.ops_in_windows, 33);
  EXPECT_EQ(h.stats.merge_resolution_ns, 0);
}

TEST_F(HtmlReport, DrawsTheApiCallsOfEachHostThreadAsRowsUnderTheGpu) {
  HtmlTimelineInput in{"", &model_, whole_, &tracks_};
  Html h = Write(dir_, {&in, 1});
  int64_t calls = 0;
  for (size_t i = 0; i < model_.api.size(); ++i)
    calls += InWindow(model_.api.start_ns[i], model_.api.end_ns[i], whole_);
  ASSERT_GT(calls, 0);
  int64_t items = 0;
  for (const auto& row : h.data["rows"]) {
    if (row["k"] == "api") items += static_cast<int64_t>(row["s"].size());
  }
  EXPECT_EQ(items, calls);
  EXPECT_GE(h.stats.api_rows, 1);
  EXPECT_GT(Count(h.text, "<g class=\"api-row\""), 0);
  // Below the streams: the first API row comes after the last stream row.
  EXPECT_LT(h.text.rfind("<g class=\"stream-row\""), h.text.find("<g class=\"api-row\""));
  EXPECT_NE(h.text.find(" API calls</text>"), std::string::npos);
}

TEST_F(HtmlReport, ShowsOverlapGapsAndFindings) {
  HtmlTimelineInput in{"", &model_, whole_, &tracks_};
  Html h = Write(dir_, {&in, 1});
  EXPECT_EQ(Count(h.text, "<g class=\"overlap-row\" data-pair=\"compute|H2D\">"), 1);
  EXPECT_EQ(h.stats.overlap_slices, CountItems(h.data, "sl", "ovl"));
  EXPECT_GE(h.stats.overlap_slices, 8);
  EXPECT_GE(CountItems(h.data, "sl", "gap"), 7);
  EXPECT_NE(h.text.find("compute|H2D overlapped"), std::string::npos);
  EXPECT_NE(h.text.find("<figure class=\"hist\"><figcaption><b>launch queue delay"), std::string::npos);
  EXPECT_NE(h.text.find("device idle gap length"), std::string::npos);
}

TEST_F(HtmlReport, SummaryShowsDeviceWorkloadAndValidation) {
  TracePreparation what;
  what.summary = true;
  const PreparedTrace prepared = PrepareTrace(model_, what).value();
  HtmlTimelineInput in{"", &model_, whole_, &tracks_, {}, &prepared.summary};
  Html h = Write(dir_, {&in, 1});
  EXPECT_NE(h.text.find("NVIDIA H200 (synthetic)"), std::string::npos);
  EXPECT_NE(h.text.find("synthetic-pipeline"), std::string::npos);
  EXPECT_NE(h.text.find("<td class=\"pass\">passed</td>"), std::string::npos);
  // The workload and its validation come from the trace's summary.
  HtmlTimelineInput bare{"", &model_, whole_, &tracks_};
  EXPECT_EQ(Write(dir_, {&bare, 1}, 200'000, "bare.html").text.find("<td class=\"pass\">passed</td>"),
            std::string::npos);
}

TEST_F(HtmlReport, HostileNamesAreEscaped) {
  HtmlTimelineInput in{"", &model_, whole_, &tracks_};
  Html h = Write(dir_, {&in, 1});
  EXPECT_EQ(h.text.find("<b>&amp;amp;"), std::string::npos);
  // The name sits in the timeline data as a JSON string with '<' escaped,
  // so it can neither end the script element nor become markup.
  EXPECT_EQ(h.text.find("<b>&amp; bad"), std::string::npos);
  EXPECT_NE(h.text.find("\\u003cb>&amp; bad"), std::string::npos);
  bool found = false;
  for (const auto& s : h.data["strs"]) found |= s.get<std::string>().find("<b>&amp; bad") != std::string::npos;
  EXPECT_TRUE(found);
  EXPECT_EQ(h.text.find('\x01'), std::string::npos);
  EXPECT_EQ(h.text.find('\xff'), std::string::npos);
}

TEST_F(HtmlReport, HugeWindowIsDownsampledWithANote) {
  HtmlTimelineInput in{"", &model_, whole_, &tracks_};
  Html h = Write(dir_, {&in, 1}, 12);
  EXPECT_GT(h.stats.aggregate_blocks, 0);
  EXPECT_GT(h.stats.merge_resolution_ns, 0);
  EXPECT_LE(h.stats.blocks_drawn, 12);
  EXPECT_GT(CountAggregates(h.data), 0);
  EXPECT_NE(h.text.find("aggregate blocks"), std::string::npos);
  EXPECT_NE(h.text.find("id=\"notes\""), std::string::npos);
}

TEST(OpDownsampler, MergesOnlyShortNeighboursAndKeepsCounts) {
  TempDir dir;
  TraceModel model = LoadFixture(dir, {.iterations = 4, .jitter = false});
  Window w = WholeTraceWindow(model);
  DownsampleResult all = DownsampleOps(model, w, 0);
  EXPECT_EQ(all.ops, 16);
  EXPECT_EQ(all.blocks, 16);
  EXPECT_EQ(all.aggregates, 0);
  // 70 us: on stream 13 an iteration's H2D [t, t+20us) and D2H
  // [t+50us, t+65us) merge (gap 30 us, span 65 us); the next H2D would
  // stretch the block past 70 us, so it starts a new one. Kernels (40 us)
  // and memsets (2 us) are 100 us apart: each stays alone.
  DownsampleResult r = DownsampleOps(model, w, 70'000);
  int64_t ops = 0;
  for (const StreamBlocks& sb : r.streams) {
    for (const DrawBlock& b : sb.blocks) ops += b.count;
  }
  EXPECT_EQ(ops, 16);
  EXPECT_EQ(r.aggregates, 4);
  EXPECT_EQ(r.ops_in_aggregates, 8);
}

TEST(HtmlReportCompare, TimelinesAreDrawnControlAboveVariant) {
  TempDir dir;
  TraceModel control = LoadFixture(dir, {.iterations = 4, .jitter = false}, "control.sqlite");
  TraceModel variant = LoadFixture(dir, {.iterations = 2, .jitter = false}, "variant.sqlite");
  HtmlTimelineInput inputs[] = {{"control", &control, WholeTraceWindow(control), nullptr},
                                {"variant", &variant, WholeTraceWindow(variant), nullptr}};
  Html h = Write(dir, inputs);
  size_t c = h.text.find(">control: ");
  size_t v = h.text.find(">variant: ");
  ASSERT_NE(c, std::string::npos);
  ASSERT_NE(v, std::string::npos);
  EXPECT_LT(c, v);
  EXPECT_EQ(Count(h.text, "class=\"stream-row\" data-timeline=\"0\""), 3);
  EXPECT_EQ(Count(h.text, "class=\"stream-row\" data-timeline=\"1\""), 3);
  EXPECT_EQ(h.stats.ops_in_windows, 16 + 8);
}

TEST(HtmlReportErrors, NoTimelineIsAnError) {
  TempDir dir;
  auto file = OutputFile::Create(dir / "x.html", false);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(WriteHtmlReport({}, {}, file->get(), nullptr).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

TEST(LaunchStatsFindings, LaunchBoundKernelsAndGraphRemovableTimeAreFindings) {
  TempDir dir;
  TraceModel model = LoadFixture(dir, {.iterations = 2, .jitter = false});
  LaunchStatsResult launch;
  KernelLaunchStats k;
  k.name = model.strings.Intern("_Z10vector_addPfS_S_i");
  k.count = 3;
  k.api_slower_than_gpu = true;
  k.api_ns.median = 9'000;
  k.gpu_ns.median = 2'000;
  launch.kernels.push_back(k);
  KernelLaunchStats fine = k;
  fine.api_slower_than_gpu = false;
  launch.kernels.push_back(fine);
  launch.graph_removable_ns = 40'000;
  launch.graph_removable_gaps = 7;
  AnalysisTracks tracks;
  AddLaunchStatsFindings(model, launch, &tracks);
  ASSERT_EQ(tracks.findings.size(), 2u);
  EXPECT_EQ(tracks.findings[0].severity, "warning");
  EXPECT_NE(tracks.findings[0].text.find("launch-bound: 3 × vector_add(float*, float*, float*, int)"),
            std::string::npos)
      << tracks.findings[0].text;
  EXPECT_NE(tracks.findings[1].text.find("in 7 gaps"), std::string::npos) << tracks.findings[1].text;
}

}  // namespace
}  // namespace streamscope
