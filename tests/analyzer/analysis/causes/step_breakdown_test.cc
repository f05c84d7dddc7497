#include "analyzer/analysis/causes/step_breakdown.h"

#include <array>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analyzer/analysis/windows/steady_state.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;

using testing::us;

StepBreakdown Breakdown(const TraceModel& m, const Window& w) {
  GapCausesOptions o;
  o.keep_parts = true;
  return AnalyzeStepBreakdown(m, w, AnalyzeGapCauses(m, w, o));
}

// Ten back-to-back NVTX 'step' ranges on thread 7, each launching one 150 us
// kernel and waiting for it: 2 us of host work, the launch (kernel 8 us
// after the call starts), and the range ends 2 us after the kernel. Step 6
// first spends 400 us in an NVTX range 'prepare'.
struct PlantedLoop {
  TraceModel model;
  std::vector<int64_t> step_start, step_end;
};
PlantedLoop LoopWithOneSlowStep() {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  PlantedLoop loop;
  int64_t t = us(1000);
  for (int k = 0; k < 10; ++k) {
    const int64_t pre = k == 5 ? us(402) : us(2);
    if (k == 5) b.Nvtx("prepare", 7, t + us(2), t + us(402), 1);
    const int64_t launch = t + pre;
    b.Kernel("step_kernel", 13, launch + us(8), launch + us(158), ApiTimes{launch, launch + us(2), 7});
    const int64_t end = launch + us(160);
    b.Nvtx("step", 7, t, end);
    loop.step_start.push_back(t);
    loop.step_end.push_back(end);
    t = end;
  }
  loop.model = b.Build();
  return loop;
}

TEST(StepBreakdown, APlantedHostGapMakesItsStepTheOnlySlowOneWithThatCauseAndItsHandComputedFigures) {
  PlantedLoop loop = LoopWithOneSlowStep();
  const TraceModel& m = loop.model;
  const Window w = DefaultWindow(m);
  ASSERT_EQ(w.origin.kind, WindowKind::kSteadyNvtxRange);
  const StepBreakdown s = Breakdown(m, w);
  EXPECT_EQ(s.source, InstanceSource::kNvtxRange);
  EXPECT_EQ(m.strings.Get(s.nvtx_name), "step");
  ASSERT_EQ(s.rows.size(), 10u);
  EXPECT_EQ(s.median_ns, us(162));
  EXPECT_EQ(s.slow_count, 1);

  const InstanceRow& slow = s.rows[5];
  EXPECT_TRUE(slow.slow);
  EXPECT_EQ(slow.start_ns, loop.step_start[5]);
  EXPECT_EQ(slow.length(), us(562));
  EXPECT_EQ(slow.busy_ns, us(150));
  EXPECT_EQ(slow.idle_ns, us(412));  // 2 + 400 + 8 before the kernel, 2 after it
  ASSERT_TRUE(slow.has_cause);
  EXPECT_EQ(slow.top_cause, GapCause::kHostNvtxRange);
  EXPECT_EQ(m.strings.Get(slow.top_detail), "prepare");
  // 400 in 'prepare', 2 in 'step' before it and 2 after the kernel.
  EXPECT_EQ(slow.top_cause_ns, us(404));

  for (size_t k = 1; k < s.rows.size(); ++k) {
    if (k == 5) continue;
    SCOPED_TRACE(k);
    EXPECT_FALSE(s.rows[k].slow);
    EXPECT_EQ(s.rows[k].length(), us(162));
    EXPECT_EQ(s.rows[k].busy_ns, us(150));
    EXPECT_EQ(s.rows[k].idle_ns, us(12));
  }
  // The window starts at the first kernel: the first step is cut to it.
  EXPECT_EQ(s.rows[0].start_ns, w.start_ns);
  EXPECT_EQ(s.rows[0].idle_ns, us(2));
}

TEST(StepBreakdown, BackToBackStepsTileTheWindowSoTheirIdleTimeIsTheWindowsIdleTime) {
  PlantedLoop loop = LoopWithOneSlowStep();
  const Window w = DefaultWindow(loop.model);
  const StepBreakdown s = Breakdown(loop.model, w);
  int64_t idle = 0, length = 0;
  for (const InstanceRow& x : s.rows) {
    idle += x.idle_ns;
    length += x.length();
  }
  EXPECT_EQ(s.outside_ns, 0);
  EXPECT_EQ(s.outside_idle_ns, 0);
  EXPECT_EQ(length, w.length());
  EXPECT_EQ(idle, s.idle_ns);
  EXPECT_EQ(s.idle_ns, AnalyzeGapCauses(loop.model, w).idle_ns);
}

// The host runs ahead: three 5 us step ranges submit three 100 us kernels
// at once. Each step lasts until its kernel is done, not 5 us.
TEST(StepBreakdown, AStepLastsUntilItsGpuWorkIsDoneWhenTheHostRunsAhead) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  for (int k = 0; k < 3; ++k) {
    const int64_t t = us(5) * k;
    b.Nvtx("step", 7, t, t + us(5));
    b.Kernel("k", 13, us(10) + us(100) * k, us(110) + us(100) * k, ApiTimes{t + us(1), t + us(2), 7});
  }
  TraceModel m = b.Build();
  const StepBreakdown s = Breakdown(m, DefaultWindow(m));
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].end_ns, us(110));
  EXPECT_EQ(s.rows[1].start_ns, us(110));
  EXPECT_EQ(s.rows[1].length(), us(100));
  EXPECT_EQ(s.rows[2].length(), us(100));
  EXPECT_EQ(s.slow_count, 0);
}

// Two steps with 50 us of host work between them, outside any step: that
// time is in no row, and the rows' idle plus its idle is the window's.
TEST(StepBreakdown, TimeBetweenStepsIsInNoRowAndTheIdleStillAddsUp) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  for (int k = 0; k < 3; ++k) {
    const int64_t t = us(200) * k;
    b.Nvtx("step", 7, t, t + us(150));
    b.Kernel("k", 13, t + us(10), t + us(140), ApiTimes{t + us(1), t + us(2), 7});
  }
  TraceModel m = b.Build();
  const Window w = DefaultWindow(m);
  const StepBreakdown s = Breakdown(m, w);
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.outside_ns, us(100));
  EXPECT_EQ(s.outside_idle_ns, us(100));
  int64_t idle = 0;
  for (const InstanceRow& x : s.rows) idle += x.idle_ns;
  EXPECT_EQ(idle + s.outside_idle_ns, AnalyzeGapCauses(m, w).idle_ns);
}

// Per step: a 60 us copy of which 40 us run beside a 100 us kernel.
TEST(StepBreakdown, OverlapAchievedAndPossibleAreTheOverlapSectionsRestrictedToTheStep) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Stream(14, StreamKind::kNonBlocking);
  for (int k = 0; k < 4; ++k) {
    const int64_t t = us(200) * k;
    b.Nvtx("step", 7, t, t + us(200));
    b.Kernel("k", 13, t + us(10), t + us(110), ApiTimes{t + us(1), t + us(2), 7});
    b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 14, t + us(70), t + us(130),
           ApiTimes{t + us(3), t + us(4), 7});
  }
  TraceModel m = b.Build();
  const StepBreakdown s = Breakdown(m, DefaultWindow(m));
  ASSERT_EQ(s.rows.size(), 4u);
  for (const InstanceRow& x : s.rows) {
    EXPECT_EQ(x.compute_ns, us(100));
    EXPECT_EQ(x.copy_ns, us(60));
    EXPECT_EQ(x.overlap_ns, us(40));
    EXPECT_EQ(x.overlap_possible_ns, us(60));
  }
}

// torch.profiler names its steps ProfilerStep#1, #2, ...: they are the
// instances even where the steady state is a range repeated inside them.
TEST(StepBreakdown, TorchProfilerStepsAreTheInstancesWhenPresent) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  int64_t t = us(100);
  for (int k = 1; k <= 6; ++k) {
    const int64_t stall = k == 4 ? us(300) : 0;  // step 4: host work before its forward pass
    b.Nvtx("## forward ##", 7, t + stall, t + stall + us(50), 1);
    b.Kernel("fwd", 13, t + stall + us(5), t + stall + us(45), ApiTimes{t + stall + us(1), t + stall + us(2), 7});
    b.Nvtx("## backward ##", 7, t + stall + us(60), t + stall + us(190), 1);
    b.Kernel("bwd", 13, t + stall + us(65), t + stall + us(185), ApiTimes{t + stall + us(61), t + stall + us(62), 7});
    b.Nvtx("ProfilerStep#" + std::to_string(k), 7, t, t + stall + us(200));
    t += stall + us(200);
  }
  TraceModel m = b.Build();
  ASSERT_NE(DefaultSteadyState(m).method, SteadyStateMethod::kGpuSpan);
  const StepBreakdown s = Breakdown(m, WholeTraceWindow(m));
  EXPECT_EQ(s.source, InstanceSource::kProfilerStep);
  ASSERT_EQ(s.rows.size(), 6u);
  EXPECT_EQ(s.rows[1].length(), us(200));
  EXPECT_EQ(s.rows[3].length(), us(500));
  EXPECT_EQ(s.slow_count, 1);
  EXPECT_TRUE(s.rows[3].slow);
  EXPECT_EQ(s.rows[3].top_cause, GapCause::kHostNvtxRange);
  EXPECT_EQ(m.strings.Get(s.rows[3].top_detail), "ProfilerStep#4");
}

TEST(StepBreakdown, OneInstanceAsAWindowOfItsOwnHasNoRows) {
  PlantedLoop loop = LoopWithOneSlowStep();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "step";
  spec.nvtx_instance = 6;
  absl::StatusOr<std::vector<Window>> windows = ResolveWindows(loop.model, spec);
  ASSERT_TRUE(windows.ok()) << windows.status();
  ASSERT_EQ(windows->size(), 1u);
  EXPECT_TRUE(Breakdown(loop.model, windows->front()).rows.empty());
}

TEST(StepBreakdown, AWindowWithoutRepeatedInstancesHasNoRows) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("a", 13, us(10), us(20), ApiTimes{us(1), us(2), 7});
  b.Kernel("b", 13, us(30), us(40), ApiTimes{us(21), us(22), 7});
  TraceModel m = b.Build();
  const StepBreakdown s = Breakdown(m, DefaultWindow(m));
  EXPECT_EQ(s.source, InstanceSource::kNone);
  EXPECT_TRUE(s.rows.empty());
}

// Random loops: steps of random length whose GPU work runs late, on two
// devices and three streams, some ops without a call or ending before they
// start, some steps nested in a range of the same name. Rows stay disjoint
// and in order, and the idle time adds up.
TEST(StepBreakdown, RandomLoopsKeepTheRowsDisjointAndTheIdleAccountWhole) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    auto draw = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    ModelBuilder b;
    b.Stream(13, StreamKind::kNonBlocking);
    b.Stream(14, StreamKind::kNonBlocking);
    b.Stream(20, StreamKind::kNonBlocking, 1);
    int64_t t = 0;
    for (int k = 0; k < 12; ++k) {
      const int64_t len = draw(us(5), us(300));
      b.Nvtx("step", 7, t, t + len);
      if (draw(0, 5) == 0) b.Nvtx("step", 7, t + us(1), t + len / 2, 1);
      for (int64_t n = draw(1, 3); n > 0; --n) {
        const int64_t call = t + draw(0, len - 1);
        const int64_t start = call + draw(-us(2), us(400)), end = start + draw(-us(1), us(200));
        const std::optional<ApiTimes> api =
            draw(0, 6) == 0 ? std::nullopt : std::optional<ApiTimes>(ApiTimes{call, call + us(1), 7});
        const int64_t stream = std::array<int64_t, 3>{13, 14, 20}[draw(0, 2)];
        if (draw(0, 3) == 0) {
          b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, stream, start, end, api);
        } else {
          b.Kernel("k", stream, start, end, api);
        }
      }
      t += len + (draw(0, 2) == 0 ? draw(0, us(50)) : 0);
    }
    TraceModel m = b.Build();
    const Window w = DefaultWindow(m);
    GapCausesOptions o;
    o.keep_parts = true;
    const GapCausesResult gaps = AnalyzeGapCauses(m, w, o);
    const StepBreakdown s = AnalyzeStepBreakdown(m, w, gaps);
    int64_t idle = 0, previous_end = w.start_ns;
    for (const InstanceRow& x : s.rows) {
      EXPECT_GE(x.start_ns, previous_end);
      EXPECT_GT(x.end_ns, x.start_ns);
      EXPECT_LE(x.end_ns, w.end_ns);
      EXPECT_GE(x.busy_ns, 0);
      EXPECT_GE(x.idle_ns, 0);
      EXPECT_LE(x.overlap_ns, x.overlap_possible_ns);
      EXPECT_LE(x.top_cause_ns, x.idle_ns);
      previous_end = x.end_ns;
      idle += x.idle_ns;
    }
    EXPECT_GE(s.rows.size(), 2u);
    EXPECT_EQ(idle + s.outside_idle_ns, gaps.idle_ns);
  }
}

}  // namespace
}  // namespace streamscope
