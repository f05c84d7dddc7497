#include "analyzer/analysis/causes/launch_stats.h"

#include <sstream>

#include "analyzer/render/launch_stats_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/windows/test_windows.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;

using testing::us;

using testing::WindowOf;

const KernelLaunchStats* Group(const LaunchStatsResult& r, const TraceModel& m, std::string_view name,
                               bool graph = false) {
  for (const KernelLaunchStats& k : r.kernels) {
    if (m.strings.Get(k.name) == name && k.from_graph == graph) return &k;
  }
  return nullptr;
}

TEST(LaunchStats, NearestRankPercentiles) {
  std::vector<int64_t> v = {50, 10, 40, 20, 30};
  Distribution d = Summarize(v);
  EXPECT_EQ(d.count, 5);
  EXPECT_EQ(d.min, 10);
  EXPECT_EQ(d.median, 30);
  EXPECT_EQ(d.p90, 50);
  EXPECT_EQ(d.max, 50);
  EXPECT_DOUBLE_EQ(d.mean, 30.0);
  std::vector<int64_t> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  d = Summarize(hundred);
  EXPECT_EQ(d.median, 50);
  EXPECT_EQ(d.p90, 90);
  EXPECT_EQ(d.p99, 99);
  std::vector<int64_t> empty;
  EXPECT_EQ(Summarize(empty).count, 0);
}

TEST(LaunchStats, QueueDelayDistributionPerKernel) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  // Five 'a' kernels, 1 ms apart: launch calls of 2, 4, 6, 8, 10 us; queue
  // delays of 1, 2, 3, 4, 100 us; 10 us on the GPU each.
  const int64_t api_len[] = {2, 4, 6, 8, 10}, queue[] = {1, 2, 3, 4, 100};
  for (int i = 0; i < 5; ++i) {
    int64_t t0 = us(1000) * i;
    int64_t api_end = t0 + us(api_len[i]);
    b.Kernel("a", 13, api_end + us(queue[i]), api_end + us(queue[i]) + us(10), ApiTimes{t0, api_end, 7});
  }
  // Two 'b' kernels without recorded launch calls.
  b.Kernel("b", 13, us(500), us(520));
  b.Kernel("b", 13, us(1500), us(1530));
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(5000)));
  EXPECT_EQ(r.kernel_count, 7);
  EXPECT_EQ(r.no_api_count, 2);
  const KernelLaunchStats* a = Group(r, m, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->count, 5);
  EXPECT_EQ(a->queue_ns.min, us(1));
  EXPECT_EQ(a->queue_ns.median, us(3));
  EXPECT_EQ(a->queue_ns.p90, us(100));
  EXPECT_EQ(a->queue_ns.p99, us(100));
  EXPECT_EQ(a->queue_ns.max, us(100));
  EXPECT_DOUBLE_EQ(a->queue_ns.mean, us(22));
  EXPECT_EQ(a->api_ns.median, us(6));
  EXPECT_DOUBLE_EQ(a->api_ns.mean, us(6));
  EXPECT_EQ(a->gpu_ns.median, us(10));
  EXPECT_EQ(a->gpu_ns.total, us(50));
  EXPECT_EQ(m.ops.source_id[a->max_queue_op], 5);
  EXPECT_FALSE(a->api_slower_than_gpu);  // 10 us on the GPU vs 6 us to launch
  const KernelLaunchStats* bk = Group(r, m, "b");
  ASSERT_NE(bk, nullptr);
  EXPECT_EQ(bk->count, 2);
  EXPECT_EQ(bk->no_api_count, 2);
  EXPECT_EQ(bk->api_ns.count, 0);
  EXPECT_EQ(bk->gpu_ns.max, us(30));
  // Ordered by total GPU time, ties by first kernel: 'a' (50 us) before 'b' (50 us).
  EXPECT_EQ(m.strings.Get(r.kernels[0].name), "a");
}

// Kernels of two names launched in turn, some without a recorded call:
// each name's distributions hold its own kernels only, the calls' only
// those with a call, and of two queued equally long the first is cited.
TEST(LaunchStats, InterleavedKernelsKeepTheirOwnDistributions) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  // 'p' at 0, 2, 4, 6 ms: calls of 3, 5, -, 7 us; queue 9, 4, -, 9 us; 20 us on the GPU.
  // 'q' at 1, 3, 5 ms: calls of 1, 2, 3 us; queue 1 us; 2, 4, 6 us on the GPU.
  const int64_t p_call[] = {3, 5, 0, 7}, p_queue[] = {9, 4, 0, 9};
  for (int i = 0; i < 4; ++i) {
    const int64_t t0 = us(2000) * i, call_end = t0 + us(p_call[i]), start = call_end + us(p_queue[i]);
    if (p_call[i] == 0) {
      b.Kernel("p", 13, t0 + us(50), t0 + us(70));
    } else {
      b.Kernel("p", 13, start, start + us(20), ApiTimes{t0, call_end, 7});
    }
  }
  for (int i = 0; i < 3; ++i) {
    const int64_t t0 = us(1000) + us(2000) * i, call_end = t0 + us(i + 1);
    b.Kernel("q", 13, call_end + us(1), call_end + us(1) + us(2 * (i + 1)), ApiTimes{t0, call_end, 7});
  }
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(8000)));
  const KernelLaunchStats* p = Group(r, m, "p");
  const KernelLaunchStats* q = Group(r, m, "q");
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(p->gpu_ns.count, 4);
  EXPECT_EQ(p->gpu_ns.total, us(80));
  EXPECT_EQ(p->api_ns.count, 3);
  EXPECT_EQ(p->api_ns.min, us(3));
  EXPECT_EQ(p->api_ns.median, us(5));
  EXPECT_EQ(p->api_ns.max, us(7));
  EXPECT_EQ(p->queue_ns.count, 3);
  EXPECT_EQ(p->queue_ns.min, us(4));
  EXPECT_EQ(p->queue_ns.max, us(9));
  EXPECT_EQ(m.ops.source_id[p->max_queue_op], 1) << "the first of the two queued 9 us";
  EXPECT_EQ(q->gpu_ns.count, 3);
  EXPECT_EQ(q->gpu_ns.min, us(2));
  EXPECT_EQ(q->gpu_ns.max, us(6));
  EXPECT_EQ(q->api_ns.total, us(6));
  EXPECT_EQ(q->queue_ns.max, us(1));
  EXPECT_EQ(m.ops.source_id[q->max_queue_op], 5) << "q's first kernel (source ids follow the calls to Kernel)";
}

// A graph launch returns after its kernels started (here 3 us into a 20-us
// cudaGraphLaunch), and a launch can block until the queue has room: such
// kernels waited in no queue. Their queue delay is 0, never negative, and
// they are counted as started during their launch call.
TEST(LaunchStats, KernelsThatStartBeforeTheirCallReturnsHaveQueueZero) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  for (int i = 0; i < 4; ++i) {
    int64_t t0 = us(100) * i;
    b.Kernel("g", 13, t0 + us(3), t0 + us(13), ApiTimes{t0, t0 + us(20), 7}, /*graph_id=*/5);
  }
  // One ordinary launch that queued 4 us.
  b.Kernel("g", 13, us(500) + us(6), us(500) + us(9), ApiTimes{us(500), us(502), 7});
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(1000)));
  const KernelLaunchStats* graph = Group(r, m, "g", /*graph=*/true);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->started_during_call, 4);
  EXPECT_EQ(graph->queue_ns.count, 4);
  EXPECT_EQ(graph->queue_ns.min, 0);
  EXPECT_EQ(graph->queue_ns.max, 0);
  const KernelLaunchStats* single = Group(r, m, "g", /*graph=*/false);
  ASSERT_NE(single, nullptr);
  EXPECT_EQ(single->started_during_call, 0);
  EXPECT_EQ(single->queue_ns.median, us(4));
  std::ostringstream text;
  RenderLaunchStatsText(r, m, text);
  EXPECT_NE(text.str().find("4 started during their launch call"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("queue -"), std::string::npos) << text.str();
}

// Stream 13 (device 0): four 2-us kernels, each launch call 5 us long and
// issued back to back: the GPU idles 3 us before each of the last three
// while the next launch is already in progress.
// Stream 14 (device 1): the same kernels from one CUDA graph, 0.5 us apart.
// Stream 15 (device 2): a launch that came 30 us after the previous kernel
// ended (host work, not launch overhead).
TraceModel SmallKernels() {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking, 0);
  b.Stream(14, StreamKind::kNonBlocking, 1);
  b.Stream(15, StreamKind::kNonBlocking, 2);
  for (int i = 0; i < 4; ++i) {
    int64_t a = us(5) * i;
    b.Kernel("small", 13, a + us(6), a + us(8), ApiTimes{a, a + us(5), 7});
  }
  for (int i = 0; i < 4; ++i) {
    int64_t s = us(100) + i * 2500;
    b.Kernel("small", 14, s, s + us(2), std::nullopt, /*graph_id=*/1);
  }
  b.Kernel("big", 15, us(0), us(10), ApiTimes{-us(5), -us(4), 8});
  b.Kernel("big", 15, us(42), us(44), ApiTimes{us(40), us(41), 8});
  return b.Build();
}

TEST(LaunchStats, GraphRemovableGapsBetweenSmallKernels) {
  TraceModel m = SmallKernels();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(200)));
  EXPECT_EQ(r.graph_removable_ns, us(9));
  EXPECT_EQ(r.graph_removable_gaps, 3);
  const KernelLaunchStats* small = Group(r, m, "small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->count, 4);
  EXPECT_EQ(small->graph_removable_ns, us(9));
  EXPECT_EQ(small->idle_before_ns, us(9));
  EXPECT_TRUE(small->api_slower_than_gpu);     // 2 us on the GPU, 5 us to launch
  EXPECT_TRUE(small->launch_gaps_exceed_gpu);  // 9 us idle > 8 us of GPU time
  EXPECT_TRUE(small->launch_bound());
  // The graph's kernels are a group of their own, never launch-bound, and
  // their gaps are reported apart.
  const KernelLaunchStats* graph = Group(r, m, "small", true);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->count, 4);
  EXPECT_EQ(graph->graph_removable_ns, 0);
  EXPECT_FALSE(graph->launch_bound());
  EXPECT_EQ(r.graph_kernel_count, 4);
  EXPECT_EQ(r.graph_kernel_gap_ns, 3 * 500);
  // Host work before the launch is idle time, but not graph-removable.
  const KernelLaunchStats* big = Group(r, m, "big");
  ASSERT_NE(big, nullptr);
  // 32 us idle > 12 us of GPU time, but the host had not begun the launch:
  // CPU starvation, not launch overhead.
  EXPECT_EQ(big->idle_before_ns, us(32));
  EXPECT_EQ(big->graph_removable_ns, 0);
  EXPECT_FALSE(big->launch_bound());
  EXPECT_EQ(r.launch_bound_kernels, 4);
  ASSERT_FALSE(r.streams.empty());
  EXPECT_EQ(m.streams[r.streams[0].stream].id, 13);
  EXPECT_EQ(r.streams[0].graph_removable_gaps, 3);
  // Each removable gap names its kernels and the launch already under way.
  ASSERT_EQ(r.worst_gaps.size(), 3u);
  EXPECT_EQ(r.worst_gaps[0].idle_ns, us(3));
  EXPECT_EQ(m.ops.source_id[r.worst_gaps[0].prev_op], 1);
  EXPECT_EQ(m.ops.source_id[r.worst_gaps[0].next_op], 2);
  EXPECT_EQ(m.api.start_ns[r.worst_gaps[0].api], us(5));

  std::ostringstream text;
  RenderLaunchStatsText(r, m, text);
  EXPECT_NE(text.str().find("A CUDA graph could remove up to 9.00 us of GPU idle time"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("Launch-bound: 'small' (4 launches)"), std::string::npos);
}

TEST(LaunchStats, OneSlowFirstLaunchIsNotLaunchBound) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  // First launch loads the module: 1 ms call for a 40 us kernel.
  b.Kernel("k", 13, us(1100), us(1140), ApiTimes{us(0), us(1000), 7});
  b.Kernel("k", 13, us(1200), us(1240), ApiTimes{us(1150), us(1155), 7});
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(2000)));
  const KernelLaunchStats* k = Group(r, m, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_GT(k->api_ns.mean, k->gpu_ns.mean);  // the mean alone would say launch-bound
  EXPECT_FALSE(k->launch_bound());            // but two launches are too few to tell
  LaunchStatsOptions two;
  two.min_launches_for_launch_bound = 2;
  // Nor with two allowed: the rule compares medians (the lower middle: the
  // 5 us call), not the mean the 1 ms first launch sets.
  EXPECT_FALSE(Group(AnalyzeLaunchStats(m, WindowOf(0, us(2000)), two), m, "k")->launch_bound());
}

TEST(LaunchStats, OtherStreamWorkIsNotIdleTime) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Stream(14, StreamKind::kNonBlocking);
  b.Kernel("k", 13, us(0), us(2), ApiTimes{us(0), us(1), 7});
  b.Kernel("k", 13, us(10), us(12), ApiTimes{us(1), us(2), 7});
  b.Kernel("filler", 14, us(1), us(9), ApiTimes{us(0), us(1), 8});  // covers [2, 9) of the gap
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(20)));
  EXPECT_EQ(r.graph_removable_ns, us(1));  // only [9, 10) had an idle device
}

TEST(LaunchStats, CopyBetweenKernelsBreaksTheChain) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k", 13, us(0), us(2), ApiTimes{us(0), us(1), 7});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 13, us(4), us(6));
  b.Kernel("k", 13, us(10), us(12), ApiTimes{us(1), us(2), 7});
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(20)));
  EXPECT_EQ(r.graph_removable_gaps, 0);
  EXPECT_EQ(Group(r, m, "k")->idle_before_count, 0);
}

TEST(LaunchStats, KernelsCountWhereTheyStartAndZeroLengthIsFine) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("early", 13, us(0), us(60), ApiTimes{us(0), us(1), 7});      // crosses the window start
  b.Kernel("inside", 13, us(70), us(70), ApiTimes{us(62), us(63), 7});  // zero length
  b.Kernel("late", 13, us(90), us(200), ApiTimes{us(64), us(65), 7});   // crosses the end
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(us(50), us(100)));
  EXPECT_EQ(r.kernel_count, 2);
  EXPECT_EQ(Group(r, m, "early"), nullptr);
  ASSERT_NE(Group(r, m, "inside"), nullptr);
  EXPECT_EQ(Group(r, m, "inside")->gpu_ns.max, 0);
  EXPECT_EQ(Group(r, m, "late")->graph_removable_ns, us(20));  // [70, 90) after the zero-length one
}

TEST(LaunchStats, ManyStreamsAndDevicesKeepPerStreamChains) {
  ModelBuilder b;
  for (int s = 0; s < 50; ++s) b.Stream(100 + s, StreamKind::kNonBlocking, s % 4);
  // On each stream: two kernels 10 us apart, second launched before the
  // first ended; all streams interleaved in time on 4 devices.
  for (int s = 0; s < 50; ++s) {
    int64_t t0 = us(1000) * s;
    b.Kernel("k", 100 + s, t0, t0 + us(5), ApiTimes{t0 - us(2), t0 - us(1), 7});
    b.Kernel("k", 100 + s, t0 + us(15), t0 + us(20), ApiTimes{t0, t0 + us(1), 7});
  }
  TraceModel m = b.Build();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(-us(10), us(60000)));
  EXPECT_EQ(r.graph_removable_gaps, 50);
  EXPECT_EQ(r.graph_removable_ns, 50 * us(10));
  EXPECT_EQ(r.streams.size(), 50u);
}

TEST(LaunchStats, RandomInconsistentTracesDoNotCrash) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(us(100), us(6000)));
    int64_t counted = 0;
    for (const KernelLaunchStats& k : r.kernels) {
      counted += k.count;
      EXPECT_EQ(k.gpu_ns.count, k.count);
      EXPECT_EQ(k.api_ns.count + k.no_api_count, k.count);
      EXPECT_LE(k.gpu_ns.min, k.gpu_ns.median);
      EXPECT_LE(k.gpu_ns.median, k.gpu_ns.p90);
      EXPECT_LE(k.gpu_ns.p90, k.gpu_ns.p99);
      EXPECT_LE(k.gpu_ns.p99, k.gpu_ns.max);
    }
    EXPECT_EQ(counted, r.kernel_count) << "seed " << seed;
    EXPECT_LE(r.graph_removable_ns, us(5900));
    std::ostringstream text;
    RenderLaunchStatsText(r, m, text);
    EXPECT_FALSE(LaunchStatsToJson(r, m).dump().empty());
    LaunchStatsToTables(r, m);
  }
}

TEST(LaunchStats, JsonAndTablesDescribeEveryGroup) {
  TraceModel m = SmallKernels();
  LaunchStatsResult r = AnalyzeLaunchStats(m, WindowOf(0, us(200)));
  nlohmann::json j = LaunchStatsToJson(r, m);
  EXPECT_EQ(j["analysis"], "launch_stats");
  EXPECT_EQ(j["graph_removable_ns"], us(9));
  EXPECT_EQ(j["by_name"].size(), r.kernels.size());
  bool found = false;
  for (const auto& k : j["by_name"]) {
    if (k["name"] == "small" && !k["from_graph"].get<bool>()) {
      found = true;
      EXPECT_TRUE(k["launch_bound"].get<bool>());
      EXPECT_EQ(k["launch_bound_reasons"].size(), 2u);
      EXPECT_EQ(k["first_op"]["id"], 1);
      EXPECT_EQ(k["api_ns"]["median"], us(5));
    }
  }
  EXPECT_TRUE(found);
  std::vector<ResultTable> tables = LaunchStatsToTables(r, m);
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].name, "analysis_launch_stats");
  EXPECT_EQ(tables[1].name, "analysis_launch_stats_streams");
  EXPECT_EQ(tables[2].name, "analysis_launch_stats_gaps");
  EXPECT_EQ(tables[2].rows.size(), 3u);
  for (const ResultTable& t : tables) {
    for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.columns.size());
  }
  TraceModel empty = ModelBuilder().Build();
  LaunchStatsResult e = AnalyzeLaunchStats(empty, WindowOf(0, 10));
  std::ostringstream text;
  RenderLaunchStatsText(e, empty, text);
  EXPECT_NE(text.str().find("No kernels"), std::string::npos);
}

}  // namespace
}  // namespace streamscope
