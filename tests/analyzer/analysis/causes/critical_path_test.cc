#include "analyzer/analysis/causes/critical_path.h"

#include <array>

#include "analyzer/analysis/causes/gap_causes.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::kStream;
using testing::kUs;
using testing::ModelBuilder;

int64_t Kind(const CriticalPath& p, PathSegmentKind k) { return p.kind_ns[static_cast<int>(k)]; }

// The segments tile the path, and the per-kind figures are theirs.
void ExpectTiled(const CriticalPath& p) {
  int64_t cursor = p.start_ns, total = 0;
  std::array<int64_t, kNumPathSegmentKinds> ns{}, count{};
  for (const PathSegment& s : p.segments) {
    EXPECT_EQ(s.start_ns, cursor) << PathSegmentKindName(s.kind);
    EXPECT_GT(s.length(), 0);
    cursor = s.end_ns;
    total += s.length();
    ns[static_cast<int>(s.kind)] += s.length();
    ++count[static_cast<int>(s.kind)];
  }
  EXPECT_EQ(ns, p.kind_ns);
  EXPECT_EQ(count, p.kind_segments);
  EXPECT_EQ(cursor, p.end_ns);
  EXPECT_EQ(total, p.end_ns - p.start_ns);
  EXPECT_EQ(p.host_ns + p.gpu_ns, total);
}

TEST(CriticalPath, StarvedLoopRunsThroughTheHostSleeps) {
  TraceModel m = testing::HostSleepTrace();
  CriticalPath p = FindCriticalPath(m, WholeTraceWindow(m));
  EXPECT_EQ(p.start_ns, 0);
  EXPECT_EQ(p.end_ns, 11425 * kUs);
  ExpectTiled(p);
  EXPECT_EQ(Kind(p, PathSegmentKind::kHostWork), 10000 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kApiCall), (1000 + 4 * 30) * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kLaunch), 5 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kKernel), 300 * kUs);
  EXPECT_EQ(p.host_ns, 11120 * kUs);
  EXPECT_EQ(p.gpu_ns, 305 * kUs);
  // The path ends on the GPU, with the last step's three kernels.
  ASSERT_GE(p.segments.size(), 3u);
  const PathSegment& last = p.segments.back();
  EXPECT_EQ(last.kind, PathSegmentKind::kKernel);
  EXPECT_EQ(last.stream, m.stream_index.at(kStream));
  EXPECT_EQ(last.end_ns, 11425 * kUs);
  EXPECT_EQ(p.segments.front().kind, PathSegmentKind::kApiCall);  // cudaMalloc
  EXPECT_EQ(p.segments.front().tid, 1);
}

TEST(CriticalPath, GpuBoundLoopRunsThroughTheKernels) {
  // Launches every 10 us, kernels of 100 us back to back: after the first
  // launch, the path is all GPU.
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  for (int64_t j = 0; j < 10; ++j) {
    int64_t call = 10 * j * kUs;
    b.Kernel("k", kStream, (5 + 100 * j) * kUs, (105 + 100 * j) * kUs, ApiTimes{call, call + 10 * kUs, 1});
  }
  TraceModel m = b.Build();
  CriticalPath p = FindCriticalPath(m, WholeTraceWindow(m));
  ExpectTiled(p);
  EXPECT_EQ(p.start_ns, 0);
  EXPECT_EQ(p.end_ns, 1005 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kKernel), 1000 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kLaunch), 5 * kUs);
  EXPECT_EQ(p.host_ns, 0);
}

TEST(CriticalPath, SyncWaitIsFollowedBackIntoTheGpu) {
  TraceModel m = testing::PerStepSyncTrace();
  CriticalPath p = FindCriticalPath(m, WholeTraceWindow(m));
  ExpectTiled(p);
  EXPECT_EQ(p.start_ns, 1000 * kUs);
  EXPECT_EQ(p.end_ns, 3625 * kUs);
  // Per step: launch 5, kernel 500, sync return 5, host 20; the last step
  // ends with its kernel.
  EXPECT_EQ(Kind(p, PathSegmentKind::kKernel), 5 * 500 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kLaunch), 5 * 5 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kSyncReturn), 4 * 5 * kUs);
  EXPECT_EQ(Kind(p, PathSegmentKind::kHostWork), 4 * 20 * kUs);
  int sync_segments = 0;
  for (const PathSegment& s : p.segments) {
    if (s.kind != PathSegmentKind::kSyncReturn) continue;
    ++sync_segments;
    EXPECT_GE(s.op, 0) << "names the op it waited for";
    EXPECT_GE(s.api, 0);
  }
  EXPECT_EQ(sync_segments, 4);
}

TEST(CriticalPath, CitesTheIdleAccountForTheIdleItCrosses) {
  // Each of the 4 gaps between the kernels (30 us: sync return 5, host 20,
  // launch 5) is one sync_wait part of the idle account; the path crosses
  // it through the sync's return, the host work and the next launch. The
  // path starts with the first launch: 5 us before the first kernel, the
  // window's start.
  TraceModel m = testing::PerStepSyncTrace();
  const Window w = WholeTraceWindow(m);
  CriticalPath p = FindCriticalPath(m, w);
  GapCausesOptions o;
  o.keep_parts = true;
  const GapCausesResult gaps = AnalyzeGapCauses(m, w, o);
  CiteIdleOnPath(gaps, &p);
  const int sync_wait = static_cast<int>(GapCause::kSyncWait);
  EXPECT_TRUE(p.idle.cited);
  EXPECT_EQ(p.idle.idle_ns, 4 * 30 * kUs + 5 * kUs);
  EXPECT_EQ(p.idle.cause_ns[static_cast<int>(GapCause::kWindowStart)], 5 * kUs);
  EXPECT_EQ(p.idle.cause_ns[sync_wait], 4 * 30 * kUs);
  EXPECT_EQ(p.idle.cause_ns[sync_wait], gaps.cause_ns[sync_wait]);
  EXPECT_EQ(p.idle.by_segment[static_cast<int>(PathSegmentKind::kSyncReturn)][sync_wait], 4 * 5 * kUs);
  EXPECT_EQ(p.idle.by_segment[static_cast<int>(PathSegmentKind::kHostWork)][sync_wait], 4 * 20 * kUs);
  EXPECT_EQ(p.idle.by_segment[static_cast<int>(PathSegmentKind::kLaunch)][sync_wait], 4 * 5 * kUs);
  EXPECT_EQ(p.idle.by_segment[static_cast<int>(PathSegmentKind::kLaunch)][static_cast<int>(GapCause::kWindowStart)],
            5 * kUs);
  EXPECT_EQ(p.idle.by_segment[static_cast<int>(PathSegmentKind::kKernel)][sync_wait], 0);
}

TEST(CriticalPath, IdleOnThePathIsClippedToItsSpanAndSplitBySegment) {
  CriticalPath p;
  p.start_ns = 0;
  p.end_ns = 100;
  auto segment = [](int64_t start, int64_t end, PathSegmentKind kind) {
    PathSegment s;
    s.start_ns = start;
    s.end_ns = end;
    s.kind = kind;
    return s;
  };
  p.segments = {segment(0, 50, PathSegmentKind::kHostWork), segment(50, 60, PathSegmentKind::kLaunch),
                segment(60, 100, PathSegmentKind::kKernel)};
  GapCausesResult gaps;
  // Parts of two devices: 0 [40, 58), 1 [55, 80) and [95, 120).
  gaps.parts = {
      {GapCause::kRoundTrip, 40, 58}, {GapCause::kHostUnannotated, 55, 80}, {GapCause::kSubmissionLatency, 95, 120}};
  CiteIdleOnPath(gaps, &p);
  auto at = [&](PathSegmentKind k, GapCause c) { return p.idle.by_segment[static_cast<int>(k)][static_cast<int>(c)]; };
  EXPECT_EQ(p.idle.idle_ns, 18 + 25 + 5);
  EXPECT_EQ(at(PathSegmentKind::kHostWork, GapCause::kRoundTrip), 10);
  EXPECT_EQ(at(PathSegmentKind::kLaunch, GapCause::kRoundTrip), 8);
  EXPECT_EQ(at(PathSegmentKind::kLaunch, GapCause::kHostUnannotated), 5);
  EXPECT_EQ(at(PathSegmentKind::kKernel, GapCause::kHostUnannotated), 20);
  EXPECT_EQ(at(PathSegmentKind::kKernel, GapCause::kSubmissionLatency), 5);
  EXPECT_EQ(p.idle.cause_ns[static_cast<int>(GapCause::kSubmissionLatency)], 5);
}

TEST(CriticalPath, WindowClipsThePath) {
  TraceModel m = testing::HostSleepTrace();
  Window w{5000 * kUs, 11425 * kUs, {}};
  CriticalPath p = FindCriticalPath(m, w);
  ExpectTiled(p);
  EXPECT_GE(p.start_ns, w.start_ns);
  EXPECT_EQ(p.end_ns, 11425 * kUs);
}

TEST(CriticalPath, EmptyTraceHasNoPath) {
  TraceModel m = ModelBuilder().Build();
  CriticalPath p = FindCriticalPath(m, WholeTraceWindow(m));
  EXPECT_TRUE(p.segments.empty());
  EXPECT_EQ(p.host_ns + p.gpu_ns, 0);
}

TEST(CriticalPath, InconsistentTracesNeverCrash) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 300);
    CriticalPath p = FindCriticalPath(m, WholeTraceWindow(m));
    int64_t total = 0;
    for (const PathSegment& s : p.segments) total += s.length();
    EXPECT_EQ(total, p.host_ns + p.gpu_ns) << seed;
  }
}

}  // namespace
}  // namespace streamscope
