// Replaying the dependency graph with nothing removed reproduces the
// window's recorded last GPU op end within 1 % on every bundled real trace
// (the reference workloads recorded on the H200 and the Nsight Systems
// exports), for the whole trace, the default window (steady state) and the
// NVTX range "measured" where there is one. The error of each is printed.
// The critical path, from the recorded times and binding edges, is the
// same with the graph's replay columns dropped.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/critical_path.h"
#include "analyzer/analysis/causes/what_if.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/window_label.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/bundled_traces.h"

namespace streamscope {
namespace {

using testing::BundledSqliteTraces;

void CheckWindow(const TraceModel& m, const Window& w, const std::string& what) {
  WhatIfResult r = EstimateSavings(m, w);
  std::cout << what << ": recorded end " << r.recorded_end_ns << " ns, replayed " << r.replayed_end_ns << " ns, error "
            << r.replay_error * 100 << " %, " << r.estimates.size() << " causes";
  if (!r.estimates.empty()) {
    std::cout << ", top " << WhatIfKindName(r.estimates.front().cause.kind) << " saves "
              << r.estimates.front().estimated_saving_ns << " ns";
  }
  std::cout << "\n";
  EXPECT_LE(r.replay_error, 0.01) << what;
  for (size_t k = 1; k < r.estimates.size(); ++k) {
    const WhatIfEstimate& a = r.estimates[k - 1];
    const WhatIfEstimate& b = r.estimates[k];
    if (a.estimable && b.estimable) {
      EXPECT_GE(a.estimated_saving_ns, b.estimated_saving_ns) << what;
    }
  }
  // The critical path reads the recorded times and binding edges instead of
  // replaying: the replay with nothing changed must give back both.
  const DependencyGraph g = BuildDependencyGraph(m, w);
  const ReplayResult same = Replay(g, {}, /*keep_binding=*/true);
  size_t moved = 0, rebound = 0;
  for (size_t e = 0; e < g.event_count(); ++e) {
    moved += same.t[e] != g.Recorded(static_cast<int32_t>(e));
    rebound += same.binding[e] != g.Binding(static_cast<int32_t>(e));
  }
  EXPECT_EQ(moved, 0u) << what;
  EXPECT_EQ(rebound, 0u) << what;
  EXPECT_EQ(same.end_ns, r.recorded_end_ns) << what;
  CriticalPath p = FindCriticalPath(m, w);
  int64_t total = 0, cursor = p.start_ns;
  for (const PathSegment& s : p.segments) {
    EXPECT_EQ(s.start_ns, cursor) << what << " " << PathSegmentKindName(s.kind);
    cursor = s.end_ns;
    total += s.length();
  }
  EXPECT_EQ(total, p.end_ns - p.start_ns) << what;
  // The path keeps each segment's end only (its start is the end before
  // it): that holds when every binding edge's source time is its source
  // event's recorded time, and no binding edge goes back in time.
  for (size_t e = 0; e < g.event_count(); ++e) {
    const int32_t i = g.Binding(static_cast<int32_t>(e));
    if (i < 0) continue;
    const DepEdge source = g.EdgeSource(static_cast<uint32_t>(i));
    if (source.from == DepEdge::kOutside) continue;
    ASSERT_EQ(source.from_ns, g.Recorded(source.from)) << what << " event " << e;
    ASSERT_LE(source.from_ns, g.Recorded(static_cast<int32_t>(e))) << what << " event " << e;
  }
  EXPECT_EQ(p.end_ns, r.recorded_end_ns) << what;
  // The report drops the replay columns before finding the path: the same
  // path, segment for segment.
  DependencyGraph dropped = BuildDependencyGraph(m, w);
  dropped.DropReplayColumns();
  const CriticalPath q = FindCriticalPath(m, dropped);
  EXPECT_EQ(q.start_ns, p.start_ns) << what;
  ASSERT_EQ(q.segments.size(), p.segments.size()) << what;
  for (size_t k = 0; k < p.segments.size(); ++k) {
    const PathSegment &a = p.segments[k], &b = q.segments[k];
    EXPECT_TRUE(a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.tid == b.tid && a.stream == b.stream &&
                a.op == b.op && a.api == b.api && a.kind == b.kind && a.edge == b.edge)
        << what << " segment " << k;
  }
}

TEST(ReplayRealTraces, NothingRemovedReproducesTheRecordedEndWithinOnePercent) {
  std::vector<std::string> traces = BundledSqliteTraces({"tests/data", "tests/data/nsys"});
  ASSERT_GE(traces.size(), 18u) << "the bundled traces are committed";
  for (const std::string& path : traces) {
    auto models = LoadTraceFile(path);
    ASSERT_TRUE(models.ok()) << path << ": " << models.status();
    for (const TraceModel& m : *models) {
      CheckWindow(m, WholeTraceWindow(m), path + " whole trace");
      const SteadyState& s = DefaultSteadyState(m);
      CheckWindow(m, s.window, path + " default window (" + std::string(SteadyStateMethodName(s.method)) + ")");
      WindowSpec spec;
      spec.kind = WindowSpec::Kind::kNvtxRange;
      spec.nvtx_name = "measured";
      auto windows = ResolveWindows(m, spec);
      if (windows.ok()) {
        for (const Window& w : *windows) CheckWindow(m, w, path + " NVTX 'measured'");
      }
    }
  }
}

TEST(ReplayRealTraces, ReferenceWorkloadsHaveAnNvtxSteadyStateOrTheirGpuSpan) {
  for (const std::string& path : BundledSqliteTraces({"tests/data", "tests/data/nsys"})) {
    auto models = LoadTraceFile(path);
    ASSERT_TRUE(models.ok()) << path;
    for (const TraceModel& m : *models) {
      const SteadyState& s = DefaultSteadyState(m);
      std::cout << path << ": " << SteadyStateMethodName(s.method) << " [" << s.window.start_ns << ", "
                << s.window.end_ns << ") '" << WindowLabel(s.window) << "', start-up " << s.startup.length() << " ns, "
                << s.first_launches.size() << " first launches (" << s.first_launch_excess_ns << " ns)\n";
      EXPECT_NE(s.method, SteadyStateMethod::kNone) << path;
      if (m.ops.size() > 0) {
        EXPECT_GE(s.window.end_ns, s.window.start_ns) << path;
        EXPECT_GT(s.window.end_ns, s.startup.end) << path << ": the steady state holds GPU work";
      }
    }
  }
}

// The reference workloads' planted cause (workloads/README.md) is the one
// whose removal saves most in their NVTX range "measured"; every cause's
// figures are printed.
TEST(ReplayRealTraces, ReferenceWorkloadsRankTheirPlantedCauseFirst) {
  struct Expected {
    const char* variant;
    WhatIfKind kind;
    const char* name;  // NVTX range or API name; "" = any
  };
  const Expected expected[] = {
      {"cpu_starved", WhatIfKind::kHostWork, "host_prepare"},
      {"implicit_sync", WhatIfKind::kSync, "cudaFree"},
      {"legacy_default", WhatIfKind::kLegacyStream, ""},
      {"sequential", WhatIfKind::kSameStream, ""},
  };
  for (const Expected& e : expected) {
    auto models = LoadTraceFile(std::string("tests/data/") + e.variant + ".sqlite");
    ASSERT_TRUE(models.ok()) << e.variant;
    const TraceModel& m = models->front();
    WindowSpec spec;
    spec.kind = WindowSpec::Kind::kNvtxRange;
    spec.nvtx_name = "measured";
    auto windows = ResolveWindows(m, spec);
    ASSERT_TRUE(windows.ok()) << e.variant;
    const Window& w = windows->front();
    WhatIfResult r = EstimateSavings(m, w);
    std::cout << e.variant << " 'measured' (" << r.recorded_end_ns - w.start_ns << " ns):\n";
    for (const WhatIfEstimate& x : r.estimates) {
      std::cout << "  " << WhatIfKindName(x.cause.kind) << " '" << m.strings.Get(x.cause.name) << "' saves "
                << x.estimated_saving_ns << " ns" << (x.estimable ? "" : " (no estimate)") << ", costs "
                << x.measured_cost_ns << " ns\n";
    }
    ASSERT_FALSE(r.estimates.empty()) << e.variant;
    const WhatIfEstimate& top = r.estimates.front();
    EXPECT_EQ(top.cause.kind, e.kind) << e.variant;
    if (*e.name != 0) {
      EXPECT_EQ(m.strings.Get(top.cause.name), e.name) << e.variant;
    }
    // The planted cause saves at least a third of the window.
    EXPECT_GT(3 * top.estimated_saving_ns, r.recorded_end_ns - w.start_ns) << e.variant;
  }
}

// A replay keeps the times of the latest events of each ring, and those
// read later (the graph's far reads) in a map. With rings of 2, 8 and 64
// events, every what-if on every bundled trace estimates the same saving as
// with rings that hold the whole trace, alone and all removed together (the
// edges same_stream adds included), and some traces read times from
// outside their rings.
TEST(ReplayRealTraces, ReplaysInSmallRingsEstimateWhatWholeRingsDo) {
  size_t far_windows = 0, added_windows = 0;
  for (const std::string& path : BundledSqliteTraces({"tests/data", "tests/data/nsys"})) {
    auto models = LoadTraceFile(path);
    ASSERT_TRUE(models.ok()) << path;
    for (const TraceModel& m : *models) {
      const Window w = WholeTraceWindow(m);
      WhatIfOptions whole;
      whole.graph.replay_ring_log2 = 30;
      const DependencyGraph g = BuildDependencyGraph(m, w, whole.graph);
      EXPECT_EQ(g.far_read_count(), 0u) << path;
      const WhatIfResult expected = EstimateSavings(m, g, whole);
      const std::vector<WhatIfCause> causes = FindWhatIfCauses(m, g, whole);
      const WhatIfEstimate expected_all = EstimateTogether(m, g, causes, whole);
      added_windows += std::any_of(causes.begin(), causes.end(),
                                   [](const WhatIfCause& c) { return c.kind == WhatIfKind::kSameStream; });
      for (int log2 : {1, 3, 6}) {
        const std::string what = path + " rings of " + std::to_string(1 << log2);
        WhatIfOptions small = whole;
        small.graph.replay_ring_log2 = log2;
        const DependencyGraph h = BuildDependencyGraph(m, w, small.graph);
        far_windows += h.far_read_count() > 0;
        const WhatIfResult r = EstimateSavings(m, h, small);
        EXPECT_EQ(r.replayed_end_ns, expected.replayed_end_ns) << what;
        ASSERT_EQ(r.estimates.size(), expected.estimates.size()) << what;
        for (size_t k = 0; k < r.estimates.size(); ++k) {
          EXPECT_TRUE(r.estimates[k].cause == expected.estimates[k].cause) << what << " estimate " << k;
          EXPECT_EQ(r.estimates[k].estimated_saving_ns, expected.estimates[k].estimated_saving_ns)
              << what << " " << WhatIfKindName(r.estimates[k].cause.kind);
        }
        const WhatIfEstimate all = EstimateTogether(m, h, causes, small);
        EXPECT_EQ(all.estimable, expected_all.estimable) << what;
        EXPECT_EQ(all.estimated_saving_ns, expected_all.estimated_saving_ns) << what << " all together";
      }
    }
  }
  EXPECT_GT(far_windows, 0u) << "small rings make some replays read from outside them";
  EXPECT_GT(added_windows, 0u) << "some traces have same_stream, whose what-if adds edges";
}

TEST(ReplayRealTraces, PageableWorkloadHasNoPinnedRateUnlessTheLinkIsKnown) {
  auto models = LoadTraceFile("tests/data/pageable.sqlite");
  ASSERT_TRUE(models.ok());
  const TraceModel& m = models->front();
  Window w = DefaultWindow(m);
  WhatIfResult r = EstimateSavings(m, w);
  const WhatIfEstimate* pageable = nullptr;
  for (const WhatIfEstimate& x : r.estimates) {
    if (x.cause.kind == WhatIfKind::kPageableCopy) pageable = &x;
  }
  ASSERT_NE(pageable, nullptr);
  EXPECT_FALSE(pageable->estimable) << "the trace holds no pinned copy, and the link was not given";
  EXPECT_GT(pageable->unestimated_ops, 0);
}

}  // namespace
}  // namespace streamscope
