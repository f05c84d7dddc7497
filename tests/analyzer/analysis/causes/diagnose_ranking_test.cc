// Known-answer tests of the conclusions: the primary cause is
// the one whose removal saves most, on synthetic traces with planted causes
// of known cost (planted_traces.h) and on the real H200 fixtures that plant
// one case each (tests/data/tiny_sync, long_startup, slow_first_launch).
#include "analyzer/analysis/causes/diagnose_ranking.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/what_if.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/base/units.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/run_plan.h"
#include "analyzer/render/diagnose_wording.h"
#include "analyzer/render/window_label.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/diagnose_ranked.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::kUs;

using testing::DiagnoseThroughPipeline;
using testing::Find;
using testing::Ranking;

TraceModel LoadFixture(const std::string& name) {
  auto models = LoadTraceFile("tests/data/" + name + ".sqlite");
  EXPECT_TRUE(models.ok()) << name << ": " << models.status();
  if (!models.ok() || models->empty()) return TraceModel{};
  return std::move(models->front());
}

// A launch-bound loop that also syncs and works on the host: per 50 us
// iteration, 4 launch calls of 10 us each submit a 3 us kernel (5 us after
// the call starts), a stream sync [40, 41) finds the GPU done, and the host
// works 9 us before the next iteration.
TraceModel LaunchSyncHostLoop() {
  testing::ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  for (int64_t i = 0; i < 20; ++i) {
    const int64_t t = (100 + 50 * i) * kUs;
    for (int64_t j = 0; j < 4; ++j) {
      const int64_t c = t + 10 * j * kUs;
      b.Kernel("k", 13, c + 5 * kUs, c + 8 * kUs, testing::ApiTimes{c, c + 10 * kUs, 1});
    }
    b.Sync(SyncKind::kStreamSynchronize, 13, t + 40 * kUs, t + 41 * kUs, "cudaStreamSynchronize", 1);
  }
  return b.Build();
}

TEST(DiagnoseRanking, CausesActingOnTheSameGapsAreEstimatedTogether) {
  TraceModel m = LaunchSyncHostLoop();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  const CombinedEstimate& c = r.combined;
  ASSERT_TRUE(c.evaluated) << Ranking(r);
  // The recorded GPU span: 105 to 1088 us. The sync finds the GPU done:
  // dropping it saves nothing. Without the host work, 9 us of each of the
  // 19 steps before the last. Without the launches' blocking, a step's 4
  // kernels run back to back (17 us after its start), the sync returns 1 us
  // after them and the host works 9 us: 27 us a step instead of 50, and the
  // last step's kernels end 21 us sooner.
  EXPECT_EQ(c.waits_alone_ns, 0);
  EXPECT_EQ(c.host_alone_ns, 19 * 9 * kUs);
  EXPECT_EQ(c.launches_alone_ns, (19 * 23 + 21) * kUs);
  // All three removed: the 80 kernels run back to back, 3 us each.
  EXPECT_EQ(c.together_ns, (1088 - 105 - 80 * 3) * kUs);
  EXPECT_TRUE(c.reported);
  EXPECT_GE(c.together_ns * 4, c.best_alone_ns() * 5);
  EXPECT_NE(DiagnoseCombinedText(c).find("launch less often"), std::string::npos);
}

TEST(DiagnoseRanking, AFixThatSavesAsMuchAloneIsNotReportedAsCombined) {
  // planted_traces.h: removing the host work in 'prepare' alone saves 5000
  // us, and with the syncs' savings alone leaves less idle time than a
  // significant gain: no combination is replayed or reported.
  TraceModel m = testing::ThreeCausesTrace();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  EXPECT_FALSE(r.combined.evaluated);
  EXPECT_FALSE(r.combined.reported) << r.combined.together_ns;
}

TEST(DiagnoseRanking, RealCausesActTogetherOnlyWhereTheyShareGaps) {
  // tiny_sync (H200): each iteration a graph launch, an 8-byte pageable
  // read-back and a sync. The waits, the host work and the launch calls sit
  // in the same gaps: together they save more than their savings alone.
  TraceModel tiny = LoadFixture("tiny_sync");
  const CombinedEstimate t = DiagnoseThroughPipeline(tiny, DefaultSteadyState(tiny).window).combined;
  ASSERT_TRUE(t.evaluated);
  EXPECT_TRUE(t.reported);
  EXPECT_GT(t.together_ns, t.sum_alone_ns());
  // misleading_timing: host work and launch calls on different gaps: their
  // savings only add up (within a microsecond), no combined finding.
  TraceModel mis = LoadFixture("misleading_timing");
  const CombinedEstimate u = DiagnoseThroughPipeline(mis, DefaultSteadyState(mis).window).combined;
  ASSERT_TRUE(u.evaluated);
  EXPECT_FALSE(u.reported);
  EXPECT_LE(u.together_ns - u.sum_alone_ns(), 1 * kUs);
}

TEST(DiagnoseRanking, PlantedCausesAreRankedByTheirKnownSaving) {
  // planted_traces.h: removing the host work in 'prepare' saves 5000 us,
  // the pageable copy at the pinned rate 1550 us, the syncs alone 1275 us.
  // sync_between drops every host wait together (the syncs and the
  // pageable copy calls that held the host: 2905 us) and keeps what that
  // adds to dropping the holds alone (each kernel 10 us earlier behind its
  // copy, 5 x 10 = 50 us): 2855 us, more than the syncs alone.
  TraceModel m = testing::ThreeCausesTrace();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  const DiagnoseFinding* host = Find(r, DiagnoseCause::kCpuStarvation);
  const DiagnoseFinding* pageable = Find(r, DiagnoseCause::kPageableCopies);
  const DiagnoseFinding* sync = Find(r, DiagnoseCause::kSyncBetween);
  ASSERT_NE(host, nullptr) << Ranking(r);
  ASSERT_NE(pageable, nullptr) << Ranking(r);
  ASSERT_NE(sync, nullptr) << Ranking(r);
  EXPECT_EQ(host->estimated_saving_ns, 5000 * kUs);
  EXPECT_EQ(pageable->estimated_saving_ns, 1550 * kUs);
  EXPECT_EQ(sync->estimated_saving_ns, 2855 * kUs);
  ASSERT_NE(r.primary(), nullptr);
  EXPECT_EQ(r.primary(), host) << Ranking(r);
  std::vector<DiagnoseCause> order;
  for (int32_t i : r.ranked) {
    DiagnoseCause c = r.findings[i].cause;
    if (c == DiagnoseCause::kCpuStarvation || c == DiagnoseCause::kPageableCopies || c == DiagnoseCause::kSyncBetween) {
      order.push_back(c);
    }
  }
  EXPECT_EQ(order, (std::vector<DiagnoseCause>{DiagnoseCause::kCpuStarvation, DiagnoseCause::kSyncBetween,
                                               DiagnoseCause::kPageableCopies}))
      << Ranking(r);
}

TEST(DiagnoseRanking, ASyncBeforePageableCopiesDoesNotTakeTheCopiesSaving) {
  // pageable_large on the H200: one cudaDeviceSynchronize before 16 pageable
  // 64 MiB copies was estimated to save 42.9 ms, the copies' own saving.
  TraceModel m = testing::SyncBeforePageableCopiesTrace();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  const DiagnoseFinding* pageable = Find(r, DiagnoseCause::kPageableCopies);
  const DiagnoseFinding* sync = Find(r, DiagnoseCause::kSyncBetween);
  ASSERT_NE(pageable, nullptr) << Ranking(r);
  ASSERT_NE(sync, nullptr) << Ranking(r);
  ASSERT_TRUE(pageable->saving_estimated) << Ranking(r);
  // Three 100 us host gaps between held calls removed at least; the sync
  // saves at most the 100 us the host waited in it.
  EXPECT_GE(pageable->estimated_saving_ns, 300 * testing::kUs) << Ranking(r);
  EXPECT_LE(sync->estimated_saving_ns, 100 * testing::kUs) << Ranking(r);
  EXPECT_LT(sync->estimated_saving_ns, pageable->estimated_saving_ns) << Ranking(r);
}

TEST(DiagnoseRanking, HostWorkSplitOverNamesIsRemovedTogether) {
  // planted_traces.h SplitHostWorkTrace: each name alone saves 4000 us,
  // both together 6920 us (all the GPU idle time between the steps).
  TraceModel m = testing::SplitHostWorkTrace();
  WhatIfResult alone = EstimateSavings(m, WholeTraceWindow(m));
  int host_causes = 0;
  for (const WhatIfEstimate& e : alone.estimates) {
    if (e.cause.kind != WhatIfKind::kHostWork) continue;
    ++host_causes;
    EXPECT_EQ(e.estimated_saving_ns, 4000 * kUs) << (e.cause.name == kNoString ? "unannotated" : "load");
  }
  EXPECT_EQ(host_causes, 2);
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  const DiagnoseFinding* starvation = Find(r, DiagnoseCause::kCpuStarvation);
  ASSERT_NE(starvation, nullptr) << Ranking(r);
  EXPECT_TRUE(starvation->saving_estimated);
  EXPECT_EQ(starvation->estimated_saving_ns, 6920 * kUs) << Ranking(r);
  ASSERT_NE(r.primary(), nullptr);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kCpuStarvation) << Ranking(r);
}

TEST(DiagnoseRanking, AWarmUpLaunchIsNotTheAloneReferenceOfContention) {
  // overlapped.sqlite: a tiny warm-up launch of ChunkTransform (0.7 us)
  // falls inside the default window beside the real ones (~100 us, all
  // overlapping copies): 141x is other work under the same name, not
  // contention, and must not become the primary cause.
  TraceModel m = LoadFixture("overlapped");
  DiagnoseResult r = DiagnoseThroughPipeline(m, DefaultSteadyState(m).window);
  EXPECT_EQ(Find(r, DiagnoseCause::kContention), nullptr) << Ranking(r);
}

TEST(DiagnoseRanking, FindingsKeepTheCheckOrderAndTheRankingIsAPermutation) {
  TraceModel m = testing::ThreeCausesTrace();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  ASSERT_EQ(r.ranked.size(), r.findings.size());
  std::vector<int32_t> sorted = r.ranked;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], static_cast<int32_t>(i));
  for (size_t i = 1; i < r.findings.size(); ++i) {
    if (r.findings[i - 1].significant == r.findings[i].significant) {
      EXPECT_LE(StepOf(r.findings[i - 1].cause), StepOf(r.findings[i].cause));
    }
  }
}

TEST(DiagnoseRanking, EveryFindingShowsItsCostAndItsSavingAsAnEstimate) {
  TraceModel m = testing::ThreeCausesTrace();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  for (const DiagnoseFinding& f : r.findings) {
    std::string text = DiagnoseCostAndSaving(f, r.gpu_span_ns);
    EXPECT_NE(text.find("measured cost"), std::string::npos) << text;
    EXPECT_TRUE(text.find("estimated saving") != std::string::npos ||
                text.find("no saving estimate") != std::string::npos)
        << text;
  }
  EXPECT_NE(DiagnoseSavingNote().find("streamscope compare"), std::string::npos);
}

// launch_individual: 2000 tiny kernels launched one by one. Small work has
// no what-if; its measured cost (the gaps a graph removes) outranks the
// small estimated saving of the host work between launches.
TEST(DiagnoseRanking, LaunchBoundLoopKeepsSmallWorkAsPrimaryCause) {
  TraceModel m = LoadFixture("launch_individual");
  ASSERT_GT(m.ops.size(), 0u);
  DiagnoseResult r = DiagnoseThroughPipeline(m, DefaultWindow(m));
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kSmallWork) << Ranking(r);
  EXPECT_FALSE(r.primary()->saving_estimated);
}

// A loop that reads a result back every step and tests it on the host
// before the next launch: per step `prep` of host work, a launch [0, 5) us
// after it of a kernel of `gpu` (from 8 us), a D2H copy of
// `readback_bytes` after the kernel, a stream sync that returns 2 us after
// the copy, then the next step's host work (workloads/torch/item_per_step.py
// with a preparation, jacobiCudaGraphs with its host test).
TraceModel PreparedRoundTripLoop(int steps, int64_t prep, int64_t gpu, int64_t readback_bytes = 4) {
  testing::ModelBuilder b;
  constexpr int64_t kStream = 13;
  b.Stream(kStream, StreamKind::kNonBlocking);
  int64_t t = 0;
  for (int i = 0; i < steps; ++i) {
    const int64_t l = t + prep;  // the launch
    const int64_t kernel_end = l + 8 * kUs + gpu;
    b.Kernel("step", kStream, l + 8 * kUs, kernel_end, testing::ApiTimes{l, l + 5 * kUs, 1});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, kStream, kernel_end, kernel_end + 2 * kUs,
           testing::ApiTimes{l + 6 * kUs, l + 9 * kUs, 1}, "cudaMemcpyAsync", true, readback_bytes);
    b.Sync(SyncKind::kStreamSynchronize, kStream, l + 10 * kUs, kernel_end + 4 * kUs, "cudaStreamSynchronize", 1);
    t = kernel_end + 4 * kUs;
  }
  return b.Build();
}

// The jacobiCudaGraphs loop: each iteration a kernel (20 us), an 8-byte
// copy back, cudaStreamSynchronize, 48 us of host test, the next launch
// (an 80 us period).
TraceModel RoundTripLoop(int iterations, int64_t readback_bytes = 8) {
  return PreparedRoundTripLoop(iterations, 48 * kUs, 20 * kUs, readback_bytes);
}

TEST(DiagnoseRanking, ALoopThatWaitsForEachResultIsARoundTripWithRemediesThatKeepTheLaunch) {
  TraceModel m = RoundTripLoop(20);
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kRoundTrip) << Ranking(r);
  const auto& facts = std::get<RoundTripFacts>(r.primary()->facts);
  EXPECT_EQ(facts.iterations, 19);
  EXPECT_EQ(facts.readback_bytes, 8);
  // Each 58 us gap from the copy's end to the next kernel: the sync's
  // return, 48 us of host test and the next launch's path.
  EXPECT_EQ(r.primary()->impact_ns, 19 * 58 * kUs);
  EXPECT_TRUE(r.primary()->saving_estimated);
  EXPECT_GE(facts.together_saving_ns, facts.readback_saving_ns);
  EXPECT_GE(facts.together_saving_ns, facts.host_alone_saving_ns);
  const std::string remedy = DiagnoseRemedy(*r.primary());
  EXPECT_NE(remedy.find("every k iterations"), std::string::npos) << remedy;
  EXPECT_NE(remedy.find("graph"), std::string::npos) << remedy;
  EXPECT_EQ(remedy.find("out of the"), std::string::npos) << remedy;
  // No other finding claims the same idle time.
  EXPECT_EQ(Find(r, DiagnoseCause::kSyncBetween), nullptr) << Ranking(r);
  const DiagnoseFinding* host = Find(r, DiagnoseCause::kCpuStarvation);
  EXPECT_TRUE(host == nullptr || host->impact_ns == 0) << Ranking(r);
}

// A PyTorch-like step on two threads (autograd's handoff) reading its loss
// back each step: the round trip is the primary cause, and its estimate
// (the read-backs gone) is its whole idle time: the GPU, not the host,
// then sets the pace (planted_traces.h works it out).
TEST(DiagnoseRanking, ARoundTripAcrossTwoThreadsIsEstimatedThroughTheHandoff) {
  TraceModel m = testing::AutogradHandoffLoop(20);
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kRoundTrip) << Ranking(r);
  EXPECT_EQ(r.primary()->impact_ns, 19 * 113 * kUs);
  EXPECT_TRUE(r.primary()->saving_estimated);
  EXPECT_EQ(r.primary()->estimated_saving_ns, 19 * 113 * kUs);
  const auto& facts = std::get<RoundTripFacts>(r.primary()->facts);
  EXPECT_EQ(facts.readback_saving_ns, 19 * 113 * kUs);
  EXPECT_EQ(facts.readback_bytes, 4);
}

// A host-bound PyTorch-like step reading its loss back with `.item()`: ten
// launches (5 us calls, 10 us apart: the thread's median host gap), 40 us
// of .item() dispatch, its cudaMemcpyAsync (12 us) of 4 bytes, a
// cudaStreamSynchronize (8 us) that finds the copy done, then 30 us of the
// next step's preparation. The read-backs gone (the remedy: .item() every
// k steps) take their calls and the dispatch before the copy (40 -> 10 us)
// with them, 50 us a step; the next step's preparation stays. The span's
// end (the last copy) moves by 19 steps of 50 us and its own dispatch's 30.
TEST(DiagnoseRanking, TheReadBacksGoneTakeTheirHostDispatchNotTheNextStepsPreparation) {
  testing::ModelBuilder b;
  constexpr int64_t kStream = 7;
  b.Stream(kStream, StreamKind::kLegacyDefault);
  int64_t t = 0;
  for (int step = 0; step < 20; ++step) {
    for (int k = 0; k < 10; ++k) {
      const int64_t c = t + 15 * kUs * k;
      b.Kernel("aten_op", kStream, c + 7 * kUs, c + 9 * kUs, testing::ApiTimes{c, c + 5 * kUs, 1});
    }
    const int64_t copy_call = t + 140 * kUs + 40 * kUs;
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, kStream, copy_call + 8 * kUs,
           copy_call + 10 * kUs, testing::ApiTimes{copy_call, copy_call + 12 * kUs, 1}, "cudaMemcpyAsync", true, 4);
    const int64_t sync = copy_call + 13 * kUs;
    b.Sync(SyncKind::kStreamSynchronize, kStream, sync, sync + 8 * kUs, "cudaStreamSynchronize", 1);
    t = sync + 8 * kUs + 30 * kUs;
  }
  TraceModel m = b.Build();
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  const DiagnoseFinding* f = Find(r, DiagnoseCause::kRoundTrip);
  ASSERT_NE(f, nullptr) << Ranking(r);
  const auto& facts = std::get<RoundTripFacts>(f->facts);
  EXPECT_EQ(facts.readback_saving_ns, (19 * 50 + 30) * kUs) << Ranking(r);
}

// All the host work lies in the round trip's gaps (between the sync's
// return and the next launch), so the idle account gives it all to the
// round trip, which leads whether or not the loop stays host-bound without
// the read-backs; its text then says what the host work alone and both
// together would save. Worked out by hand: host-bound (150 us of
// preparation, 100 us of GPU work a step, a 262 us step), each of the 19
// gaps between steps is 160 us (2 us of sync return, the preparation, 8 us
// of launch); without the read-backs the host needs 157 us a step against
// the GPU's 102 (saving 105 us a step), without the host work the GPU sets
// the pace (150 us), both together every gap goes. GPU-bound (50 us of
// preparation, 150 us of GPU work): 60 us gaps, all of them saved without
// the read-backs, 50 us without the host work.
TEST(DiagnoseRanking, HostWorkInsideTheRoundTripsGapsIsTheRoundTripsWithBothSavingsInItsText) {
  struct Case {
    int64_t prep, gpu, gap, readback, host_alone;
  };
  for (const Case& c : {Case{150 * kUs, 100 * kUs, 160 * kUs, 105 * kUs, 150 * kUs},
                        Case{50 * kUs, 150 * kUs, 60 * kUs, 60 * kUs, 50 * kUs}}) {
    SCOPED_TRACE(c.prep);
    TraceModel m = PreparedRoundTripLoop(20, c.prep, c.gpu);
    DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
    ASSERT_NE(r.primary(), nullptr) << Ranking(r);
    EXPECT_EQ(r.primary()->cause, DiagnoseCause::kRoundTrip) << Ranking(r);
    EXPECT_EQ(r.primary()->impact_ns, 19 * c.gap);
    EXPECT_EQ(r.primary()->estimated_saving_ns, 19 * c.readback);
    const auto& facts = std::get<RoundTripFacts>(r.primary()->facts);
    EXPECT_EQ(facts.iterations, 19);
    EXPECT_EQ(facts.readback_bytes, 4);
    EXPECT_EQ(facts.readback_saving_ns, 19 * c.readback);
    EXPECT_EQ(facts.host_alone_saving_ns, 19 * c.host_alone);
    EXPECT_EQ(facts.together_saving_ns, 19 * c.gap);
    const DiagnoseFinding* host = Find(r, DiagnoseCause::kCpuStarvation);
    EXPECT_TRUE(host == nullptr || host->impact_ns == 0) << Ranking(r);
    const std::string text = DiagnoseSummary(*r.primary(), m);
    EXPECT_NE(text.find("removing the host work alone would save " + FormatDuration(19 * c.host_alone)),
              std::string::npos)
        << text;
  }
}

// The same loop reading back a whole 4 MiB array each iteration (the host
// goes on to process the data, as an MPI exchange does): not a result
// tested, so not a round trip; the waits stay the sync's and the host's.
TEST(DiagnoseRanking, ReadingBackWholeDataIsNotARoundTrip) {
  TraceModel m = RoundTripLoop(20, int64_t{4} << 20);
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  EXPECT_EQ(Find(r, DiagnoseCause::kRoundTrip), nullptr) << Ranking(r);
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kSyncBetween) << Ranking(r);
}

// tiny_sync: a graph, an 8-byte pageable D2H copy and a stream sync every
// iteration: a round trip per iteration, which costs most; the 8-byte
// copies are latency-bound.
TEST(DiagnoseRanking, TinySyncPrimaryCauseIsTheRoundTripNotThePageableCopies) {
  TraceModel m = LoadFixture("tiny_sync");
  ASSERT_GT(m.ops.size(), 0u);
  Window w = DefaultWindow(m);
  DiagnoseResult r = DiagnoseThroughPipeline(m, w);
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kRoundTrip) << Ranking(r);
  EXPECT_TRUE(r.primary()->saving_estimated);
  EXPECT_GT(r.primary()->estimated_saving_ns, 0);
  const DiagnoseFinding* pageable = Find(r, DiagnoseCause::kPageableCopies);
  ASSERT_NE(pageable, nullptr) << Ranking(r);
  const auto& facts = std::get<PageableCopiesFacts>(pageable->facts);
  ASSERT_FALSE(facts.directions.empty());
  EXPECT_TRUE(facts.directions.front().latency_bound);
  std::string summary = DiagnoseSummary(*pageable, m);
  EXPECT_EQ(summary.find("per byte than"), std::string::npos) << summary;
  EXPECT_NE(summary.find("latency-bound"), std::string::npos) << summary;
}

// long_startup: 300 ms of host start-up, then 20 NVTX 'step' ranges.
TEST(DiagnoseRanking, LongStartupDefaultWindowIsTheStepInstancesWithStartupApart) {
  TraceModel m = LoadFixture("long_startup");
  ASSERT_GT(m.ops.size(), 0u);
  const SteadyState& s = DefaultSteadyState(m);
  EXPECT_EQ(s.method, SteadyStateMethod::kNvtxRange);
  EXPECT_EQ(m.strings.Get(s.nvtx_name), "step");
  EXPECT_EQ(s.nvtx_instances.size(), 20u);
  EXPECT_GE(s.startup.end - s.startup.start, 300'000'000) << "the start-up before the first GPU op";
  auto windows = ResolveWindows(m, WindowSpec{});
  ASSERT_TRUE(windows.ok());
  ASSERT_EQ(windows->size(), 1u);
  const Window& w = windows->front();
  EXPECT_NE(WindowLabel(w).find("20 instances of NVTX range 'step'"), std::string::npos) << WindowLabel(w);
  EXPECT_GE(w.start_ns, s.startup.end) << "start-up lies outside the default window";
  absl::StatusOr<WindowResults> r = RunPlan(m, w, ReportPlan(false, 10, 10'000));
  ASSERT_TRUE(r.ok());
  // Not idle time or starvation: the window's idle share is that of the steps.
  EXPECT_LT(r->idle.devices.front().idle_ns * 10, w.length()) << "idle below 10 % of the steady state";
  int64_t starvation = 0;
  for (int c = 0; c < kNumGapCauses; ++c) {
    if (IsCpuStarvation(static_cast<GapCause>(c))) starvation += r->gap_causes.cause_ns[c];
  }
  EXPECT_LT(starvation * 10, w.length());
}

// slow_first_launch: the first cudaLaunchKernel loads the module.
TEST(DiagnoseRanking, SlowFirstLaunchIsAFirstLaunchOutlierNotLaunchBound) {
  TraceModel m = LoadFixture("slow_first_launch");
  ASSERT_GT(m.ops.size(), 0u);
  Window w = DefaultWindow(m);
  absl::StatusOr<WindowResults> r = RunPlan(m, w, ReportPlan(false, 10, 10'000));
  ASSERT_TRUE(r.ok());
  const SteadyState& s = DefaultSteadyState(m);
  ASSERT_EQ(s.first_launches.size(), 1u);
  EXPECT_EQ(m.strings.Get(s.first_launches.front().kernel), "SpinCompute");
  EXPECT_EQ(r->launch_stats.launch_bound_kernels, 0);
  for (const KernelLaunchStats& k : r->launch_stats.kernels) EXPECT_FALSE(k.launch_bound());
  EXPECT_EQ(Find(r->diagnose, DiagnoseCause::kSmallWork), nullptr);
  // Whole trace: the first launch is in the window and named apart.
  absl::StatusOr<WindowResults> whole = RunPlan(m, WholeTraceWindow(m), ReportPlan(false, 10, 10'000));
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->launch_stats.first_launches.size(), 1u);
  EXPECT_EQ(whole->launch_stats.launch_bound_kernels, 0);
}

}  // namespace
}  // namespace streamscope
