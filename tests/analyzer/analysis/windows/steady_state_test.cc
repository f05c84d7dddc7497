#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/render/window_label.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/base/analyzer_threads_env.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::kStream;
using testing::kUs;
using testing::ModelBuilder;

using testing::kMs;

// 100 ms of start-up (host calls only, one 1 ms warm-up kernel at its end)
// inside NVTX "main", then 10 NVTX "step" ranges of 1 ms, each with a
// nested "forward" range and three 200 us kernels launched in it.
TraceModel StartupThenTenSteps() {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Nvtx("main", 1, 0, 112 * kMs, 0);
  b.Api("cudaGetDeviceCount", 1, 1 * kMs, 2 * kMs);
  b.Api("cudaSetDevice", 1, 2 * kMs, 90 * kMs);
  b.Kernel("warmup", kStream, 99 * kMs, 99 * kMs + 100 * kUs, ApiTimes{98 * kMs, 98 * kMs + 10 * kUs, 1});
  for (int64_t s = 0; s < 10; ++s) {
    int64_t t = 100 * kMs + s * kMs;
    b.Nvtx("step", 1, t, t + kMs, 1);
    b.Nvtx("forward", 1, t + 10 * kUs, t + 500 * kUs, 2);
    for (int64_t k = 0; k < 3; ++k) {
      int64_t call = t + (20 + 10 * k) * kUs;
      b.Kernel(k == 0   ? "a"
               : k == 1 ? "b"
                        : "c",
               kStream, t + (100 + 200 * k) * kUs, t + (300 + 200 * k) * kUs, ApiTimes{call, call + 10 * kUs, 1});
    }
  }
  return b.Build();
}

TEST(SteadyState, RepeatedNvtxRangeAfterLongStartupIsTheSteadyState) {
  TraceModel m = StartupThenTenSteps();
  SteadyState s = FindSteadyState(m);
  EXPECT_EQ(s.method, SteadyStateMethod::kNvtxRange);
  EXPECT_EQ(m.strings.Get(s.nvtx_name), "step") << "outermost of the repeated ranges";
  EXPECT_EQ(s.nvtx_instances.size(), 10u);
  EXPECT_EQ(s.nvtx_depth, 1);
  EXPECT_EQ(s.window.start_ns, 100 * kMs + 100 * kUs) << "from the steady state's first GPU op";
  EXPECT_EQ(s.window.end_ns, 110 * kMs);
  EXPECT_EQ(WindowLabel(s.window), "steady state: 10 instances of NVTX range 'step'");
  // Of the GPU time submitted from the first instance on: the warm-up
  // kernel before the loop lies apart, not weighed against the steps.
  EXPECT_NEAR(s.gpu_share, 1.0, 1e-9);
  // Start-up: from the first call to the first GPU op.
  EXPECT_EQ(s.startup.start, 1 * kMs);
  EXPECT_EQ(s.startup.end, 99 * kMs);
  EXPECT_TRUE(s.first_launches.empty());
}

TEST(SteadyState, KernelsOutlastingTheirRangeExtendTheWindow) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  for (int64_t s = 0; s < 4; ++s) {
    int64_t t = s * kMs;
    b.Nvtx("iter", 1, t, t + 100 * kUs);
    b.Kernel("k", kStream, t + 50 * kUs, t + 900 * kUs, ApiTimes{t + 10 * kUs, t + 20 * kUs, 1});
  }
  TraceModel m = b.Build();
  SteadyState s = FindSteadyState(m);
  ASSERT_EQ(s.method, SteadyStateMethod::kNvtxRange);
  EXPECT_EQ(s.window.start_ns, 50 * kUs);
  EXPECT_EQ(s.window.end_ns, 3 * kMs + 900 * kUs);
}

TEST(SteadyState, RangeCoveringLittleGpuWorkIsNotTheSteadyState) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  // Three "log" ranges with one tiny kernel each; the real work is outside.
  for (int64_t s = 0; s < 3; ++s) {
    b.Nvtx("log", 1, s * kMs, s * kMs + 100 * kUs);
    b.Kernel("tiny", kStream, s * kMs + 20 * kUs, s * kMs + 30 * kUs,
             ApiTimes{s * kMs + 10 * kUs, s * kMs + 15 * kUs, 1});
  }
  b.Kernel("big", kStream, 5 * kMs, 9 * kMs, ApiTimes{5 * kMs - 10 * kUs, 5 * kMs, 1});
  TraceModel m = b.Build();
  SteadyState s = FindSteadyState(m);
  EXPECT_EQ(s.method, SteadyStateMethod::kGpuSpan);
  EXPECT_EQ(s.window.start_ns, 20 * kUs);
  EXPECT_EQ(s.window.end_ns, 9 * kMs);
  EXPECT_EQ(WindowLabel(s.window), "GPU activity (no steady state found)");
}

// Without NVTX: 100 ms of start-up with two one-off kernels, then 10
// repeats of kernels a, b, c (each 100 us, launched 100 us apart).
TraceModel StartupThenKernelLoop() {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Api("cudaSetDevice", 1, 0, 90 * kMs);
  b.Kernel("init_a", kStream, 95 * kMs, 95 * kMs + 10 * kUs, ApiTimes{94 * kMs, 94 * kMs + 10 * kUs, 1});
  b.Kernel("init_b", kStream, 96 * kMs, 96 * kMs + 10 * kUs, ApiTimes{95 * kMs, 95 * kMs + 10 * kUs, 1});
  const char* names[] = {"a", "b", "c"};
  for (int64_t j = 0; j < 30; ++j) {
    int64_t call = 100 * kMs + j * 100 * kUs;
    b.Kernel(names[j % 3], kStream, call + 5 * kUs, call + 95 * kUs, ApiTimes{call, call + 10 * kUs, 1});
  }
  return b.Build();
}

TEST(SteadyState, RepeatingKernelSequenceWithoutNvtxIsFound) {
  TraceModel m = StartupThenKernelLoop();
  SteadyState s = FindSteadyState(m);
  EXPECT_EQ(s.method, SteadyStateMethod::kKernelSequence);
  EXPECT_EQ(s.period_kernels, 3);
  EXPECT_EQ(s.repeats, 10);
  EXPECT_EQ(m.strings.Get(m.ops.name[s.first_kernel]), "a");
  EXPECT_EQ(m.ops.start_ns[s.first_kernel], 100 * kMs + 5 * kUs);
  EXPECT_EQ(m.strings.Get(m.ops.name[s.last_kernel]), "c");
  EXPECT_EQ(s.window.start_ns, 100 * kMs + 5 * kUs);   // the first kernel of the stretch
  EXPECT_EQ(s.window.end_ns, 100 * kMs + 2995 * kUs);  // the last kernel's end
  EXPECT_EQ(WindowLabel(s.window), "steady state: 10 repeats of a sequence of 3 kernels");
  EXPECT_EQ(s.startup.end, 95 * kMs);
}

// A chunked loop: each chunk an H2D copy, a kernel and a D2H copy on one
// stream. The repeats hold the copies too: the window runs from the first
// chunk's H2D to the last chunk's D2H.
TEST(SteadyState, KernelSequenceWindowHoldsTheCopiesOfEachRepeat) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  for (int64_t j = 0; j < 5; ++j) {
    int64_t t = j * 1000 * kUs;
    b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kStream, t + 5 * kUs, t + 105 * kUs,
           ApiTimes{t, t + 10 * kUs, 1}, "cudaMemcpyAsync", true, 1 << 20);
    b.Kernel("k", kStream, t + 110 * kUs, t + 400 * kUs, ApiTimes{t + 10 * kUs, t + 20 * kUs, 1});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, kStream, t + 405 * kUs, t + 505 * kUs,
           ApiTimes{t + 20 * kUs, t + 30 * kUs, 1}, "cudaMemcpyAsync", true, 1 << 20);
  }
  TraceModel m = b.Build();
  SteadyState s = FindSteadyState(m);
  ASSERT_EQ(s.method, SteadyStateMethod::kKernelSequence);
  EXPECT_EQ(s.window.start_ns, 5 * kUs) << "the first chunk's H2D copy";
  EXPECT_EQ(s.window.end_ns, 4505 * kUs) << "the last chunk's D2H copy";
  EXPECT_NEAR(s.gpu_share, 1.0, 1e-9);
}

TEST(SteadyState, PartialLastRepeatIsLeftOut) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  const char* names[] = {"a", "b", "c", "d"};
  for (int64_t j = 0; j < 4 * 5 + 2; ++j) {  // 5 repeats of abcd, then a, b
    int64_t call = j * 100 * kUs;
    b.Kernel(names[j % 4], kStream, call + 5 * kUs, call + 95 * kUs, ApiTimes{call, call + 10 * kUs, 1});
  }
  TraceModel m = b.Build();
  SteadyState s = FindSteadyState(m);
  ASSERT_EQ(s.method, SteadyStateMethod::kKernelSequence);
  EXPECT_EQ(s.period_kernels, 4);
  EXPECT_EQ(s.repeats, 5);
  EXPECT_EQ(m.strings.Get(m.ops.name[s.last_kernel]), "d");
}

TEST(SteadyState, NoRepetitionGivesTheGpuSpan) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Api("cudaSetDevice", 1, 0, 50 * kMs);
  b.Kernel("x", kStream, 60 * kMs, 61 * kMs, ApiTimes{59 * kMs, 59 * kMs + 10 * kUs, 1});
  b.Kernel("y", kStream, 62 * kMs, 63 * kMs, ApiTimes{61 * kMs, 61 * kMs + 10 * kUs, 1});
  TraceModel m = b.Build();
  SteadyState s = FindSteadyState(m);
  EXPECT_EQ(s.method, SteadyStateMethod::kGpuSpan);
  EXPECT_EQ(s.window.start_ns, 60 * kMs);
  EXPECT_EQ(s.window.end_ns, 63 * kMs);
  EXPECT_EQ(s.startup.length(), 60 * kMs);
  EXPECT_EQ(DefaultWindow(m).start_ns, 60 * kMs);
  EXPECT_EQ(&DefaultSteadyState(m), &DefaultSteadyState(m)) << "built once per trace";
}

TEST(SteadyState, TraceWithoutGpuOpsHasNone) {
  ModelBuilder b;
  b.Api("cudaGetDeviceCount", 1, 10, 20);
  TraceModel m = b.Build();
  SteadyState s = FindSteadyState(m);
  EXPECT_EQ(s.method, SteadyStateMethod::kNone);
  EXPECT_EQ(s.window.start_ns, 10);
  EXPECT_EQ(s.window.end_ns, 20);
  EXPECT_TRUE(s.startup.empty());
}

TEST(SteadyState, FirstLaunchMuchSlowerThanItsMedianIsReportedApart) {
  TraceModel m = testing::FirstLaunchTrace();
  SteadyState s = FindSteadyState(m);
  ASSERT_EQ(s.first_launches.size(), 1u);
  const FirstLaunchOutlier& f = s.first_launches[0];
  EXPECT_EQ(m.strings.Get(f.kernel), "k");
  EXPECT_EQ(f.call_ns, 5000 * kUs);
  EXPECT_EQ(f.median_ns, 10 * kUs);
  EXPECT_EQ(f.excess_ns(), 4990 * kUs);
  EXPECT_EQ(s.first_launch_excess_ns, 4990 * kUs);
  EXPECT_EQ(m.ops.start_ns[f.op], 4995 * kUs);
}

TEST(SteadyState, KernelLaunchedOnceIsComparedWithItsLaunchCall) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  // "once" is launched once, in 41 ms; other kernels' launches take 20-60 us.
  b.Kernel("once", kStream, 41 * kMs, 42 * kMs, ApiTimes{0, 41 * kMs, 1});
  for (int64_t j = 0; j < 5; ++j) {
    int64_t call = 50 * kMs + j * kMs;
    b.Kernel("other" + std::to_string(j), kStream, call + 100 * kUs, call + 200 * kUs,
             ApiTimes{call, call + (20 + 10 * j) * kUs, 1});
  }
  TraceModel m = b.Build();
  std::vector<FirstLaunchOutlier> out = FindFirstLaunchOutliers(m);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(m.strings.Get(out[0].kernel), "once");
  EXPECT_EQ(out[0].median_ns, 40 * kUs);  // median of all six cudaLaunchKernel calls' lower middle
}

// The first launch is the first by its call, not by when the kernel ran:
// the slow first call's kernel ran after a later call's kernel on another
// stream.
TEST(SteadyState, FirstLaunchIsTheFirstCallWhateverOrderTheKernelsRan) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Kernel("k", 1, 6000 * kUs, 6010 * kUs, ApiTimes{0, 5000 * kUs, 1});
  b.Kernel("k", 2, 5200 * kUs, 5210 * kUs, ApiTimes{5100 * kUs, 5110 * kUs, 2});
  b.Kernel("k", 2, 7000 * kUs, 7010 * kUs, ApiTimes{5200 * kUs, 5210 * kUs, 2});
  TraceModel m = b.Build();
  ASSERT_GT(m.ops.start_ns[1], m.ops.start_ns[0]);  // the first call's kernel is the second op
  std::vector<FirstLaunchOutlier> out = FindFirstLaunchOutliers(m);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].call_ns, 5000 * kUs);
  EXPECT_EQ(out[0].median_ns, 10 * kUs);
  EXPECT_EQ(m.ops.start_ns[out[0].op], 6000 * kUs);
}

// Two calls that start at once (two threads) launch the same kernel: the
// first launch is the one whose kernel comes first in op order, here the
// 10 us call. Picking the 5 ms call instead would report it as an outlier
// against the others' 10 us.
TEST(SteadyState, OfTwoCallsThatStartAtOnceTheFirstLaunchIsTheFirstOp) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Kernel("k", 1, 6000 * kUs, 6010 * kUs, ApiTimes{0, 5000 * kUs, 1});
  b.Kernel("k", 2, 20 * kUs, 30 * kUs, ApiTimes{0, 10 * kUs, 2});
  for (int64_t j = 1; j <= 3; ++j) {
    b.Kernel("k", 2, (7000 + 100 * j) * kUs, (7010 + 100 * j) * kUs,
             ApiTimes{(6900 + 100 * j) * kUs, (6910 + 100 * j) * kUs, 2});
  }
  TraceModel m = b.Build();
  ASSERT_EQ(m.ops.start_ns[0], 20 * kUs);  // the 10 us call's kernel is the first op
  EXPECT_TRUE(FindFirstLaunchOutliers(m).empty());
}

// A large trace finds its first launches on a thread beside the window
// (none under STREAMSCOPE_THREADS=1): the same steady state either way.
TEST(SteadyState, ALargeTracesFirstLaunchesOnAThreadAreTheSame) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  constexpr int64_t kKernels = 70'000;
  for (int64_t i = 0; i < kKernels; ++i) {
    const int64_t call = i == 0 ? 0 : 10 * kMs + i * 20 * kUs;
    const int64_t call_ns = i == 0 ? 5 * kMs : 5 * kUs;  // the first launch loads the module
    b.Kernel(i % 2 == 0 ? "even" : "odd", kStream, call + call_ns + kUs, call + call_ns + 3 * kUs,
             ApiTimes{call, call + call_ns, 1});
  }
  TraceModel m = b.Build();
  int64_t threads = 0, none = 0;
  const SteadyState beside = testing::WithAnalyzerThreads(
      true, [&] { return FindSteadyState(m); }, &threads);
  const SteadyState alone = testing::WithAnalyzerThreads(
      false, [&] { return FindSteadyState(m); }, &none);
  EXPECT_EQ(threads, 1);
  EXPECT_EQ(none, 0);
  ASSERT_EQ(beside.first_launches.size(), 1u);
  EXPECT_EQ(m.strings.Get(beside.first_launches[0].kernel), "even");
  EXPECT_EQ(beside.first_launches[0].call_ns, 5 * kMs);
  EXPECT_EQ(beside.first_launch_excess_ns, alone.first_launch_excess_ns);
  EXPECT_EQ(beside.first_launch_excess_ns, 5 * kMs - 5 * kUs);
  EXPECT_EQ(beside.method, alone.method);
  EXPECT_EQ(beside.window.start_ns, alone.window.start_ns);
  EXPECT_EQ(beside.window.end_ns, alone.window.end_ns);
}

TEST(SteadyState, LaunchesOfSimilarTimeAreNoOutliers) {
  TraceModel m = testing::HostSleepTrace();
  EXPECT_TRUE(FindFirstLaunchOutliers(m).empty());
}

TEST(SteadyState, InconsistentTracesNeverCrash) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 300);
    SteadyState s = FindSteadyState(m);
    EXPECT_LE(s.window.start_ns, s.window.end_ns) << seed;
  }
}

}  // namespace
}  // namespace streamscope
