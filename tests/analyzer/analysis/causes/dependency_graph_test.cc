#include "analyzer/analysis/causes/dependency_graph.h"

#include <algorithm>
#include <vector>

#include "analyzer/analysis/causes/what_if.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/base/analyzer_threads_env.h"
#include "tests/analyzer/model/memory_trace_util.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::kUs;
using testing::ModelBuilder;
using testing::OpIndex;

constexpr int64_t kA = 21, kB = 22, kLegacy = 7;

// The in-edges of event `to` of the given kind.
std::vector<DepEdge> EdgesInto(const DependencyGraph& g, int32_t to, DepEdgeKind kind) {
  std::vector<DepEdge> out;
  for (uint32_t i : g.InEdges(to)) {
    if (g.edges()[i].kind == kind) out.push_back(g.edges()[i]);
  }
  return out;
}

int32_t GraphOpOf(const DependencyGraph& g, const TraceModel& m, int64_t kernel_id) {
  return g.GraphOp(OpIndex(m, "kernel", kernel_id));
}

TEST(DependencyGraph, StreamOrderSubmitAndHostGapEdgesWithMeasuredLags) {
  TraceModel m = testing::HostSleepTrace();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  EXPECT_EQ(g.op_count(), 15u);
  EXPECT_EQ(g.call_count(), 16u);
  EXPECT_EQ(g.launch_latency_ns(), 5 * kUs);
  // Step 0: K1 bound by its launch (5 us), K2 by K1 (stream order, 0 us).
  int32_t k1 = GraphOpOf(g, m, 1), k2 = GraphOpOf(g, m, 2);
  ASSERT_GE(k1, 0);
  ASSERT_GE(k2, 0);
  auto submit = EdgesInto(g, DependencyGraph::OpStart(k1), DepEdgeKind::kSubmit);
  ASSERT_EQ(submit.size(), 1u);
  EXPECT_EQ(submit[0].lag_ns, 5 * kUs);
  EXPECT_EQ(g.edges()[g.Binding(DependencyGraph::OpStart(k1))].kind, DepEdgeKind::kSubmit);
  auto order = EdgesInto(g, DependencyGraph::OpStart(k2), DepEdgeKind::kStreamOrder);
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(order[0].from, DependencyGraph::OpEnd(k1));
  EXPECT_EQ(order[0].lag_ns, 0);
  EXPECT_EQ(g.edges()[g.Binding(DependencyGraph::OpStart(k2))].kind, DepEdgeKind::kStreamOrder);
  // K2's launch did not bind: its lag is the launch latency.
  auto k2_submit = EdgesInto(g, DependencyGraph::OpStart(k2), DepEdgeKind::kSubmit);
  ASSERT_EQ(k2_submit.size(), 1u);
  EXPECT_EQ(k2_submit[0].lag_ns, 5 * kUs);
  // The first launch follows cudaMalloc after the 2000 us sleep.
  int32_t c = g.OpSubmitter(static_cast<size_t>(k1));
  ASSERT_GE(c, 0);
  auto gap = EdgesInto(g, g.CallStart(c), DepEdgeKind::kHostGap);
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_EQ(gap[0].lag_ns, 2000 * kUs);
  EXPECT_EQ(g.CallBlocking(c), BlockingKind::kNone);
  // cudaMalloc is the source: no in-edge into its start.
  EXPECT_EQ(g.InEdges(g.CallStart(0)).size(), 0u);
  EXPECT_EQ(g.Binding(g.CallStart(0)), -1);
}

// Lags are kept in 32 bits with wider ones apart: a 5 s host gap (beyond
// 32-bit nanoseconds) keeps its exact lag, and the replay gives back the
// recorded times across it.
TEST(DependencyGraph, AThreadThatResumesWhenAnotherPausesFollowsIt) {
  TraceModel m = testing::AutogradHandoffLoop(20);
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  EXPECT_EQ(g.stats().at("host_handoffs"), 39);
  EXPECT_EQ(g.stats().at("edges_host_handoff"), 39);
  // Step 1: thread 2's launch follows thread 1's launch (30 us after it),
  // and binds there; its own host gap keeps only those 30 us.
  int32_t kb = GraphOpOf(g, m, 4);
  ASSERT_GE(kb, 0);
  int32_t c = g.OpSubmitter(static_cast<size_t>(kb));
  ASSERT_GE(c, 0);
  auto handoff = EdgesInto(g, g.CallStart(c), DepEdgeKind::kHandoff);
  ASSERT_EQ(handoff.size(), 1u);
  EXPECT_EQ(handoff[0].from_ns, (515 + 110) * kUs);
  EXPECT_EQ(handoff[0].lag_ns, 30 * kUs);
  EXPECT_EQ(g.edges()[g.Binding(g.CallStart(c))].kind, DepEdgeKind::kHandoff);
  auto gap = EdgesInto(g, g.CallStart(c), DepEdgeKind::kHostGap);
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_EQ(gap[0].lag_ns, 30 * kUs);
  // Replayed unchanged, every time comes back.
  ReplayResult r = Replay(g);
  for (size_t e = 0; e < g.event_count(); ++e) EXPECT_EQ(r.t[e], g.Recorded(static_cast<int32_t>(e))) << e;
}

TEST(DependencyGraph, ThreadsLaunchingSideBySideHaveNoHandoff) {
  // Two threads each launch every 20 us, 10 us apart, on their own streams.
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  for (int64_t i = 0; i < 50; ++i) {
    const int64_t t = 20 * i * kUs;
    b.Kernel("a", kA, t + 5 * kUs, t + 15 * kUs, ApiTimes{t, t + 5 * kUs, 1});
    b.Kernel("b", kB, t + 15 * kUs, t + 25 * kUs, ApiTimes{t + 10 * kUs, t + 15 * kUs, 2});
  }
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  EXPECT_FALSE(g.stats().contains("host_handoffs"));
  EXPECT_FALSE(g.stats().contains("edges_host_handoff"));
}

TEST(DependencyGraph, AHostGapOfSecondsKeepsItsExactLag) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  constexpr int64_t kGap = 5'000'000'000;  // 5 s
  b.Kernel("a", 1, 10 * kUs, 20 * kUs, ApiTimes{0, 5 * kUs, 1});
  b.Kernel("b", 1, kGap + 30 * kUs, kGap + 40 * kUs, ApiTimes{kGap + 5 * kUs, kGap + 10 * kUs, 1});
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  ASSERT_EQ(g.call_count(), 2u);
  auto gap = EdgesInto(g, g.CallStart(1), DepEdgeKind::kHostGap);
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_EQ(gap[0].lag_ns, kGap);  // from the first call's end (5 us) to the second's start
  auto submit = EdgesInto(g, DependencyGraph::OpStart(1), DepEdgeKind::kSubmit);
  ASSERT_EQ(submit.size(), 1u);
  EXPECT_EQ(submit[0].lag_ns, 25 * kUs);
  auto order = EdgesInto(g, DependencyGraph::OpStart(1), DepEdgeKind::kStreamOrder);
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(order[0].lag_ns, 0);  // not binding: at most its natural lag
  const ReplayResult r = Replay(g);
  for (size_t e = 0; e < g.event_count(); ++e) EXPECT_EQ(r.t[e], g.Recorded(static_cast<int32_t>(e))) << e;
}

// The events' order is by recorded time, equal times by event index where
// no edge says otherwise: an op that outlasts the ops started after it (a
// long copy beside short kernels) and a call around a nested call end out
// of their start order, and take their place among the others' ends.
TEST(DependencyGraph, EventsAreOrderedByRecordedTimeWhateverOutlastsWhat) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  for (int64_t step = 0; step < 50; ++step) {
    const int64_t t = step * 200 * kUs;
    b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kA, t + 10 * kUs, t + 150 * kUs,
           ApiTimes{t, t + 5 * kUs, 1});
    for (int64_t k = 0; k < 5; ++k) {
      const int64_t call = t + (6 + 3 * k) * kUs;
      b.Kernel("short", kB, t + (20 + 25 * k) * kUs, t + (40 + 25 * k) * kUs, ApiTimes{call, call + 2 * kUs, 1});
    }
    // A runtime call around a driver call: the outer one ends last.
    b.Api("cudaDeviceSynchronize", 2, t + 30 * kUs, t + 160 * kUs);
    b.Api("cuCtxSynchronize", 2, t + 31 * kUs, t + 155 * kUs, -1, ApiDomain::kDriver);
  }
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  const std::vector<int32_t>& order = g.order();
  ASSERT_EQ(order.size(), g.event_count());
  std::vector<int32_t> seen(order);
  std::sort(seen.begin(), seen.end());
  for (size_t e = 0; e < seen.size(); ++e) ASSERT_EQ(seen[e], static_cast<int32_t>(e));  // each event once
  size_t later_ends = 0;  // ends placed before an end of a lower index
  int32_t last_end = -1;
  for (size_t p = 0; p + 1 < order.size(); ++p) {
    ASSERT_LE(g.Recorded(order[p]), g.Recorded(order[p + 1])) << p;
    if (!g.IsEndEvent(order[p])) continue;
    if (order[p] < last_end) ++later_ends;
    last_end = std::max(last_end, order[p]);
  }
  EXPECT_GE(later_ends, 100u);  // each step's copy and outer call end after events of higher index
}

// A graph of at least two slices of events (kGraphBuildSlice) gets its binding
// edges, lags, order and far reads (with replay rings of 2 events, items in
// start order or not) from passes cut into slices, one per core: the graph
// is the one built on one thread, edge for edge.
TEST(DependencyGraph, ALargeGraphBuiltInSlicesIsTheOneBuiltOnOneThread) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  constexpr int64_t kKernels = 150'000;
  for (int64_t i = 0; i < kKernels; ++i) {
    const int64_t t = i * 20 * kUs;
    // Every third launch waits for its stream; every 1000th step syncs it.
    const int64_t start = t + (i % 3 == 0 ? 9 * kUs : 6 * kUs);
    b.Kernel("k", i % 2 == 0 ? kA : kB, start, start + 12 * kUs, ApiTimes{t, t + 4 * kUs, 1});
    if (i % 1000 == 999) {
      b.Sync(SyncKind::kStreamSynchronize, i % 2 == 0 ? kA : kB, t + 5 * kUs, start + 13 * kUs,
             "cudaStreamSynchronize");
    }
  }
  TraceModel m = b.Build();
  const Window w = WholeTraceWindow(m);
  DependencyGraphOptions options;
  options.replay_ring_log2 = 1;
  DependencyGraph sliced = testing::WithAnalyzerThreads(true, [&] { return BuildDependencyGraph(m, w, options); });
  DependencyGraph alone = testing::WithAnalyzerThreads(false, [&] { return BuildDependencyGraph(m, w, options); });
  ASSERT_GE(sliced.event_count(), 2 * kGraphBuildSlice);
  EXPECT_EQ(sliced.launch_latency_ns(), alone.launch_latency_ns());
  EXPECT_EQ(sliced.launch_latency_ns(), 6 * kUs);  // the median kernel started 6 us after its call
  EXPECT_EQ(sliced.stats(), alone.stats());
  EXPECT_GT(sliced.stats().at("edges_sync_wait"), 0);
  EXPECT_EQ(sliced.order(), alone.order());
  ASSERT_EQ(sliced.edge_count(), alone.edge_count());
  for (size_t e = 0; e < sliced.event_count(); ++e) {
    ASSERT_EQ(sliced.Binding(static_cast<int32_t>(e)), alone.Binding(static_cast<int32_t>(e))) << e;
    ASSERT_EQ(sliced.FarRead(static_cast<int32_t>(e)), alone.FarRead(static_cast<int32_t>(e))) << e;
  }
  EXPECT_EQ(sliced.far_read_count(), alone.far_read_count());
  EXPECT_GT(sliced.far_read_count(), 100'000u);
  // Calls that end before they start (built by hand) leave the items out of
  // start order: the far reads come from the order simulated in slices, and
  // are the same on one thread.
  for (size_t c = 10; c < sliced.call_count(); c += 1000) {
    const auto a = static_cast<size_t>(sliced.ModelCall(c));
    m.api.end_ns[a] = m.api.start_ns[a] - 1000;
  }
  DependencyGraph simulated = testing::WithAnalyzerThreads(true, [&] { return BuildDependencyGraph(m, w, options); });
  DependencyGraph simulated_alone =
      testing::WithAnalyzerThreads(false, [&] { return BuildDependencyGraph(m, w, options); });
  for (size_t e = 0; e < simulated.event_count(); ++e) {
    ASSERT_EQ(simulated.FarRead(static_cast<int32_t>(e)), simulated_alone.FarRead(static_cast<int32_t>(e))) << e;
  }
  EXPECT_EQ(simulated.far_read_count(), simulated_alone.far_read_count());
  EXPECT_GT(simulated.far_read_count(), 100'000u);
  for (uint32_t i = 0; i < sliced.edge_count(); ++i) {
    ASSERT_EQ(sliced.EdgePresent(i), alone.EdgePresent(i)) << i;
    if (!sliced.EdgePresent(i)) continue;
    ASSERT_EQ(sliced.EdgeFrom(i), alone.EdgeFrom(i)) << i;
    ASSERT_EQ(sliced.EdgeLag(i), alone.EdgeLag(i)) << i;
  }
}

// Equal recorded times are put in edge order run by run, the runs cut into
// slices where a run starts: the order is the one built on one thread. Each
// step's two calls start with their kernels (a submit edge from a call's
// start, an event of higher index, to its kernel's start: a run of four
// that is not in index order), and six kernels without a call first put the
// middle of the events inside such a run.
TEST(DependencyGraph, TiedTimesAcrossSliceEdgesAreOrderedAsOnOneThread) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  for (int64_t j = 0; j < 6; ++j) b.Kernel("alone", kA, j * 100 * kUs, j * 100 * kUs + 50 * kUs);
  constexpr int64_t kSteps = 70'000;  // even
  for (int64_t i = 0; i < kSteps; ++i) {
    const int64_t t = 1000 * kUs + i * 10 * kUs;
    b.Kernel("a", kA, t, t + 8 * kUs, ApiTimes{t, t + 2 * kUs, 1});
    b.Kernel("b", kB, t, t + 8 * kUs, ApiTimes{t, t + 2 * kUs, 2});
  }
  TraceModel m = b.Build();
  const Window w = WholeTraceWindow(m);
  DependencyGraph sliced = testing::WithAnalyzerThreads(true, [&] { return BuildDependencyGraph(m, w); });
  DependencyGraph alone = testing::WithAnalyzerThreads(false, [&] { return BuildDependencyGraph(m, w); });
  const std::vector<int32_t>& order = sliced.order();
  ASSERT_EQ(order.size(), 12 + 8 * static_cast<size_t>(kSteps));
  ASSERT_GE(order.size(), 2 * kGraphBuildSlice);
  EXPECT_EQ(order, alone.order());
  // Each step's first run: a call's start before its kernel's.
  size_t calls_first = 0;
  for (size_t p = 12; p < order.size(); p += 8) {
    ASSERT_EQ(sliced.Recorded(order[p]), sliced.Recorded(order[p + 3])) << p;
    calls_first += !sliced.IsOpEvent(order[p]);
  }
  EXPECT_EQ(calls_first, static_cast<size_t>(kSteps));
}

TEST(DependencyGraph, StreamSyncWaitsForTheLastOpSubmittedToItsStream) {
  TraceModel m = testing::PerStepSyncTrace();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  int syncs = 0;
  for (size_t c = 0; c < g.call_count(); ++c) {
    if (g.CallBlocking(c) != BlockingKind::kStreamSync) continue;
    ++syncs;
    EXPECT_EQ(g.CallSyncStream(c), m.stream_index.at(testing::kStream));
    auto waits = EdgesInto(g, g.CallEnd(c), DepEdgeKind::kSyncWait);
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_EQ(waits[0].lag_ns, 5 * kUs) << "the sync returned 5 us after the kernel ended";
    auto own = EdgesInto(g, g.CallEnd(c), DepEdgeKind::kCallDuration);
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own[0].lag_ns, 5 * kUs) << "without the wait it would take its tail";
  }
  EXPECT_EQ(syncs, 5);
}

TEST(DependencyGraph, EventRecordAndWaitOrderAcrossStreams) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  int64_t ka = b.Kernel("a", kA, 10 * kUs, 500 * kUs, ApiTimes{0, 5 * kUs, 1});
  testing::Record(b, 1, kA, 6 * kUs);
  testing::WaitEvent(b, kB, 1, 8 * kUs);
  int64_t kb = b.Kernel("b", kB, 502 * kUs, 600 * kUs, ApiTimes{10 * kUs, 15 * kUs, 1});
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  int32_t a = GraphOpOf(g, m, ka), bb = GraphOpOf(g, m, kb);
  auto waits = EdgesInto(g, DependencyGraph::OpStart(bb), DepEdgeKind::kEventWait);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].from, DependencyGraph::OpEnd(a));
  EXPECT_EQ(waits[0].lag_ns, 2 * kUs);
  EXPECT_EQ(g.edges()[g.Binding(DependencyGraph::OpStart(bb))].kind, DepEdgeKind::kEventWait);
}

TEST(DependencyGraph, LegacyStreamFollowsBlockingStreamsAndTheReverse) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  b.Stream(kLegacy, StreamKind::kLegacyDefault);
  int64_t ka = b.Kernel("a", kA, 10 * kUs, 100 * kUs, ApiTimes{0, 5 * kUs, 1});
  int64_t kn = b.Kernel("n", kB, 12 * kUs, 90 * kUs, ApiTimes{5 * kUs, 10 * kUs, 1});
  int64_t kl = b.Kernel("l", kLegacy, 101 * kUs, 200 * kUs, ApiTimes{10 * kUs, 15 * kUs, 1});
  int64_t ka2 = b.Kernel("a2", kA, 201 * kUs, 300 * kUs, ApiTimes{15 * kUs, 20 * kUs, 1});
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  auto into_l = EdgesInto(g, DependencyGraph::OpStart(GraphOpOf(g, m, kl)), DepEdgeKind::kLegacyStream);
  ASSERT_EQ(into_l.size(), 1u) << "the non-blocking stream is exempt";
  EXPECT_EQ(into_l[0].from, DependencyGraph::OpEnd(GraphOpOf(g, m, ka)));
  auto into_a2 = EdgesInto(g, DependencyGraph::OpStart(GraphOpOf(g, m, ka2)), DepEdgeKind::kLegacyStream);
  ASSERT_EQ(into_a2.size(), 1u);
  EXPECT_EQ(into_a2[0].from, DependencyGraph::OpEnd(GraphOpOf(g, m, kl)));
  EXPECT_TRUE(EdgesInto(g, DependencyGraph::OpStart(GraphOpOf(g, m, kn)), DepEdgeKind::kLegacyStream).empty());
  EXPECT_EQ(g.stats().at("edges_legacy_stream"), 2);
}

TEST(DependencyGraph, SynchronousCopyWaitsForItsOwnCopy) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  int64_t copy = b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, kA, 5 * kUs, 105 * kUs,
                        ApiTimes{0, 110 * kUs, 1}, "cudaMemcpy", false);
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  ASSERT_EQ(g.call_count(), 1u);
  EXPECT_EQ(g.CallBlocking(0), BlockingKind::kSyncCopy);
  auto waits = EdgesInto(g, g.CallEnd(0), DepEdgeKind::kSyncWait);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].from, DependencyGraph::OpEnd(g.GraphOp(OpIndex(m, "memcpy", copy))));
  EXPECT_EQ(waits[0].lag_ns, 5 * kUs);
}

TEST(DependencyGraph, DeviceSyncWaitsForEveryStreamButNotForWhatEndedAfterIt) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Stream(kB, StreamKind::kNonBlocking);
  b.Kernel("a", kA, 10 * kUs, 300 * kUs, ApiTimes{0, 5 * kUs, 1});
  b.Kernel("b", kB, 12 * kUs, 200 * kUs, ApiTimes{5 * kUs, 10 * kUs, 1});
  b.Sync(SyncKind::kContextSynchronize, -1, 20 * kUs, 305 * kUs, "cudaDeviceSynchronize", 1);
  // A kernel of another thread submitted before the sync but ending after it.
  b.Kernel("late", kB, 200 * kUs, 900 * kUs, ApiTimes{15 * kUs, 18 * kUs, 2});
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  int found = 0;
  for (size_t c = 0; c < g.call_count(); ++c) {
    if (g.CallBlocking(c) != BlockingKind::kDeviceSync) continue;
    ++found;
    auto waits = EdgesInto(g, g.CallEnd(c), DepEdgeKind::kSyncWait);
    EXPECT_EQ(waits.size(), 1u) << "stream B's last op ended after the sync returned";
  }
  EXPECT_EQ(found, 1);
}

TEST(DependencyGraph, PageableAsyncCopyThatHeldTheHostBlocks) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, kA, 5 * kUs, 105 * kUs,
         ApiTimes{0, 104 * kUs, 1});
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, kA, 200 * kUs, 300 * kUs,
         ApiTimes{150 * kUs, 160 * kUs, 1});  // returned long before its copy ended
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  ASSERT_EQ(g.call_count(), 2u);
  EXPECT_EQ(g.CallBlocking(0), BlockingKind::kPageableCopy);
  EXPECT_EQ(g.CallBlocking(1), BlockingKind::kNone);
}

TEST(DependencyGraph, NestedDriverCallBelongsToItsRuntimeCall) {
  ModelBuilder b;
  b.Stream(kA, StreamKind::kNonBlocking);
  b.Api("cublasSgemm_outer", 1, 0, 50 * kUs);
  int64_t corr = b.NextCorrelationId();
  b.Api("cuLaunchKernel", 1, 20 * kUs, 30 * kUs, corr, ApiDomain::kDriver);
  TraceModel& m0 = b.model();
  m0.ops.start_ns.push_back(26 * kUs);
  m0.ops.end_ns.push_back(100 * kUs);
  m0.ops.category.push_back(OpCategory::kKernel);
  m0.ops.device_id.push_back(0);
  m0.ops.stream.push_back(m0.StreamIndexFor(kA, 0));
  m0.ops.correlation_id.push_back(corr);
  m0.ops.name.push_back(m0.strings.Intern("gemm"));
  m0.ops.bytes.push_back(0);
  m0.ops.src_kind.push_back(MemoryKind::kUnknown);
  m0.ops.dst_kind.push_back(MemoryKind::kUnknown);
  m0.ops.is_async.push_back(0);
  m0.ops.peer_device.push_back(-1);
  m0.ops.graph_id.push_back(-1);
  m0.ops.source_id.push_back(1);
  TraceModel m = b.Build();
  DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  ASSERT_EQ(g.call_count(), 1u) << "only the outermost call is a host item";
  EXPECT_EQ(g.OpSubmitter(0), 0);
  auto submit = EdgesInto(g, DependencyGraph::OpStart(0), DepEdgeKind::kSubmit);
  ASSERT_EQ(submit.size(), 1u);
  EXPECT_EQ(submit[0].from, g.CallStart(0));
  EXPECT_EQ(submit[0].lag_ns, 26 * kUs) << "20 us into the outer call, then 6 us of launch";
}

TEST(DependencyGraph, OpsBeforeTheWindowAreFixedSources) {
  TraceModel m = testing::HostSleepTrace();
  Window w{(1000 + 2030 * 2) * kUs, 11425 * kUs, {}};
  DependencyGraph g = BuildDependencyGraph(m, w);
  EXPECT_EQ(g.recorded_end_ns(), 11425 * kUs);
  EXPECT_EQ(g.call_count(), 9u);
  // Step 1's K2 and K3 start inside the window; K1 started before it and
  // ended inside it.
  EXPECT_EQ(g.op_count(), 11u);
  EXPECT_EQ(g.fixed_end_ns(), (3030 + 2105) * kUs);
  bool outside = false;
  for (size_t v = 0; v < g.event_count(); ++v) {
    for (uint32_t i : g.InEdges(static_cast<int32_t>(v))) outside = outside || g.edges()[i].from == DepEdge::kOutside;
  }
  EXPECT_TRUE(outside);
}

TEST(DependencyGraph, EveryEdgeGoesForwardInTheReplayOrder) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
    std::vector<uint32_t> pos(g.event_count());
    ASSERT_EQ(g.order().size(), g.event_count());
    for (size_t p = 0; p < g.order().size(); ++p) pos[g.order()[p]] = static_cast<uint32_t>(p);
    for (size_t i = 0; i < g.edges().size(); ++i) {
      if (!g.EdgePresent(static_cast<uint32_t>(i))) continue;
      const DepEdge& e = g.edges()[i];
      if (e.from == DepEdge::kOutside) continue;
      EXPECT_LT(pos[e.from], pos[g.EdgeTarget(static_cast<uint32_t>(i))]) << seed;
    }
  }
}

// Every present edge is an in-edge of exactly one event (its target), and
// the per-kind counters count them.
TEST(DependencyGraph, EveryPresentEdgeIsListedOnceByItsTarget) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
    std::vector<int> listed(g.edge_count(), 0);
    for (size_t v = 0; v < g.event_count(); ++v) {
      for (uint32_t i : g.InEdges(static_cast<int32_t>(v))) ++listed[i];
    }
    int64_t present = 0, counted = 0;
    for (size_t i = 0; i < g.edge_count(); ++i) {
      EXPECT_EQ(listed[i], g.EdgePresent(static_cast<uint32_t>(i)) ? 1 : 0) << seed << " " << i;
      present += g.EdgePresent(static_cast<uint32_t>(i));
    }
    for (const auto& [name, n] : g.stats()) {
      if (name.starts_with("edges_")) counted += n;
    }
    EXPECT_EQ(present, counted) << seed;
  }
}

// The replay's visitor gives each event's in-edges as the accessors do.
TEST(DependencyGraph, VisitInEdgesAgreesWithTheAccessors) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
    for (size_t e = 0; e < g.event_count(); ++e) {
      const auto v = static_cast<int32_t>(e);
      std::vector<uint32_t> visited;
      g.VisitInEdges(v, [&](uint32_t i, int32_t from, int64_t source_ns, int64_t lag) {
        visited.push_back(i);
        EXPECT_EQ(from, g.EdgeFrom(i)) << seed << " " << i;
        EXPECT_EQ(source_ns, g.EdgeSourceNs(i)) << seed << " " << i;
        if (from != DepEdge::kOutside) {
          EXPECT_EQ(source_ns, g.Recorded(from)) << seed << " " << i;
        }
        EXPECT_EQ(lag, g.EdgeLag(i)) << seed << " " << i;
      });
      std::vector<uint32_t> listed;
      for (uint32_t i : g.InEdges(v)) listed.push_back(i);
      EXPECT_EQ(visited, listed) << seed;
    }
  }
}

TEST(DependencyGraph, OrderIsByRecordedTimeAndEdgesKeepTheirSourceTimes) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
    for (size_t p = 1; p < g.order().size(); ++p) {
      EXPECT_LE(g.Recorded(g.order()[p - 1]), g.Recorded(g.order()[p])) << seed;
    }
    for (size_t e = 0; e < g.event_count(); ++e) {
      const auto v = static_cast<int32_t>(e);
      for (uint32_t i : g.InEdges(v)) {
        EXPECT_TRUE(g.EdgePresent(i)) << seed;
        EXPECT_EQ(g.EdgeTarget(i), v) << seed;
        const DepEdge edge = g.edges()[i];
        // An edge's source time is its source's recorded time, also for a
        // source outside the window; no edge's source follows its target.
        if (edge.from != DepEdge::kOutside) {
          EXPECT_EQ(edge.from_ns, g.Recorded(edge.from)) << seed;
        }
        EXPECT_LE(edge.from_ns, g.Recorded(v)) << seed;
        EXPECT_EQ(edge.lag_ns, g.EdgeLag(static_cast<uint32_t>(i))) << seed;
      }
    }
  }
}

}  // namespace
}  // namespace streamscope
