// The analyses on the committed real traces of the reference workloads
// (tests/data/<variant>.sqlite, recorded on an H200 with tools/record_fixtures.sh):
// each variant's guaranteed property (workloads/README.md) must show up in
// the analysis of its NVTX range "measured". The traces are committed, so a
// missing file is a failure, not a skip.
#include <sstream>
#include <string>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/hidden_sync.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/window_label.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::kMs;

struct Loaded {
  TraceModel model;
  Window window;
};

// Loads tests/data/<variant>.sqlite and its "measured" window.
Loaded Load(const std::string& variant) {
  auto models = LoadTraceFile("tests/data/" + variant + ".sqlite");
  EXPECT_TRUE(models.ok()) << models.status();
  if (!models.ok() || models->size() != 1) return {};
  Loaded out{std::move(models->front()), {}};
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "measured";
  spec.nvtx_instance = 1;
  auto windows = ResolveWindows(out.model, spec);
  EXPECT_TRUE(windows.ok()) << windows.status();
  if (windows.ok() && !windows->empty()) out.window = windows->front();
  EXPECT_GT(out.window.length(), 0) << variant;
  return out;
}

int64_t Overlap(const OverlapResult& r, OpCategory a, OpCategory b) {
  int pair = a == b ? kComputeComputePair : OverlapPairIndex(a, b);
  int64_t total = 0;
  for (const DeviceOverlap& d : r.devices) {
    if (const PairOverlap* p = r.Find(d.device_id, pair)) total += p->overlapped_ns;
  }
  return total;
}

int64_t AnyOverlap(const OverlapResult& r) {
  int64_t total = 0;
  for (const DeviceOverlap& d : r.devices) {
    for (const PairOverlap& p : d.pairs) total += p.overlapped_ns;
  }
  return total;
}

OverlapResult OverlapOf(const Loaded& t) { return AnalyzeOverlap(t.model, t.window, OverlapOptions{}); }

TEST(WorkloadTraces, SequentialControlHasNoOverlapAtAll) {
  Loaded t = Load("sequential");
  OverlapResult r = OverlapOf(t);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_GT(r.devices[0].busy_ns, 0);
  EXPECT_EQ(AnyOverlap(r), 0);
}

TEST(WorkloadTraces, OverlappedVariantOverlapsCopiesWithComputeAndEachOther) {
  Loaded t = Load("overlapped");
  OverlapResult r = OverlapOf(t);
  EXPECT_GT(Overlap(r, OpCategory::kKernel, OpCategory::kHtoD), 0);
  EXPECT_GT(Overlap(r, OpCategory::kKernel, OpCategory::kDtoH), 0);
  EXPECT_GT(Overlap(r, OpCategory::kHtoD, OpCategory::kDtoH), 0);
}

TEST(WorkloadTraces, EventPipelineAndConcurrentKernelsOverlap) {
  Loaded pipeline = Load("event_pipeline");
  EXPECT_GT(AnyOverlap(OverlapOf(pipeline)), 0);
  Loaded concurrent = Load("concurrent_kernels");
  EXPECT_GT(Overlap(OverlapOf(concurrent), OpCategory::kKernel, OpCategory::kKernel), 0);
}

TEST(WorkloadTraces, PageableAsyncCopiesAreFlaggedAsHoldingTheHost) {
  Loaded t = Load("pageable");
  HiddenSyncResult r = AnalyzeHiddenSync(t.model, t.window, HiddenSyncOptions{});
  int64_t observed_pageable = 0;
  for (const ImplicitSyncFinding& f : r.implicit_calls) {
    if (f.kind == ImplicitSyncKind::kPageableAsyncMemcpy && f.observed) ++observed_pageable;
  }
  // 8 H2D + 8 D2H cudaMemcpyAsync calls on pageable memory.
  EXPECT_GE(observed_pageable, 8);
}

TEST(WorkloadTraces, LegacyDefaultStreamSerializesTheBlockingStreams) {
  Loaded t = Load("legacy_default");
  HiddenSyncResult r = AnalyzeHiddenSync(t.model, t.window, HiddenSyncOptions{});
  EXPECT_FALSE(r.serialization.empty());
  EXPECT_EQ(AnyOverlap(OverlapOf(t)), 0);
}

TEST(WorkloadTraces, ImplicitSyncCallsAreFoundAndNamed) {
  Loaded t = Load("implicit_sync");
  HiddenSyncResult r = AnalyzeHiddenSync(t.model, t.window, HiddenSyncOptions{});
  bool saw_malloc = false, saw_free = false, saw_memset = false;
  for (const ImplicitSyncTotal& total : r.implicit_totals) {
    std::string name(t.model.strings.Get(total.name));
    if (name.rfind("cudaMalloc", 0) == 0 && total.kind == ImplicitSyncKind::kAllocFree) saw_malloc = true;
    if (name.rfind("cudaFree", 0) == 0 && total.calls >= 8) saw_free = true;
    if (name.rfind("cudaMemset", 0) == 0 && total.kind == ImplicitSyncKind::kSyncMemset) saw_memset = true;
  }
  EXPECT_TRUE(saw_malloc);
  EXPECT_TRUE(saw_free);
  EXPECT_TRUE(saw_memset);
}

TEST(WorkloadTraces, CpuStarvedGapsAreAttributedToHostPrepare) {
  Loaded t = Load("cpu_starved");
  GapCausesResult r = AnalyzeGapCauses(t.model, t.window, GapCausesOptions{});
  int64_t host_prepare_ns = 0;
  for (const GapCauseTotal& total : r.totals) {
    if (total.cause == GapCause::kHostNvtxRange && t.model.strings.Get(total.detail) == "host_prepare") {
      host_prepare_ns += total.ns;
    }
  }
  // 12 chunks, each preceded by 3 ms of host work in NVTX range host_prepare:
  // at least 11 of those gaps must be there (the first may precede the GPU work).
  EXPECT_GE(host_prepare_ns, 11 * 3 * kMs - kMs);
}

// Every instance of host_prepare as its own window (12 > the 10 a text
// report shows one by one): each is 3 ms of host work during which the GPU
// ran at most the previous chunk's work, so it idled most of the window,
// waiting for the thread inside host_prepare.
TEST(WorkloadTraces, CpuStarvedEachHostPrepareInstanceIsAWindowWhereTheGpuWaits) {
  Loaded t = Load("cpu_starved");
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "host_prepare";
  auto windows = ResolveWindows(t.model, spec);
  ASSERT_TRUE(windows.ok()) << windows.status();
  ASSERT_EQ(windows->size(), 12u);
  for (const Window& w : *windows) {
    EXPECT_GE(w.length(), 3 * kMs) << WindowLabel(w);
    IdleGapsResult idle = AnalyzeIdleGaps(t.model, w, IdleGapsOptions{});
    ASSERT_EQ(idle.devices.size(), 1u);
    EXPECT_LT(idle.devices[0].busy_ns * 2, idle.devices[0].window_ns) << WindowLabel(w) << ": the GPU idles most of it";
    GapCausesResult causes = AnalyzeGapCauses(t.model, w, GapCausesOptions{});
    int64_t waiting_ns = 0;
    for (const GapCauseTotal& total : causes.totals) {
      if (total.cause == GapCause::kHostNvtxRange && t.model.strings.Get(total.detail) == "host_prepare") {
        waiting_ns += total.ns;
      }
    }
    EXPECT_GE(waiting_ns * 2, w.length()) << WindowLabel(w) << ": most of it waiting for the host inside host_prepare";
  }
  // The text report summarizes the 12 instances.
  ReportOptions opt;
  opt.traces = {"tests/data/cpu_starved.sqlite"};
  opt.window = spec;
  std::ostringstream out, err;
  ASSERT_EQ(ExitWith(RunReport(opt, out, err), err), kExitOk) << err.str();
  EXPECT_NE(out.str().find("Instances of NVTX 'host_prepare': 12, "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("The longest instance in full:"), std::string::npos);
}

TEST(WorkloadTraces, GraphReplayRemovesTheLaunchGapsOfIndividualLaunches) {
  Loaded individual = Load("launch_individual");
  Loaded graph = Load("launch_graph");
  LaunchStatsResult a = AnalyzeLaunchStats(individual.model, individual.window, LaunchStatsOptions{});
  LaunchStatsResult b = AnalyzeLaunchStats(graph.model, graph.window, LaunchStatsOptions{});
  EXPECT_EQ(a.kernel_count, 500);
  EXPECT_EQ(b.kernel_count, 500);
  EXPECT_EQ(b.graph_kernel_count, 500);
  EXPECT_GT(a.graph_removable_ns, 0);
  EXPECT_EQ(b.graph_removable_ns, 0);
  // The graph's own inter-kernel idle is far below the individual launches'.
  EXPECT_LT(b.graph_kernel_gap_ns * 4, a.graph_removable_ns);
}

}  // namespace
}  // namespace streamscope
