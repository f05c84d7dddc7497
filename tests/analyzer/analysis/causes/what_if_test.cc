#include "analyzer/analysis/causes/what_if.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/base/analyzer_threads_env.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::kStream;
using testing::kUs;
using testing::ModelBuilder;

const WhatIfEstimate* FindEstimate(const WhatIfResult& r, WhatIfKind kind, std::string_view name = {},
                                   const TraceModel* m = nullptr) {
  for (const WhatIfEstimate& e : r.estimates) {
    if (e.cause.kind != kind) continue;
    if (m != nullptr && m->strings.Get(e.cause.name) != name) continue;
    return &e;
  }
  return nullptr;
}

TEST(WhatIf, ReplayWithNothingRemovedGivesBackEveryRecordedTime) {
  TraceModel m = testing::ThreeCausesTrace();
  Window w = WholeTraceWindow(m);
  DependencyGraph g = BuildDependencyGraph(m, w);
  ReplayResult r = Replay(g);
  for (size_t e = 0; e < g.event_count(); ++e) {
    EXPECT_EQ(r.t[e], g.Recorded(static_cast<int32_t>(e))) << "event " << e;
  }
  EXPECT_EQ(r.end_ns, 8705 * kUs);
  EXPECT_EQ(g.recorded_end_ns(), 8705 * kUs);
}

// The far reads (DependencyGraph::FarRead), found another way: an edge's
// source is read from outside its ring when an event of that ring placed
// before the edge's target in the order has an index at least a ring above
// the source's.
void ExpectFarReadsTheOrderMakes(const DependencyGraph& g, const std::string& what) {
  const std::vector<int32_t>& order = g.order();
  std::vector<int64_t> highest_op(order.size() + 1, -1), highest_call(order.size() + 1, -1);
  for (size_t p = 0; p < order.size(); ++p) {
    const int32_t v = order[p];
    highest_op[p + 1] = std::max<int64_t>(highest_op[p], v < g.RingSplit() ? v : -1);
    highest_call[p + 1] = std::max<int64_t>(highest_call[p], v >= g.RingSplit() ? v - g.RingSplit() : -1);
  }
  std::vector<bool> far(g.event_count(), false);
  for (size_t p = 0; p < order.size(); ++p) {
    g.VisitInEdges(order[p], [&](uint32_t, int32_t from, int64_t, int64_t) {
      if (from < 0) return;
      const int64_t above = from < g.RingSplit() ? highest_op[p] - from : highest_call[p] - (from - g.RingSplit());
      if (above >= g.ring_size()) far[static_cast<size_t>(from)] = true;
    });
  }
  size_t marked = 0;
  for (size_t e = 0; e < g.event_count(); ++e) {
    marked += far[e];
    ASSERT_EQ(g.FarRead(static_cast<int32_t>(e)), far[e]) << what << " event " << e;
  }
  EXPECT_EQ(g.far_read_count(), marked) << what;
}

// ReplaySpan keeps each time as an offset from the recorded one in 40 bits:
// shifts of seconds (beyond 32 bits of ns), of minutes (beyond 40 bits),
// saturated times, events that keep their time among shifted ones all give
// the span of the replay that keeps every time whole. It keeps only rings
// of the latest events and the times read later: rings of 2 and 16 events
// (most reads from outside them) give the same span as rings that hold
// every event.
TEST(WhatIf, ReplaySpanAgreesWithTheWholeReplay) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 2000);
    for (int ring_log2 : {1, 4, 20}) {
      DependencyGraphOptions options;
      options.replay_ring_log2 = ring_log2;
      DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m), options);
      if (ring_log2 == 1) {
        EXPECT_GT(g.far_read_count(), g.event_count() / 4) << seed;
      } else if (ring_log2 == 20) {
        EXPECT_EQ(g.far_read_count(), 0u) << seed;
      }
      ExpectFarReadsTheOrderMakes(g, "seed " + std::to_string(seed) + " ring " + std::to_string(ring_log2));
      for (int64_t shift : {int64_t{0}, int64_t{-3'000'000'000}, int64_t{5'000'000'000}, int64_t{-600'000'000'000},
                            int64_t{600'000'000'000}, int64_t{1} << 62}) {
        ReplayEdits edits;
        for (size_t e = 0; e < g.event_count(); e += 97) {
          for (uint32_t i : g.InEdges(static_cast<int32_t>(e))) {
            edits.lag_edge.push_back(i);
            edits.lag.push_back(g.EdgeLag(i) + shift);
          }
        }
        const ReplayResult whole = Replay(g, edits), span = ReplaySpan(g, edits);
        EXPECT_EQ(span.end_ns, whole.end_ns) << seed << " " << shift << " ring " << ring_log2;
        EXPECT_EQ(span.start_ns, whole.start_ns) << seed << " " << shift << " ring " << ring_log2;
        EXPECT_EQ(span.end_op, whole.end_op) << seed << " " << shift << " ring " << ring_log2;
        EXPECT_TRUE(span.t.empty());
      }
    }
  }
}

// The far reads are found by a filter on the items' start order; a model
// whose calls are not in that order (a call that ends before it starts,
// built by hand: the importers drop those) has its order simulated, and
// both find what the order makes.
TEST(WhatIf, FarReadsOfCallsOutOfOrderAreFoundByTheOrder) {
  TraceModel m = testing::RandomInconsistentTrace(4, 2000);
  ASSERT_GT(m.api.size(), 20u);
  {
    const DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
    for (size_t c = 10; c < g.call_count(); c += 7) {
      const auto a = static_cast<size_t>(g.ModelCall(c));
      m.api.end_ns[a] = m.api.start_ns[a] - 1000;
    }
  }
  for (int ring_log2 : {1, 3}) {
    DependencyGraphOptions options;
    options.replay_ring_log2 = ring_log2;
    const DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m), options);
    EXPECT_GT(g.far_read_count(), 0u);
    ExpectFarReadsTheOrderMakes(g, "ring " + std::to_string(ring_log2));
    ReplayEdits edits;
    for (size_t e = 0; e < g.event_count(); e += 53) {
      for (uint32_t i : g.InEdges(static_cast<int32_t>(e))) {
        edits.lag_edge.push_back(i);
        edits.lag.push_back(g.EdgeLag(i) + 7'000);
      }
    }
    const ReplayResult whole = Replay(g, edits), span = ReplaySpan(g, edits);
    EXPECT_EQ(span.end_ns, whole.end_ns) << ring_log2;
    EXPECT_EQ(span.start_ns, whole.start_ns) << ring_log2;
  }
}

// A large window's causes replay two at once, each worker with its own
// times and edits: the estimates are the ones replayed one at a time, in
// the same order. A host-bound loop: each step's 20 us of host work lies in
// an NVTX range "prepare" or "load" (every other step), then a call
// launches a 4 us kernel; removing either name's host work saves about
// half of the steps' host time.
TEST(WhatIf, CausesReplayedTwoAtOnceEstimateWhatOneAtATimeDoes) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  constexpr int64_t kSteps = 70'000;
  for (int64_t i = 0; i < kSteps; ++i) {
    const int64_t t = i * 30 * kUs, call = t + 20 * kUs;
    b.Nvtx(i % 2 == 0 ? "prepare" : "load", 1, t, call);
    b.Kernel("k", kStream, call + 6 * kUs, call + 10 * kUs, ApiTimes{call, call + 4 * kUs, 1});
  }
  const TraceModel m = b.Build();
  const DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  ASSERT_GE(g.op_count(), kOpsWorthAThread);
  // Every cause replayed one at a time, then the same with threads; one
  // cause alone, on the same context (its facts built by then), starts the
  // threads all have but the second worker.
  const WhatIfResult one = testing::WithAnalyzerThreads(false, [&] { return EstimateSavings(m, g); });
  ASSERT_GE(one.estimates.size(), 2u);
  int64_t started = 0, started_alone = 0;
  testing::WithAnalyzerThreads(
      true, [&] { return EstimateSavings(m, g, {one.estimates.front().cause}, WhatIfOptions{}); }, &started_alone);
  const WhatIfResult two = testing::WithAnalyzerThreads(
      true, [&] { return EstimateSavings(m, g); }, &started);
  EXPECT_EQ(started - started_alone, std::thread::hardware_concurrency() > 1 ? 1 : 0) << "a second worker";
  ASSERT_EQ(two.estimates.size(), one.estimates.size());
  for (size_t k = 0; k < one.estimates.size(); ++k) {
    const WhatIfEstimate &a = two.estimates[k], &e = one.estimates[k];
    EXPECT_TRUE(a.cause == e.cause) << k;
    EXPECT_EQ(a.estimated_saving_ns, e.estimated_saving_ns) << k;
    EXPECT_EQ(a.measured_cost_ns, e.measured_cost_ns) << k;
    EXPECT_EQ(a.ops, e.ops) << k;
    EXPECT_EQ(a.calls, e.calls) << k;
  }
  for (const char* name : {"prepare", "load"}) {
    const WhatIfEstimate* host = FindEstimate(two, WhatIfKind::kHostWork, name, &m);
    ASSERT_NE(host, nullptr) << name;
    // The first step has no host gap (no call before it).
    EXPECT_GE(host->measured_cost_ns, (kSteps / 2 - 1) * 20 * kUs) << name;
    EXPECT_LE(host->measured_cost_ns, kSteps / 2 * 20 * kUs) << name;
    EXPECT_GT(host->estimated_saving_ns, kSteps / 2 * 15 * kUs) << name;
    EXPECT_LE(host->estimated_saving_ns, kSteps / 2 * 20 * kUs) << name;
  }
}

// The edits' lags are 4 bytes each while they fit: a lag beyond 32 bits
// turns them all into 8 bytes, and the replay reads the same lags.
TEST(WhatIf, EditsWithALagBeyond32BitsReplayAsTheSameLagsNarrow) {
  TraceModel m = testing::RandomInconsistentTrace(3, 2000);
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  ReplayEdits narrow, wide;
  bool first = true;
  for (size_t e = 0; e < g.event_count(); e += 31) {
    for (uint32_t i : g.InEdges(static_cast<int32_t>(e))) {
      const int64_t lag = g.EdgeLag(i) / 2;
      narrow.lag_edge.push_back(i);
      narrow.lag.push_back(lag);
      if (first) {  // listed twice: the later lag holds
        wide.lag_edge.push_back(i);
        wide.lag.push_back(int64_t{1} << 40);
        first = false;
      }
      wide.lag_edge.push_back(i);
      wide.lag.push_back(lag);
    }
  }
  ASSERT_FALSE(narrow.lag.wide());
  ASSERT_TRUE(wide.lag.wide());
  const ReplayResult a = Replay(g, narrow), b = Replay(g, wide);
  EXPECT_EQ(a.t, b.t);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(ReplaySpan(g, narrow).end_ns, ReplaySpan(g, wide).end_ns);
}

TEST(WhatIf, HostSleepBetweenLaunchesIsSavedByRemovingIt) {
  TraceModel m = testing::HostSleepTrace();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  EXPECT_EQ(r.recorded_end_ns, 11425 * kUs);
  EXPECT_EQ(r.replayed_end_ns, r.recorded_end_ns);
  EXPECT_EQ(r.replay_error, 0);
  EXPECT_EQ(r.launch_latency_ns, 5 * kUs);
  const WhatIfEstimate* sleep = FindEstimate(r, WhatIfKind::kHostWork, "sleep", &m);
  ASSERT_NE(sleep, nullptr);
  EXPECT_EQ(sleep->measured_cost_ns, 10000 * kUs);
  // The first step's sleep comes before the first GPU op (start-up): it
  // moves the GPU span, not its length, so only the 4 later sleeps save.
  EXPECT_EQ(sleep->estimated_saving_ns, 6920 * kUs);
  EXPECT_EQ(sleep->call_count, 5);  // the first launch of every step
  ASSERT_FALSE(r.estimates.empty());
  EXPECT_EQ(&r.estimates.front(), sleep) << "the largest saving comes first";
}

TEST(WhatIf, PerIterationSyncSavesOnlyWhatTheGpuWaited) {
  TraceModel m = testing::PerStepSyncTrace();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  EXPECT_EQ(r.recorded_end_ns, 3625 * kUs);
  const WhatIfEstimate* sync = FindEstimate(r, WhatIfKind::kSync, "cudaStreamSynchronize", &m);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->cause.blocking, BlockingKind::kStreamSync);
  EXPECT_EQ(sync->measured_cost_ns, 5 * 495 * kUs);
  EXPECT_EQ(sync->estimated_saving_ns, 120 * kUs);
  EXPECT_EQ(sync->call_count, 5);
  EXPECT_EQ(sync->op_count, 5);  // each sync waited for its step's kernel
  const WhatIfEstimate* host = FindEstimate(r, WhatIfKind::kHostWork);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->cause.name, kNoString) << "unannotated";
  EXPECT_EQ(host->measured_cost_ns, 80 * kUs);
  EXPECT_EQ(host->estimated_saving_ns, 80 * kUs);
  ASSERT_GE(r.estimates.size(), 2u);
  EXPECT_EQ(r.estimates[0].cause.kind, WhatIfKind::kSync);
  EXPECT_EQ(r.estimates[1].cause.kind, WhatIfKind::kHostWork);
}

TEST(WhatIf, ReadbacksGoneLetTheGpuRunAheadOfBothThreads) {
  TraceModel m = testing::AutogradHandoffLoop(20);
  const Window w = WholeTraceWindow(m);
  WhatIfEstimate readback = EstimateTogether(m, BuildDependencyGraph(m, w), {WhatIfCause{WhatIfKind::kReadback}});
  EXPECT_EQ(readback.estimated_saving_ns, 113 * 19 * kUs);
  // The copy calls and the syncs: 20 of each, 330 + 3 us a step.
  EXPECT_EQ(readback.call_count, 40);
  EXPECT_EQ(readback.op_count, 20);
  EXPECT_EQ(readback.measured_cost_ns, 20 * 333 * kUs);
  // Without the handoffs (a pause longer than thread 1's 70 us) thread 2
  // keeps its recorded 515 us pace and K_b with it: only the last step's
  // K_b moves, to 5 us after its launch (160 us earlier).
  DependencyGraphOptions no_handoff;
  no_handoff.handoff_min_pause_ns = 100 * kUs;
  WhatIfEstimate pinned =
      EstimateTogether(m, BuildDependencyGraph(m, w, no_handoff), {WhatIfCause{WhatIfKind::kReadback}});
  EXPECT_EQ(pinned.estimated_saving_ns, 160 * kUs);
}

// A pinned 8-byte copy back, then the sync: the copy's own call goes too.
TEST(WhatIf, ReadbackTakesTheCopyCallAndTheSync) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  for (int64_t i = 0; i < 10; ++i) {
    const int64_t t = 100 * i * kUs;
    b.Kernel("k", kStream, t + 5 * kUs, t + 55 * kUs, ApiTimes{t, t + 10 * kUs, 1});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, kStream, t + 55 * kUs, t + 57 * kUs,
           ApiTimes{t + 10 * kUs, t + 20 * kUs, 1}, "cudaMemcpyAsync", true, 8);
    b.Sync(SyncKind::kStreamSynchronize, kStream, t + 20 * kUs, t + 60 * kUs, "cudaStreamSynchronize", 1);
  }
  TraceModel m = b.Build();
  WhatIfEstimate e =
      EstimateTogether(m, BuildDependencyGraph(m, WholeTraceWindow(m)), {WhatIfCause{WhatIfKind::kReadback}});
  EXPECT_EQ(e.call_count, 20);
  EXPECT_EQ(e.measured_cost_ns, 10 * (10 + 40) * kUs);
  // The host needs 10 us (launch) + 40 us (host work) a step, the GPU 52:
  // back to back from the first kernel, 48 us saved a step.
  EXPECT_EQ(e.estimated_saving_ns, 9 * 48 * kUs);
}

TEST(WhatIf, PlantedCausesAreRankedByWhatRemovingThemSaves) {
  TraceModel m = testing::ThreeCausesTrace();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  EXPECT_EQ(r.recorded_end_ns, 8705 * kUs);
  EXPECT_EQ(r.replay_error, 0);
  const WhatIfEstimate* prepare = FindEstimate(r, WhatIfKind::kHostWork, "prepare", &m);
  const WhatIfEstimate* pageable = FindEstimate(r, WhatIfKind::kPageableCopy);
  const WhatIfEstimate* sync = FindEstimate(r, WhatIfKind::kSync);
  const WhatIfEstimate* split = FindEstimate(r, WhatIfKind::kSameStream);
  ASSERT_NE(prepare, nullptr);
  ASSERT_NE(pageable, nullptr);
  ASSERT_NE(sync, nullptr);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(prepare->estimated_saving_ns, 5000 * kUs);
  EXPECT_EQ(prepare->measured_cost_ns, 5000 * kUs);
  EXPECT_EQ(pageable->estimated_saving_ns, 1550 * kUs);
  EXPECT_EQ(pageable->measured_cost_ns, 2000 * kUs);
  EXPECT_TRUE(pageable->estimable);
  EXPECT_EQ(pageable->rate_source, WhatIfRateSource::kThisTrace);
  EXPECT_EQ(pageable->op_count, 5);
  EXPECT_EQ(sync->estimated_saving_ns, 1275 * kUs);
  EXPECT_EQ(sync->measured_cost_ns, 1570 * kUs);
  EXPECT_EQ(split->estimated_saving_ns, 0);
  EXPECT_EQ(split->measured_cost_ns, 1500 * kUs);
  // Ranked by saving, not by measured cost (the sync blocked longer than
  // the pageable copies cost, yet saves less) nor by check order.
  ASSERT_EQ(r.estimates.size(), 4u);
  EXPECT_EQ(&r.estimates[0], prepare);
  EXPECT_EQ(&r.estimates[1], pageable);
  EXPECT_EQ(&r.estimates[2], sync);
  EXPECT_EQ(&r.estimates[3], split);
}

TEST(WhatIf, EachCauseCanBeAskedForAlone) {
  TraceModel m = testing::ThreeCausesTrace();
  Window w = WholeTraceWindow(m);
  WhatIfCause sync{WhatIfKind::kSync, m.strings.Intern("cudaStreamSynchronize"), BlockingKind::kStreamSync,
                   m.stream_index.at(kStream)};
  WhatIfResult r = EstimateSavings(m, w, {sync});
  ASSERT_EQ(r.estimates.size(), 1u);
  EXPECT_EQ(r.estimates[0].estimated_saving_ns, 1275 * kUs);
  // The same sync on another stream is not in the trace: nothing changes.
  sync.stream = m.stream_index.at(kStream) + 100;
  r = EstimateSavings(m, w, {sync});
  EXPECT_EQ(r.estimates[0].estimated_saving_ns, 0);
  EXPECT_EQ(r.estimates[0].call_count, 0);
}

TEST(WhatIf, PageableCopyWithoutPinnedCopiesUsesTheDeviceLinkOrSaysItCannot) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  // 1 MB pageable copy, 1000 us; a kernel after it.
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, kStream, 5 * kUs, 1005 * kUs,
         ApiTimes{0, 1010 * kUs, 1}, "cudaMemcpyAsync", true, 1'000'000);
  b.Kernel("k", kStream, 1015 * kUs, 1115 * kUs, ApiTimes{1010 * kUs, 1020 * kUs, 1});
  TraceModel m = b.Build();
  Window w = WholeTraceWindow(m);
  WhatIfResult r = EstimateSavings(m, w);
  const WhatIfEstimate* copy = FindEstimate(r, WhatIfKind::kPageableCopy);
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->estimable);
  EXPECT_EQ(copy->rate_source, WhatIfRateSource::kNone);
  EXPECT_EQ(copy->unestimated_ops, 1);
  EXPECT_EQ(copy->measured_cost_ns, 1000 * kUs);
  EXPECT_EQ(&r.estimates.back(), copy) << "causes without an estimate come last";
  // A 10 GB/s link (10 bytes per ns): 100 us instead of 1000; the call
  // returns after its 5 us tail, the kernel follows the copy: [105, 205),
  // 910 us saved.
  WhatIfOptions o;
  o.link_bytes_per_ns[0] = 10.0;
  r = EstimateSavings(m, w, o);
  copy = FindEstimate(r, WhatIfKind::kPageableCopy);
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->estimable);
  EXPECT_EQ(copy->rate_source, WhatIfRateSource::kDeviceLink);
  EXPECT_EQ(copy->estimated_saving_ns, 910 * kUs);
}

TEST(WhatIf, PinnedRateComesFromCopiesOfSimilarSizeOnly) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  // Pinned 8-byte copies take 5 us each (latency-bound); a pageable 8 MiB
  // copy cannot be judged from them.
  for (int64_t j = 0; j < 3; ++j) {
    b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kStream, (10 * j + 1) * kUs, (10 * j + 6) * kUs,
           ApiTimes{10 * j * kUs, (10 * j + 2) * kUs, 1}, "cudaMemcpyAsync", true, 8);
  }
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, kStream, 105 * kUs, 2105 * kUs,
         ApiTimes{100 * kUs, 2110 * kUs, 1}, "cudaMemcpyAsync", true, 8 << 20);
  TraceModel m = b.Build();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  const WhatIfEstimate* copy = FindEstimate(r, WhatIfKind::kPageableCopy);
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->estimable);
}

TEST(WhatIf, SplittingIndependentCopyAndComputeOverlapsThem) {
  // One stream, launched all at once: H2D 400 us, kernel 300 us, H2D 400,
  // kernel 300 (independent). Recorded end 1405 us. Split: the copies run
  // back to back on their engine [5, 805), the kernels [10, 310) and
  // [310, 610): end 805, saving 600 = the hidden compute time.
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kStream, 5 * kUs, 405 * kUs,
         ApiTimes{0, 5 * kUs, 1});
  b.Kernel("k", kStream, 405 * kUs, 705 * kUs, ApiTimes{5 * kUs, 10 * kUs, 1});
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kStream, 705 * kUs, 1105 * kUs,
         ApiTimes{10 * kUs, 15 * kUs, 1});
  b.Kernel("k", kStream, 1105 * kUs, 1405 * kUs, ApiTimes{15 * kUs, 20 * kUs, 1});
  TraceModel m = b.Build();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  EXPECT_EQ(r.recorded_end_ns, 1405 * kUs);
  const WhatIfEstimate* split = FindEstimate(r, WhatIfKind::kSameStream);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->cause.stream, m.stream_index.at(kStream));
  EXPECT_EQ(split->measured_cost_ns, 600 * kUs);
  EXPECT_EQ(split->estimated_saving_ns, 600 * kUs);
  EXPECT_EQ(split->op_count, 4);
}

TEST(WhatIf, FirstLaunchOutlierBeforeTheFirstGpuOpIsNotASaving) {
  TraceModel m = testing::FirstLaunchTrace();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  EXPECT_EQ(r.recorded_end_ns, 6105 * kUs);
  EXPECT_EQ(r.launch_latency_ns, 5 * kUs);
  const WhatIfEstimate* first = FindEstimate(r, WhatIfKind::kFirstLaunch);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->measured_cost_ns, 4990 * kUs);
  // The slow first launch delays the first GPU op: start-up, reported
  // apart (steady_state.h), never a saving of the GPU span.
  EXPECT_EQ(first->estimated_saving_ns, 0);
  EXPECT_EQ(first->call_count, 1);
  const WhatIfEstimate* host = FindEstimate(r, WhatIfKind::kHostWork);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->measured_cost_ns, 960 * kUs);
  EXPECT_EQ(host->estimated_saving_ns, 510 * kUs);
  EXPECT_EQ(&r.estimates.front(), host);
}

TEST(WhatIf, DroppingTheLegacyStreamRulesLetsTheStreamsOverlap) {
  // A blocking stream's kernel A1 [5, 505), a legacy-stream kernel L that
  // waited for it [505, 605), and A2 that waited for L [605, 1105).
  // Without the legacy rules L runs at 15 (its launch + 5 us) and A2 right
  // after A1: end 1005, saving 100. Measured: L delayed 490, A2 100.
  constexpr int64_t kBlocking = 21, kLegacyStream = 7;
  ModelBuilder b;
  b.Stream(kBlocking, StreamKind::kBlocking);
  b.Stream(kLegacyStream, StreamKind::kLegacyDefault);
  b.Kernel("a1", kBlocking, 5 * kUs, 505 * kUs, ApiTimes{0, 10 * kUs, 1});
  b.Kernel("l", kLegacyStream, 505 * kUs, 605 * kUs, ApiTimes{10 * kUs, 20 * kUs, 1});
  b.Kernel("a2", kBlocking, 605 * kUs, 1105 * kUs, ApiTimes{20 * kUs, 30 * kUs, 1});
  TraceModel m = b.Build();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  const WhatIfEstimate* legacy = FindEstimate(r, WhatIfKind::kLegacyStream);
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(legacy->estimated_saving_ns, 100 * kUs);
  EXPECT_EQ(legacy->measured_cost_ns, 590 * kUs);
  EXPECT_EQ(legacy->op_count, 2);
  EXPECT_EQ(&r.estimates.front(), legacy);
}

TEST(WhatIf, NvtxWindowCountsOnlyHostWorkInsideIt) {
  // The sleep trace's steps 2-4 only: window from step 2's start.
  TraceModel m = testing::HostSleepTrace();
  Window w{(1000 + 2030 * 2) * kUs, 11425 * kUs, {}};
  WhatIfResult r = EstimateSavings(m, w);
  EXPECT_EQ(r.recorded_end_ns, 11425 * kUs);
  EXPECT_EQ(r.replay_error, 0);
  const WhatIfEstimate* sleep = FindEstimate(r, WhatIfKind::kHostWork, "sleep", &m);
  ASSERT_NE(sleep, nullptr);
  EXPECT_EQ(sleep->measured_cost_ns, 3 * 2000 * kUs);
  // Step 2's first launch moves to 5060; step 1's last kernel ends at
  // 3030 + 2305 = 5335, and the 9 kernels run back to back from there.
  EXPECT_EQ(sleep->estimated_saving_ns, (11425 - 6235) * kUs);
}

TEST(WhatIf, HostWorkOnAThreadOffTheCriticalPathSavesNothing) {
  // Thread 1 keeps stream A busy until 1005 us; thread 2 sleeps 500 us
  // (NVTX "t2_sleep") before a short kernel on stream B that ends at 615.
  constexpr int64_t kStreamA = 21, kStreamB = 22;
  ModelBuilder b;
  b.Stream(kStreamA, StreamKind::kNonBlocking);
  b.Stream(kStreamB, StreamKind::kNonBlocking);
  b.Kernel("long", kStreamA, 5 * kUs, 1005 * kUs, ApiTimes{0, 10 * kUs, 1});
  b.Api("cudaSetDevice", 2, 0, 10 * kUs);
  b.Nvtx("t2_sleep", 2, 10 * kUs, 510 * kUs);
  b.Kernel("short", kStreamB, 515 * kUs, 615 * kUs, ApiTimes{510 * kUs, 520 * kUs, 2});
  TraceModel m = b.Build();
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m));
  const WhatIfEstimate* sleep = FindEstimate(r, WhatIfKind::kHostWork, "t2_sleep", &m);
  ASSERT_NE(sleep, nullptr);
  EXPECT_EQ(sleep->measured_cost_ns, 500 * kUs);
  EXPECT_EQ(sleep->estimated_saving_ns, 0);
}

TEST(WhatIf, PrebuiltGraphGivesTheSameEstimates) {
  TraceModel m = testing::ThreeCausesTrace();
  Window w = WholeTraceWindow(m);
  DependencyGraph g = BuildDependencyGraph(m, w);
  WhatIfResult a = EstimateSavings(m, w), b = EstimateSavings(m, g);
  ASSERT_EQ(a.estimates.size(), b.estimates.size());
  for (size_t k = 0; k < a.estimates.size(); ++k) {
    EXPECT_EQ(a.estimates[k].cause, b.estimates[k].cause);
    EXPECT_EQ(a.estimates[k].estimated_saving_ns, b.estimates[k].estimated_saving_ns);
  }
  std::vector<WhatIfCause> causes = FindWhatIfCauses(m, g);
  EXPECT_EQ(causes.size(), a.estimates.size());
  WhatIfResult c = EstimateSavings(m, g, causes);
  ASSERT_EQ(c.estimates.size(), a.estimates.size());
  EXPECT_EQ(c.estimates.front().estimated_saving_ns, 5000 * kUs);
}

TEST(WhatIf, SessionGivesTheSameEstimatesAsTheFreeFunctions) {
  TraceModel m = testing::ThreeCausesTrace();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  WhatIfOptions o;
  o.max_listed = 1;
  const WhatIfSession session(m, g, o);
  WhatIfResult a = EstimateSavings(m, g, o), b = session.EstimateSavings();
  ASSERT_EQ(a.estimates.size(), 4u);
  ASSERT_EQ(b.estimates.size(), a.estimates.size());
  std::vector<WhatIfCause> causes;
  for (size_t k = 0; k < a.estimates.size(); ++k) {
    EXPECT_EQ(b.estimates[k].cause, a.estimates[k].cause);
    EXPECT_EQ(b.estimates[k].estimated_saving_ns, a.estimates[k].estimated_saving_ns);
    EXPECT_EQ(b.estimates[k].measured_cost_ns, a.estimates[k].measured_cost_ns);
    EXPECT_EQ(b.estimates[k].ops, a.estimates[k].ops);
    EXPECT_EQ(b.estimates[k].calls, a.estimates[k].calls);
    causes.push_back(a.estimates[k].cause);
  }
  // Asked again (the session is reused), and for causes together.
  EXPECT_EQ(session.EstimateSavings().estimates.front().estimated_saving_ns, 5000 * kUs);
  WhatIfEstimate together = EstimateTogether(m, g, causes, o), shared = session.EstimateTogether(causes);
  EXPECT_GT(together.estimated_saving_ns, a.estimates.front().estimated_saving_ns);
  EXPECT_EQ(shared.estimated_saving_ns, together.estimated_saving_ns);
  EXPECT_EQ(shared.measured_cost_ns, together.measured_cost_ns);
  EXPECT_EQ(shared.op_count, together.op_count);
  EXPECT_EQ(session.EstimateTogether({}).estimated_saving_ns, 0);
}

TEST(WhatIf, ASubsetOfTheCandidatesReplaysOnlyThoseWithTheSameEstimates) {
  TraceModel m = testing::ThreeCausesTrace();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  const WhatIfSession session(m, g);
  const std::vector<WhatIfCause> candidates = session.Candidates();
  WhatIfResult all = session.EstimateSavings();
  ASSERT_EQ(candidates.size(), all.estimates.size());
  std::vector<WhatIfCause> some;
  for (const WhatIfCause& c : candidates) {
    if (c.kind == WhatIfKind::kSync || c.kind == WhatIfKind::kPageableCopy) some.push_back(c);
  }
  ASSERT_EQ(some.size(), 2u);
  WhatIfResult subset = session.EstimateSavings(some);
  ASSERT_EQ(subset.estimates.size(), 2u);
  EXPECT_EQ(subset.estimates[0].cause.kind, WhatIfKind::kPageableCopy);
  EXPECT_EQ(subset.estimates[0].estimated_saving_ns, 1550 * kUs);
  EXPECT_EQ(subset.estimates[1].cause.kind, WhatIfKind::kSync);
  EXPECT_EQ(subset.estimates[1].estimated_saving_ns, 1275 * kUs);
  EXPECT_TRUE(session.EstimateSavings({}).estimates.empty());
  // A sync cause only removes edges: replayed together alone, it is the
  // same replay (the ranking reuses the one for the other).
  ASSERT_EQ(some[0].kind, WhatIfKind::kSync);  // candidates come by kind
  WhatIfEstimate together = session.EstimateTogether({some[0]});
  EXPECT_EQ(together.estimated_saving_ns, subset.estimates[1].estimated_saving_ns);
  EXPECT_EQ(together.measured_cost_ns, subset.estimates[1].measured_cost_ns);
  EXPECT_EQ(together.op_count, subset.estimates[1].op_count);
  EXPECT_EQ(together.call_count, subset.estimates[1].call_count);
}

TEST(WhatIf, ManyRangeNamesAreCappedToTheCostliestPerKind) {
  // 30 launches, each after host work in its own NVTX range r0..r29 of
  // (j + 1) x 10 us.
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Api("cudaSetDevice", 1, 0, 10 * kUs);
  int64_t t = 10 * kUs;
  for (int64_t j = 0; j < 30; ++j) {
    b.Nvtx("r" + std::to_string(j), 1, t, t + (j + 1) * 10 * kUs);
    t += (j + 1) * 10 * kUs;
    b.Kernel("k", kStream, t + 5 * kUs, t + 10 * kUs, ApiTimes{t, t + 10 * kUs, 1});
    t += 10 * kUs;
  }
  TraceModel m = b.Build();
  WhatIfOptions o;
  o.max_causes_per_kind = 4;
  WhatIfResult r = EstimateSavings(m, WholeTraceWindow(m), o);
  int host = 0;
  for (const WhatIfEstimate& e : r.estimates) host += e.cause.kind == WhatIfKind::kHostWork;
  EXPECT_EQ(host, 4);
  ASSERT_FALSE(r.estimates.empty());
  EXPECT_EQ(m.strings.Get(r.estimates.front().cause.name), "r29");
  EXPECT_EQ(r.estimates.front().measured_cost_ns, 300 * kUs);
  EXPECT_EQ(r.estimates.front().estimated_saving_ns, 300 * kUs);
}

TEST(WhatIf, EmptyWindowAndEmptyTraceGiveNoCause) {
  TraceModel empty = ModelBuilder().Build();
  WhatIfResult r = EstimateSavings(empty, WholeTraceWindow(empty));
  EXPECT_TRUE(r.estimates.empty());
  EXPECT_EQ(r.replay_error, 0);
  TraceModel m = testing::HostSleepTrace();
  r = EstimateSavings(m, Window{-10, -5, {}});
  EXPECT_TRUE(r.estimates.empty());
}

TEST(WhatIf, InconsistentTracesNeverCrash) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 300);
    Window w = WholeTraceWindow(m);
    WhatIfResult r = EstimateSavings(m, w);
    EXPECT_GE(r.replay_error, 0) << seed;
    // Halves of the trace as windows too.
    Window half{w.start_ns + w.length() / 4, w.start_ns + 3 * (w.length() / 4), {}};
    EstimateSavings(m, half);
  }
}

}  // namespace
}  // namespace streamscope
