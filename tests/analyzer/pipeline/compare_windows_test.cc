// Known-answer tests of compare's window choice (pipeline/compare_windows.h):
// a training-like loop of 3 kernels per step, recorded with the step under
// one NVTX name, renamed, restructured, without ranges (a repeating kernel
// sequence) and with its kernels reordered so that nothing repeats.
#include "analyzer/pipeline/compare_windows.h"

#include <sstream>
#include <string>

#include "analyzer/pipeline/compare.h"
#include "analyzer/render/compare_render.h"
#include "analyzer/render/compare_windows_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_device.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;
using testing::TestDevice;

// The window note in words ("" when the rule names no note).
std::string Note(const CompareResult& r) { return CompareWindowNoteText(r.window_rule, r.window_note); }

using testing::kMs;
using testing::kUs;
constexpr int64_t kStream = 7;

// A 100 us warm-up kernel at 1 ms, then `steps` steps from 10 ms, one every
// step_ns: kernels a, b, c of 200 us each, launched at +10, +20, +30 us and
// running from +100 to +700 us. `range` wraps each step in an NVTX range
// (+0 .. +750 us); with `second_range`, `range` holds only the launches of
// a and b (+0 .. +25 us) and `second_range` the launch of c (+25 .. +750 us).
// `batched`: all a's, then all b's, then all c's, 250 us apart (no range, no
// repeating sequence: no steady state).
struct Loop {
  int steps = 10;
  int64_t step_ns = kMs;
  std::string range = "step";
  std::string second_range = "";
  bool batched = false;
  bool measured = false;  // one NVTX range 'measured' around all steps (9 .. 30 ms)
  bool logging = false;   // an 8-byte D2H copy (+710 .. +720 us) in the first and the last step
  int late_step = -1;     // this step and the ones after it start 5 ms later (a one-off stall)
  int burst_every = 0;    // every n-th step starts 5 ms later than the step before (a loader's bursts)
  std::string path = "synthetic";
};

TraceModel Build(const Loop& l) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice());
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Kernel("warmup", kStream, 1 * kMs, 1 * kMs + 100 * kUs, ApiTimes{500 * kUs, 510 * kUs, 1});
  const int64_t t0 = 10 * kMs;
  if (l.measured) b.Nvtx("measured", 1, 9 * kMs, 30 * kMs);
  if (l.batched) {
    for (int i = 0; i < 3 * l.steps; ++i) {
      int64_t t = t0 + i * 250 * kUs;
      const char* name = i < l.steps ? "a" : i < 2 * l.steps ? "b" : "c";
      b.Kernel(name, kStream, t + 100 * kUs, t + 300 * kUs, ApiTimes{t, t + 5 * kUs, 1});
    }
  } else {
    for (int s = 0; s < l.steps; ++s) {
      int64_t t = t0 + s * l.step_ns + (l.late_step >= 0 && s >= l.late_step ? 5 * kMs : 0) +
                  (l.burst_every > 0 ? s / l.burst_every * 5 * kMs : 0);
      if (!l.range.empty() && l.second_range.empty()) b.Nvtx(l.range, 1, t, t + 750 * kUs);
      if (!l.second_range.empty()) {
        b.Nvtx(l.range, 1, t, t + 25 * kUs);
        b.Nvtx(l.second_range, 1, t + 25 * kUs, t + 750 * kUs);
      }
      for (int k = 0; k < 3; ++k) {
        int64_t call = t + (10 + 10 * k) * kUs;
        b.Kernel(k == 0   ? "a"
                 : k == 1 ? "b"
                          : "c",
                 kStream, t + (100 + 200 * k) * kUs, t + (300 + 200 * k) * kUs, ApiTimes{call, call + 5 * kUs, 1});
      }
      if (l.logging && (s == 0 || s == l.steps - 1)) {
        b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, kStream, t + 710 * kUs, t + 720 * kUs,
               ApiTimes{t + 40 * kUs, t + 720 * kUs, 1}, "cudaMemcpy", false, 8);
      }
    }
  }
  TraceModel m = b.Build();
  m.path = l.path;
  return m;
}

// The GPU interval of n steps of period p: first a start to last c end.
constexpr int64_t StepsInterval(int n, int64_t p) { return (n - 1) * p + 600 * kUs; }

CompareResult CompareLoops(const TraceModel& control, const TraceModel& variant) {
  CompareOptions o;
  o.goal = CompareGoal::kSpeedup;
  auto r = Compare({&control}, {&variant}, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : CompareResult{};
}

TEST(CompareWindows, SameSteadyRangeIsComparedPerInstance) {
  TraceModel control = Build({.path = "control.sqlite"});
  TraceModel variant = Build({.step_ns = 800 * kUs, .path = "variant.sqlite"});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateSameRange);
  EXPECT_TRUE(r.per_instance);
  EXPECT_EQ(r.figure, "time_per_instance_ns");
  EXPECT_TRUE(Note(r).empty()) << Note(r);
  EXPECT_EQ(r.control[0].window.instances, 10);
  EXPECT_EQ(r.control[0].window.source, "steady_state_nvtx_range");
  EXPECT_EQ(RunWindowDescription(r.control[0].window), "steady state: 10 instances of NVTX range 'step'");
  EXPECT_EQ(r.control[0].metrics.total_interval_ns, StepsInterval(10, kMs));  // 9.6 ms
  // The period between the steps' first kernels.
  EXPECT_EQ(r.control[0].window.instance_starts_ns.size(), 10u);
  EXPECT_EQ(r.control[0].window.instance_starts_ns[1], 11 * kMs + 100 * kUs);
  EXPECT_EQ(r.control[0].metrics.time_per_instance_ns, kMs);
  EXPECT_EQ(r.variant[0].metrics.time_per_instance_ns, 800 * kUs);
  EXPECT_EQ(r.saved_ns, 200 * kUs);
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
  EXPECT_NE(CompareVerdictSentence(r).find("time per instance fell from 1.00 ms to 800 us"), std::string::npos)
      << CompareVerdictSentence(r);
  EXPECT_EQ(r.metrics.front().name, "time_per_instance_ns");
}

TEST(CompareWindows, SameRangeWithMoreStepsIsComparedPerStepOnTheSameWorkPerStep) {
  TraceModel control = Build({});
  TraceModel variant = Build({.steps = 20, .step_ns = 800 * kUs});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateSameRange);
  EXPECT_TRUE(r.work_same) << "10 a, b, c in 10 steps = 20 in 20 steps";
  EXPECT_EQ(r.variant[0].window.instances, 20);
  EXPECT_EQ(r.variant[0].metrics.time_per_instance_ns, 800 * kUs);
  EXPECT_EQ(r.saved_ns, 200 * kUs);
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
  // Every metric per instance: 3 x 200 us of kernels per step on both sides.
  const MetricComparison* busy = r.Find("busy_ns");
  ASSERT_NE(busy, nullptr);
  EXPECT_EQ(busy->control.median, 600 * kUs);
  EXPECT_EQ(busy->variant.median, 600 * kUs);
  EXPECT_EQ(r.variant[0].metrics.busy_ns, 20 * 600 * kUs);  // the run's own figure stays a total
  EXPECT_NE(CompareModeText(r).find("instance counts: control 10, variant 20"), std::string::npos)
      << CompareModeText(r);
}

TEST(CompareWindows, AOneOffStallIsNotPartOfTheTimePerInstance) {
  TraceModel control = Build({.late_step = 5});  // periods: 8 x 1 ms, one 6 ms
  TraceModel variant = Build({.step_ns = 800 * kUs});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.control[0].metrics.total_interval_ns, StepsInterval(10, kMs) + 5 * kMs);
  EXPECT_EQ(r.control[0].metrics.time_per_instance_ns, kMs) << "the 6 ms period is over 3x the median";
  EXPECT_EQ(r.saved_ns, 200 * kUs);
}

TEST(CompareWindows, LongPeriodsThatRecurAreTheLoopsPaceNotOneOffs) {
  // 20 steps, every 4th 5 ms late: 15 periods of 1 ms and 4 of 6 ms. Four
  // long periods in 19 are the loop's rhythm (workers delivering batches
  // in bursts): all count, where two would be one-offs.
  TraceModel control = Build({.steps = 20, .burst_every = 4});
  TraceModel variant = Build({.steps = 20});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.control[0].metrics.time_per_instance_ns, (15 * kMs + 4 * 6 * kMs) / 19);
  EXPECT_EQ(r.variant[0].metrics.time_per_instance_ns, kMs);
  EXPECT_EQ(r.saved_ns, (15 * kMs + 4 * 6 * kMs) / 19 - kMs);
  TraceModel two_stalls = Build({.steps = 20, .burst_every = 8});  // 2 long periods: one-offs
  r = CompareLoops(two_stalls, variant);
  EXPECT_EQ(r.control[0].metrics.time_per_instance_ns, kMs);
}

TEST(CompareWindows, RenamedRangeWithTheSameCountIsMatchedPerInstanceWithANote) {
  TraceModel control = Build({});
  TraceModel variant = Build({.step_ns = 800 * kUs, .range = "train_step"});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateMatched);
  EXPECT_TRUE(r.per_instance);
  EXPECT_EQ(Note(r),
            "steady states matched per instance (control: steady state: 10 instances of NVTX range 'step'; variant: "
            "steady state: 10 instances of NVTX range 'train_step'): each run has 10 instances");
  EXPECT_EQ(r.control[0].metrics.time_per_instance_ns, kMs);
  EXPECT_EQ(r.variant[0].metrics.time_per_instance_ns, 800 * kUs);
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
}

TEST(CompareWindows, NvtxSteadyStateAgainstARepeatingKernelSequenceIsComparedPerInstance) {
  TraceModel control = Build({});
  TraceModel variant = Build({.step_ns = 800 * kUs, .range = ""});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateMatched);
  EXPECT_EQ(r.variant[0].window.source, "steady_state_kernel_sequence");
  EXPECT_EQ(RunWindowUnit(r.variant[0].window), "a sequence of 3 kernels");
  EXPECT_EQ(r.variant[0].window.instances, 10);
  EXPECT_NE(Note(r).find("control: steady state: 10 instances of NVTX range 'step'; variant: steady state: "
                         "10 repeats of a sequence of 3 kernels"),
            std::string::npos)
      << Note(r);
  EXPECT_TRUE(r.work_same);
  EXPECT_EQ(r.control[0].metrics.time_per_instance_ns, kMs);
  EXPECT_EQ(r.variant[0].window.instance_starts_ns.size(), 10u);  // each repeat's first kernel, a
  EXPECT_EQ(r.variant[0].metrics.time_per_instance_ns, 800 * kUs);
  EXPECT_EQ(r.saved_ns, 200 * kUs);
}

TEST(CompareWindows, RenamedRangeWithOtherCountsComparesWorkPerInstance) {
  TraceModel control = Build({});
  TraceModel variant = Build({.steps = 20, .step_ns = 800 * kUs, .range = "iteration"});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateMatched);
  EXPECT_NE(Note(r).find("instance counts differ (10 vs 20), work compared per instance"), std::string::npos)
      << Note(r);
  EXPECT_TRUE(r.work_same);
  EXPECT_EQ(r.saved_ns, 200 * kUs);
}

TEST(CompareWindows, WorkNotInEveryInstanceIsListedApartNotCalledDifferent) {
  // A logging copy in the first and the last step: 2 in 10 steps vs 2 in 20.
  TraceModel control = Build({.logging = true});
  TraceModel variant = Build({.steps = 20, .step_ns = 800 * kUs, .range = "iteration", .logging = true});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kSteadyStateMatched);
  EXPECT_TRUE(r.work_same);
  ASSERT_EQ(r.occasional_work.size(), 1u);
  EXPECT_EQ(WorkDifferenceSentence(r.occasional_work[0].difference),
            "D2H copies per instance: 2 (16 B) in 20 instances vs 2 (16 B) in 10 instances");
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
  // A kernel in every step is not occasional: 3 kernels per step are different work from 2.
  WorkSummary ten, twenty;
  ten.kernels["k"] = 30;
  twenty.kernels["k"] = 40;
  std::vector<WorkDifference> d = DiffWorkPerInstance(ten, 10, twenty, 20);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(IsOccasional(d[0]));
  twenty.kernels["k"] = 60;
  EXPECT_TRUE(DiffWorkPerInstance(ten, 10, twenty, 20).empty());
}

TEST(CompareWindows, RestructuredRangesDoingOtherWorkPerInstanceFallBackToTheGpuSpan) {
  // The variant's steady state is its 'forward' range: a and b of every
  // step, and c of every step but the last.
  TraceModel control = Build({});
  TraceModel variant = Build({.step_ns = 800 * kUs, .range = "forward", .second_range = "backward"});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kGpuSpanWorkDiffers);
  EXPECT_FALSE(r.per_instance);
  EXPECT_EQ(r.figure, "total_interval_ns");
  EXPECT_NE(Note(r).find("variant: steady state: 10 instances of NVTX range 'forward') do different work "
                         "per instance"),
            std::string::npos)
      << Note(r);
  EXPECT_TRUE(r.work_same);
  // From the warm-up kernel (1 ms) to the last c.
  EXPECT_EQ(r.control[0].metrics.total_interval_ns, 9 * kMs + StepsInterval(10, kMs) + 100 * kUs);
  EXPECT_EQ(r.variant[0].metrics.total_interval_ns, 9 * kMs + StepsInterval(10, 800 * kUs) + 100 * kUs);
  EXPECT_EQ(r.control[0].window.source, "gpu_span");
  EXPECT_EQ(r.saved_ns, 1800 * kUs);
}

TEST(CompareWindows, OneRunWithoutSteadyStateComparesBothGpuSpansAndSaysWhy) {
  TraceModel control = Build({.path = "control.sqlite"});
  TraceModel variant = Build({.batched = true, .path = "variant.sqlite"});
  ASSERT_EQ(DefaultSteadyState(variant).method, SteadyStateMethod::kGpuSpan);
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kGpuSpanNoSteadyState);
  EXPECT_FALSE(r.per_instance);
  EXPECT_NE(Note(r).find("no steady state in variant variant.sqlite"), std::string::npos) << Note(r);
  EXPECT_NE(Note(r).find("not a steady window against a whole run"), std::string::npos) << Note(r);
  EXPECT_EQ(r.control[0].window.source, "gpu_span") << "the control's steady state is not used alone";
  EXPECT_EQ(RunWindowDescription(r.control[0].window),
            "GPU span, first GPU op to last (its steady state (10 instances of NVTX range 'step') is not used: "
            "another run has none)");
  EXPECT_EQ(RunWindowDescription(r.variant[0].window), "GPU span, first GPU op to last (no steady state found)");
  EXPECT_EQ(r.control[0].metrics.total_interval_ns, 18700 * kUs);  // 1 ms .. 19.7 ms
  EXPECT_EQ(r.variant[0].metrics.total_interval_ns, 16550 * kUs);  // 1 ms .. 17.55 ms
  EXPECT_EQ(r.saved_ns, 2150 * kUs);
  EXPECT_TRUE(r.work_same);
}

TEST(CompareWindows, TheMeasuredRangeStillWinsOverMatchedSteadyStates) {
  TraceModel control = Build({.measured = true});
  TraceModel variant = Build({.step_ns = 800 * kUs, .range = "iteration", .measured = true});
  CompareResult r = CompareLoops(control, variant);
  EXPECT_EQ(r.window_rule, CompareWindowRule::kNvtxMeasured);
  EXPECT_FALSE(r.per_instance);
  EXPECT_EQ(RunWindowDescription(r.control[0].window), "1 instance of NVTX range 'measured'");
}

TEST(CompareWindows, TextAndJsonNameEachSidesWindowTheComparisonAndTheNote) {
  TraceModel control = Build({.path = "control.sqlite"});
  TraceModel variant = Build({.step_ns = 800 * kUs, .range = "", .path = "variant.sqlite"});
  CompareResult r = CompareLoops(control, variant);
  std::ostringstream text;
  RenderCompareText(r, text);
  const std::string t = text.str();
  EXPECT_NE(t.find("Compared: per instance (time per instance, with instance counts: control 10, variant 10)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("Note: steady states matched per instance"), std::string::npos) << t;
  EXPECT_NE(t.find("Metrics per instance: each run's figures over its windows / its instances"), std::string::npos)
      << t;
  EXPECT_NE(t.find("per instance 1.00 ms x10\n    window: steady state: 10 instances of NVTX range 'step'"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("window: steady state: 10 repeats of a sequence of 3 kernels"), std::string::npos) << t;
  EXPECT_NE(t.find("time per instance fell from 1.00 ms to 800 us"), std::string::npos) << t;
  nlohmann::json j = CompareToJson(r);
  EXPECT_EQ(j["window"]["rule"], "steady_state_matched");
  EXPECT_EQ(j["window"]["comparison"], "per_instance");
  EXPECT_EQ(j["window"]["figure"], "time_per_instance_ns");
  EXPECT_EQ(j["window"]["note"], Note(r));
  EXPECT_EQ(j["control"][0]["window"]["source"], "steady_state_nvtx_range");
  EXPECT_EQ(j["control"][0]["window"]["unit"], "NVTX range 'step'");
  EXPECT_EQ(j["variant"][0]["window"]["source"], "steady_state_kernel_sequence");
  EXPECT_EQ(j["variant"][0]["window"]["instances"], 10);
  EXPECT_EQ(j["variant"][0]["time_per_instance_ns"], 800 * kUs);
  EXPECT_EQ(j["verdict"]["figure"], "time_per_instance_ns");
  EXPECT_EQ(j["verdict"]["saved_ns"], 200 * kUs);
}

TEST(CompareWindows, AskedForWindowsKeepTheirRule) {
  TraceModel control = Build({});
  TraceModel variant = Build({.range = "iteration"});
  CompareOptions o;
  o.window_rule = CompareOptions::WindowRule::kWholeGpu;
  auto whole = ChooseCompareWindows({&control}, {&variant}, o);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->rule, CompareWindowRule::kWholeGpu);
  EXPECT_FALSE(whole->per_instance);
  o.window_rule = CompareOptions::WindowRule::kNvtx;
  o.nvtx_name = "step";
  EXPECT_EQ(ChooseCompareWindows({&control}, {&variant}, o).status().code(), absl::StatusCode::kOutOfRange);
  auto step = ChooseCompareWindows({&control}, {&control}, o);
  ASSERT_TRUE(step.ok());
  EXPECT_TRUE(step->per_instance);
  EXPECT_EQ(step->control[0].instances, 10);
  EXPECT_EQ(step->control[0].windows.size(), 10u);
}

}  // namespace
}  // namespace streamscope
