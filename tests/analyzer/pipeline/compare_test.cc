// Known-answer tests for analysis 6 (compare): one synthetic control/variant
// pair per verdict.
#include "analyzer/pipeline/compare.h"

#include <sstream>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/compare_runner.h"
#include "analyzer/render/compare_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/synthetic_trace.h"
#include "tests/analyzer/model/test_device.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;
using testing::TestDevice;

using testing::k16MiB;
using testing::us;

// A chunked pipeline like the reference workloads: per chunk an H2D copy, a
// kernel 'chunk' and a D2H copy of 16 MiB each, chunk c on stream c % streams;
// a list schedule with one H2D engine, one D2H engine and one kernel at a
// time. Everything is submitted up front inside NVTX range "measured", and
// the workload marks are written.
struct Pipeline {
  int chunks = 4;
  int streams = 1;
  int64_t h2d_ns = us(100), kernel_ns = us(100), d2h_ns = us(100);
  MemoryKind host = MemoryKind::kPinned;
  std::string validation = "passed";
  bool measured_range = true;
  int copy_engines = 2;
};

TraceModel Build(const Pipeline& p) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.async_engine_count = p.copy_engines}));
  for (int s = 0; s < p.streams; ++s) b.Stream(10 + s, StreamKind::kNonBlocking);
  const int64_t t0 = us(100);  // GPU work starts after the submissions
  std::vector<int64_t> stream_free(p.streams, t0);
  int64_t h2d_free = t0, d2h_free = t0, compute_free = t0, end = t0;
  int64_t call = us(1);
  auto next_call = [&]() {
    ApiTimes t{call, call + 500, 1};
    call += us(1);
    return t;
  };
  for (int c = 0; c < p.chunks; ++c) {
    int s = c % p.streams;
    int64_t h = std::max(stream_free[s], h2d_free);
    b.Copy(OpCategory::kHtoD, p.host, MemoryKind::kDevice, 10 + s, h, h + p.h2d_ns, next_call(), "cudaMemcpyAsync",
           true, k16MiB);
    h2d_free = h + p.h2d_ns;
    int64_t k = std::max(h2d_free, compute_free);
    b.Kernel("chunk", 10 + s, k, k + p.kernel_ns, next_call());
    compute_free = k + p.kernel_ns;
    int64_t o = std::max(compute_free, d2h_free);
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, p.host, 10 + s, o, o + p.d2h_ns, next_call(), "cudaMemcpyAsync",
           true, k16MiB);
    d2h_free = o + p.d2h_ns;
    stream_free[s] = d2h_free;
    end = std::max(end, d2h_free);
  }
  if (p.measured_range) b.Nvtx("measured", 1, 0, end + us(10));
  TraceModel& m = b.model();
  auto mark = [&](const std::string& text) {
    NvtxMark mk;
    mk.name = m.strings.Intern(text);
    mk.domain = m.strings.Intern("streamscope");
    mk.tid = 1;
    m.nvtx_marks.push_back(mk);
  };
  mark(p.streams == 1 ? "workload=sequential" : "workload=overlapped");
  if (!p.validation.empty()) mark("validation=" + p.validation);
  return b.Build();
}

CompareResult CompareRuns(const std::vector<const TraceModel*>& control, const std::vector<const TraceModel*>& variant,
                          const CompareOptions& o = {}) {
  auto r = Compare(control, variant, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : CompareResult{};
}

TEST(Compare, OverlappedPipelineIsVerifiedWithItsSaving) {
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.streams = 2});
  CompareResult r = CompareRuns({&control}, {&variant});
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
  EXPECT_TRUE(r.work_same);
  EXPECT_TRUE(r.validation_passed);
  EXPECT_TRUE(r.overlap_present);
  EXPECT_EQ(r.control_total_ns, us(1200));  // 4 x (100 + 100 + 100)
  // Chunk 2 waits for chunk 0's D2H on stream 10: H2D at 100, 200, 400, 500 us; last D2H ends at 800 us.
  EXPECT_EQ(r.variant_total_ns, us(700));
  EXPECT_EQ(r.saved_ns, us(500));
  EXPECT_NEAR(r.saved_pct, 41.67, 0.01);
  EXPECT_EQ(r.noise_ns, us(24));  // 2% of 1.2 ms
  EXPECT_TRUE(r.failed_conditions.empty());
  EXPECT_FALSE(r.diagnose.has_value());
  EXPECT_NE(CompareWindowRuleText(r).find("NVTX range 'measured'"), std::string::npos) << CompareWindowRuleText(r);
  EXPECT_NE(CompareVerdictSentence(r).find("500 us saved (41.7%)"), std::string::npos) << CompareVerdictSentence(r);
  const MetricComparison* pair = r.Find("overlap:compute|H2D");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->control.median, 0);
  EXPECT_EQ(pair->variant.median, us(200));  // H2D 1 under kernel 0, H2D 3 under kernel 2
}

TEST(Compare, PageableCopiesOverlapButTheTotalGetsWorse) {
  TraceModel control = Build(Pipeline{});
  // Pageable H2D copies run ~6x slower per byte; they still overlap queued kernels.
  TraceModel variant = Build(Pipeline{.streams = 2, .h2d_ns = us(600), .host = MemoryKind::kPageable});
  CompareResult r = CompareRuns({&control}, {&variant});
  EXPECT_EQ(r.verdict, CompareVerdict::kOverlapWithoutGain) << CompareVerdictSentence(r);
  EXPECT_TRUE(r.overlap_present);
  EXPECT_EQ(r.variant_total_ns, us(2600));  // 4 x 600 us of H2D + kernel + D2H
  EXPECT_EQ(r.saved_ns, -us(1400));
  const MetricComparison* pair = r.Find("overlap:compute|H2D");
  ASSERT_NE(pair, nullptr);
  EXPECT_GT(pair->variant.median, 0);  // both facts: overlap present ...
  EXPECT_NE(CompareVerdictSentence(r).find("got worse by 1.40 ms (+116.7%"), std::string::npos)
      << CompareVerdictSentence(r);  // ... total worse
  ASSERT_TRUE(r.diagnose.has_value());
  ASSERT_NE(r.diagnose->primary(), nullptr);
  EXPECT_EQ(r.diagnose->primary()->cause, DiagnoseCause::kPageableCopies);
  EXPECT_NEAR(r.diagnose->primary()->figures.at("H2D_slowdown"), 6.0, 0.01);  // vs the control's pinned copies
  EXPECT_NE(CompareVerdictSentence(r).find("pageable_copies"), std::string::npos) << CompareVerdictSentence(r);
  EXPECT_EQ(r.failed_conditions, (std::vector<std::string>{"gain"}));
}

TEST(Compare, DifferentKernelCountsAndBytesAreDifferentWork) {
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.chunks = 3, .streams = 2});
  CompareResult r = CompareRuns({&control}, {&variant});
  EXPECT_EQ(r.verdict, CompareVerdict::kDifferentWork) << CompareVerdictSentence(r);
  ASSERT_EQ(r.work_differences.size(), 3u);
  EXPECT_EQ(r.work_differences[0].difference.kind, "kernel");
  EXPECT_EQ(r.work_differences[0].difference.key, "chunk");
  EXPECT_EQ(r.work_differences[0].difference.expected_count, 4);
  EXPECT_EQ(r.work_differences[0].difference.actual_count, 3);
  EXPECT_EQ(r.work_differences[1].difference.key, "H2D");
  EXPECT_EQ(r.work_differences[1].difference.expected_bytes, 4 * k16MiB);
  EXPECT_EQ(r.work_differences[1].difference.actual_bytes, 3 * k16MiB);
  EXPECT_EQ(r.work_differences[2].difference.key, "D2H");
  EXPECT_NE(CompareVerdictSentence(r).find("kernel 'chunk': 3 instances vs 4"), std::string::npos)
      << CompareVerdictSentence(r);
}

TEST(Compare, FailedValidationIsNotVerifiedEvenWhenFaster) {
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.streams = 2, .validation = "failed: 12 words differ, first at 5"});
  CompareResult r = CompareRuns({&control}, {&variant});
  EXPECT_EQ(r.verdict, CompareVerdict::kValidationFailed) << CompareVerdictSentence(r);
  EXPECT_NE(CompareVerdictSentence(r).find("12 words differ"), std::string::npos) << CompareVerdictSentence(r);
  EXPECT_GT(r.saved_ns, 0);
}

TEST(Compare, FasterWithoutOverlapIsNoOverlap) {
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.kernel_ns = us(50)});  // faster kernels, still one stream
  CompareResult r = CompareRuns({&control}, {&variant});
  EXPECT_EQ(r.verdict, CompareVerdict::kNoOverlap) << CompareVerdictSentence(r);
  EXPECT_FALSE(r.overlap_present);
  EXPECT_EQ(r.saved_ns, us(200));
  EXPECT_NE(CompareVerdictSentence(r).find("does not come from overlap"), std::string::npos)
      << CompareVerdictSentence(r);
  ASSERT_TRUE(r.diagnose.has_value());
  ASSERT_NE(r.diagnose->primary(), nullptr);
  EXPECT_EQ(r.diagnose->primary()->cause, DiagnoseCause::kSameStream);
  // The same pair with goal "speedup" is verified.
  CompareOptions speedup;
  speedup.goal = CompareGoal::kSpeedup;
  EXPECT_EQ(CompareRuns({&control}, {&variant}, speedup).verdict, CompareVerdict::kVerified);
}

TEST(Compare, ChangeSmallerThanTheRunToRunSpreadIsWithinNoise) {
  // Controls 1160..1240 us (spread 80 us); compute-bound variants with overlap 1160..1200 us.
  TraceModel c1 = Build(Pipeline{.kernel_ns = us(100)});
  TraceModel c2 = Build(Pipeline{.kernel_ns = us(110)});
  TraceModel c3 = Build(Pipeline{.kernel_ns = us(90)});
  TraceModel v1 = Build(Pipeline{.streams = 2, .h2d_ns = us(10), .kernel_ns = us(290), .d2h_ns = us(10)});
  TraceModel v2 = Build(Pipeline{.streams = 2, .h2d_ns = us(10), .kernel_ns = us(295), .d2h_ns = us(10)});
  TraceModel v3 = Build(Pipeline{.streams = 2, .h2d_ns = us(10), .kernel_ns = us(285), .d2h_ns = us(10)});
  CompareResult r = CompareRuns({&c1, &c2, &c3}, {&v1, &v2, &v3});
  EXPECT_EQ(r.verdict, CompareVerdict::kWithinNoise) << CompareVerdictSentence(r);
  EXPECT_TRUE(r.overlap_present);
  EXPECT_EQ(r.control_total_ns, us(1200));
  EXPECT_EQ(r.variant_total_ns, us(1180));
  EXPECT_EQ(r.noise_ns, us(80));  // the control's min-max range beats 2% (24 us)
  const MetricComparison& total = r.metrics.front();
  EXPECT_EQ(total.name, "total_interval_ns");
  EXPECT_EQ(total.control.min, us(1160));
  EXPECT_EQ(total.control.max, us(1240));
  ASSERT_TRUE(total.control.mad.has_value());
  EXPECT_DOUBLE_EQ(*total.control.mad, us(40));
  EXPECT_NE(CompareVerdictSentence(r).find("within the noise threshold of 80.0 us"), std::string::npos)
      << CompareVerdictSentence(r);
  EXPECT_TRUE(r.diagnose.has_value());
}

TEST(Compare, NoiseFlagRaisesTheThreshold) {
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.streams = 2});
  CompareOptions o;
  o.noise_pct = 50;  // 600 us > the 500 us saved
  EXPECT_EQ(CompareRuns({&control}, {&variant}, o).verdict, CompareVerdict::kWithinNoise);
}

TEST(Compare, WithoutTheMeasuredRangeEverywhereTheSteadyStatesArePerChunk) {
  // Both runs' steady state is the kernel 'chunk' repeated 4 times, with the
  // copies submitted between the kernels: all of the work, per chunk.
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.streams = 2, .measured_range = false});
  CompareResult r = CompareRuns({&control}, {&variant});
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateMatched) << CompareWindowRuleText(r);
  EXPECT_NE(CompareWindowRuleText(r).find("each run's steady state"), std::string::npos) << CompareWindowRuleText(r);
  EXPECT_TRUE(r.per_instance);
  EXPECT_EQ(r.control.front().window.instances, 4);
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified);
  EXPECT_EQ(r.control.front().metrics.window_ns, us(1200));
  // Per chunk: the mean period between the kernels' starts (200, 500, 800,
  // 1100 us; with two streams 200, 300, 500, 600 us).
  EXPECT_EQ(r.control_total_ns, us(300));
  EXPECT_EQ(r.variant_total_ns, us(400) / 3);
  // Asking for a range a trace lacks is an error.
  CompareOptions o;
  o.window_rule = CompareOptions::WindowRule::kNvtx;
  o.nvtx_name = "measured";
  auto bad = Compare({&control}, {&variant}, o);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kOutOfRange);
}

TEST(Compare, EmptySideIsAnError) {
  TraceModel control = Build(Pipeline{});
  EXPECT_EQ(Compare({&control}, {}, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CompareStats, MedianMadAndStdevOfThreeRuns) {
  MetricStats s = ComputeStats({5, 1, 3});
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  ASSERT_TRUE(s.mad.has_value());
  EXPECT_DOUBLE_EQ(*s.mad, 2);
  EXPECT_DOUBLE_EQ(*s.stdev, 2);
  MetricStats two = ComputeStats({10, 20});
  EXPECT_EQ(two.median, 15);
  EXPECT_FALSE(two.mad.has_value());
}

TEST(CompareJson, VerdictMetricsAndDiagnoseAreDocumentedKeys) {
  TraceModel control = Build(Pipeline{});
  TraceModel variant = Build(Pipeline{.streams = 2, .h2d_ns = us(600), .host = MemoryKind::kPageable});
  CompareResult r = CompareRuns({&control}, {&variant});
  nlohmann::json j = CompareToJson(r);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["generator"], "streamscope compare");
  EXPECT_EQ(j["verdict"]["verdict"], "OVERLAP_WITHOUT_GAIN");
  EXPECT_FALSE(j["verdict"]["verified"].get<bool>());
  EXPECT_EQ(j["verdict"]["saved_ns"], -us(1400));
  EXPECT_EQ(j["metrics"][0]["name"], "total_interval_ns");
  EXPECT_EQ(j["metrics"][0]["control"]["median"], us(1200));
  EXPECT_TRUE(j["work"]["same"].get<bool>());
  EXPECT_EQ(j["work"]["summary"]["kernels"][0]["name"], "chunk");
  EXPECT_EQ(j["diagnose"]["primary"]["cause"], "pageable_copies");
  EXPECT_EQ(j["diagnose"]["path"], "synthetic");
  std::ostringstream text;
  RenderCompareText(r, text);
  EXPECT_NE(text.str().find("Verdict: OVERLAP_WITHOUT_GAIN"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("Diagnosis of the variant run synthetic"), std::string::npos) << text.str();
}

// End to end through trace files: exit code 0 when verified, 10 otherwise.
TEST(CompareCommand, ExitCodeFollowsTheVerdict) {
  auto write = [](int streams, const std::string& stem) {
    testing::SyntheticTrace t;
    t.Device(0);
    for (int s = 0; s < streams; ++s) t.Stream(10 + s);
    for (int c = 0; c < 4; ++c) {
      int s = c % streams;
      int64_t base = streams == 1 ? us(300) * c : us(100) * c;
      t.Copy(OpCategory::kHtoD, 10 + s, base, base + us(100));
      t.Kernel(10 + s, base + us(100), base + us(200), "chunk");
      t.Copy(OpCategory::kDtoH, 10 + s, base + us(200), base + us(300));
    }
    t.Mark("streamscope", "validation=passed", 0);
    std::string path = testing::TempTracePath(stem);
    EXPECT_TRUE(t.WriteFile(path).ok());
    return path;
  };
  std::string seq = write(1, "compare_seq"), ovl = write(2, "compare_ovl");
  CompareCommandOptions o;
  o.control = {seq};
  o.variant = {ovl};
  std::ostringstream out, err;
  EXPECT_EQ(ExitWith(RunCompare(o, out), err), kExitOk) << out.str() << err.str();
  std::swap(o.control, o.variant);  // the "variant" is now the slower one
  std::ostringstream out2, err2;
  EXPECT_EQ(ExitWith(RunCompare(o, out2), err2), kExitVerdictFailed) << out2.str();
  o.variant = {"/nonexistent/trace.sqlite"};
  std::ostringstream out3, err3;
  EXPECT_EQ(ExitWith(RunCompare(o, out3), err3), kExitFileNotFound) << err3.str();
}

}  // namespace
}  // namespace streamscope
