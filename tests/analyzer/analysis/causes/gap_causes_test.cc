#include "analyzer/analysis/causes/gap_causes.h"

#include <algorithm>
#include <map>
#include <random>
#include <sstream>

#include "analyzer/intervals/interval_set.h"
#include "analyzer/render/gap_causes_render.h"
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

int64_t CauseNs(const GapCausesResult& r, GapCause c) { return r.cause_ns[static_cast<int>(c)]; }

// ns of one (cause, detail name) over all devices and threads.
int64_t DetailNs(const GapCausesResult& r, const TraceModel& m, GapCause c, std::string_view d) {
  int64_t ns = 0;
  for (const GapCauseTotal& t : r.totals) {
    if (t.cause == c && m.strings.Get(t.detail) == d) ns += t.ns;
  }
  return ns;
}

// Two kernels on one stream of device 0, launched from thread 7; the second
// launch comes 85 us after the first kernel ended.
ModelBuilder StarvedPipeline() {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(5), us(15), ApiTimes{us(0), us(2), 7});
  b.Kernel("k2", 13, us(105), us(115), ApiTimes{us(100), us(102), 7});
  return b;
}

TEST(GapCauses, HostWorkBeforeLaunchIsCpuStarvation) {
  TraceModel m = StarvedPipeline().Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(115)));
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].idle_ns, us(95));
  EXPECT_EQ(r.devices[0].busy_ns, us(20));
  EXPECT_EQ(r.devices[0].gaps, 2);
  EXPECT_EQ(CauseNs(r, GapCause::kWindowStart), us(5));
  EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), us(85));   // [15, 100)
  EXPECT_EQ(CauseNs(r, GapCause::kSubmissionLatency), us(5));  // [100, 105)
  ASSERT_FALSE(r.worst_gaps.empty());
  const GapFinding& g = r.worst_gaps[0];
  EXPECT_EQ(g.start_ns, us(15));
  EXPECT_EQ(g.end_ns, us(105));
  EXPECT_EQ(g.primary, GapCause::kHostUnannotated);
  EXPECT_EQ(m.ops.source_id[g.prev_op], 1);
  EXPECT_EQ(m.ops.source_id[g.next_op], 2);
  EXPECT_EQ(g.tid, 7);
  ASSERT_EQ(r.threads.size(), 1u);
  EXPECT_EQ(r.threads[0].tid, 7);
  EXPECT_EQ(r.threads[0].starved_ns, us(85));
}

// A kernel, its result read back (8 bytes) and a stream sync; the host
// tests the result for 31 us after the sync returns, then launches again.
TEST(GapCauses, AResultReadBackThenTestedBeforeTheNextLaunchIsOneRoundTrip) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(5), us(15), ApiTimes{us(0), us(2), 7});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 13, us(15), us(17), ApiTimes{us(2), us(3), 7},
         "cudaMemcpyAsync", true, 8);
  b.Sync(SyncKind::kStreamSynchronize, 13, us(3), us(19), "cudaStreamSynchronize", 7);
  b.Kernel("k2", 13, us(55), us(65), ApiTimes{us(50), us(52), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(5), us(65)));
  // [17, 55): the sync's return, the host test and the next launch's path.
  EXPECT_EQ(CauseNs(r, GapCause::kRoundTrip), us(38));
  EXPECT_EQ(CauseNs(r, GapCause::kSubmissionLatency), 0);
  EXPECT_EQ(DetailNs(r, m, GapCause::kRoundTrip, "cudaStreamSynchronize"), us(38));
  EXPECT_EQ(CauseNs(r, GapCause::kHostBlockedInCall) + CauseNs(r, GapCause::kHostUnannotated), 0);
  ASSERT_FALSE(r.worst_gaps.empty());
  EXPECT_EQ(r.worst_gaps[0].primary, GapCause::kRoundTrip);
}

// jacobiCudaGraphs: the graph's last node reads the result back (8 bytes)
// and finishes at 12 us, before its cudaGraphLaunch returns at 20 us; the
// stream sync at 22 us finds the GPU drained, the host tests the result and
// launches again at 50 us. The whole gap is the round trip's, named after
// the sync; without the sync it is the launch call and host work.
TEST(GapCauses, AGraphThatReadsBackBeforeItsLaunchReturnsIsStillARoundTrip) {
  for (bool sync : {true, false}) {
    ModelBuilder b;
    b.Stream(13, StreamKind::kNonBlocking);
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 13, us(10), us(12), ApiTimes{us(0), us(20), 7},
           "cudaGraphLaunch", true, 8);
    if (sync) b.Sync(SyncKind::kStreamSynchronize, 13, us(22), us(23), "cudaStreamSynchronize", 7);
    b.Kernel("k2", 13, us(55), us(65), ApiTimes{us(50), us(52), 7});
    TraceModel m = b.Build();
    GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(10), us(65)));
    if (sync) {
      EXPECT_EQ(CauseNs(r, GapCause::kRoundTrip), us(43));  // [12, 55)
      EXPECT_EQ(DetailNs(r, m, GapCause::kRoundTrip, "cudaStreamSynchronize"), us(43));
      EXPECT_EQ(CauseNs(r, GapCause::kHostBlockedInCall), 0);
    } else {
      EXPECT_EQ(CauseNs(r, GapCause::kRoundTrip), 0);
      EXPECT_EQ(DetailNs(r, m, GapCause::kHostBlockedInCall, "cudaGraphLaunch"), us(8));  // [12, 20)
      EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), us(30));                          // [20, 50)
      EXPECT_EQ(CauseNs(r, GapCause::kSubmissionLatency), us(5));                         // [50, 55)
    }
  }
}

// The same without a read-back: the sync drained the GPU, then host work.
TEST(GapCauses, HostWorkAfterASyncThatDrainedTheGpuIsSyncWait) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(5), us(15), ApiTimes{us(0), us(2), 7});
  b.Sync(SyncKind::kStreamSynchronize, 13, us(3), us(17), "cudaStreamSynchronize", 7);
  b.Kernel("k2", 13, us(55), us(65), ApiTimes{us(50), us(52), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(5), us(65)));
  EXPECT_EQ(CauseNs(r, GapCause::kSyncWait), us(40));  // [15, 55)
  EXPECT_EQ(CauseNs(r, GapCause::kRoundTrip), 0);
  EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), 0);
}

// The shape of persistent_kernel.sqlite: a kernel's first launch call runs
// on for 185 us after its kernel ended (loading the module); later launches
// take 10 us. That tail is a first launch, reported apart: not starvation.
ModelBuilder SlowFirstLaunch() {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("w", 13, us(5), us(15), ApiTimes{us(0), us(200), 7});
  b.Kernel("w", 13, us(312), us(400), ApiTimes{us(300), us(310), 7});
  b.Kernel("w", 13, us(512), us(600), ApiTimes{us(500), us(510), 7});
  return b;
}

TEST(GapCauses, HostBlockedInAFirstLaunchIsFirstLaunchNotStarvation) {
  TraceModel m = SlowFirstLaunch().Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(5), us(600)));
  EXPECT_EQ(CauseNs(r, GapCause::kFirstLaunch), us(185));  // [15, 200)
  EXPECT_EQ(DetailNs(r, m, GapCause::kFirstLaunch, "cudaLaunchKernel"), us(185));
  EXPECT_EQ(CauseNs(r, GapCause::kHostBlockedInCall), 0);
  EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), us(200));  // [200, 300) + [400, 500)
  ASSERT_EQ(r.threads.size(), 1u);
  EXPECT_EQ(r.threads[0].starved_ns, us(200));
  EXPECT_FALSE(IsCpuStarvation(GapCause::kFirstLaunch));
  EXPECT_EQ(GapCauseName(GapCause::kFirstLaunch), "first_launch");
  std::ostringstream text;
  RenderGapCausesText(r, m, text);
  EXPECT_NE(text.str().find("blocked in cudaLaunchKernel, a first launch (module loading) 185 us"), std::string::npos)
      << text.str();
}

TEST(GapCauses, GapInsideNvtxRangeIsAttributedToIt) {
  ModelBuilder b = StarvedPipeline();
  b.Nvtx("iteration", 7, us(10), us(200), 0);
  b.Nvtx("host_prepare", 7, us(20), us(90), 1);
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(115)));
  EXPECT_EQ(DetailNs(r, m, GapCause::kHostNvtxRange, "host_prepare"), us(70));
  // [15, 20) and [90, 100) are inside the outer range only.
  EXPECT_EQ(DetailNs(r, m, GapCause::kHostNvtxRange, "iteration"), us(15));
  EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), 0);
  const GapFinding& g = r.worst_gaps[0];
  ASSERT_EQ(g.parts.size(), 4u);
  EXPECT_EQ(m.strings.Get(g.parts[1].detail), "host_prepare");
  EXPECT_EQ(g.parts[1].start_ns, us(20));
  EXPECT_EQ(g.parts[1].end_ns, us(90));
  EXPECT_EQ(g.primary, GapCause::kHostNvtxRange);

  std::ostringstream text;
  RenderGapCausesText(r, m, text);
  EXPECT_NE(text.str().find("waiting for host thread 7, which was inside NVTX range "
                            "'host_prepare' for 70.0 us"),
            std::string::npos)
      << text.str();
  // The gap's listing sums the two pieces of 'iteration' (5 us + 10 us).
  EXPECT_NE(text.str().find(": inside NVTX range 'iteration' 15.0 us, inside NVTX range "
                            "'host_prepare' 70.0 us, submission latency 5.00 us."),
            std::string::npos)
      << text.str();
}

TEST(GapCauses, BlockedInSyncCallIsNamed) {
  ModelBuilder b = StarvedPipeline();
  b.Api("cudaStreamSynchronize", 7, us(20), us(95));
  // The driver call beneath it is nested and must not be counted again.
  b.Api("cuStreamSynchronize", 7, us(21), us(94), -1, ApiDomain::kDriver);
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(115)));
  EXPECT_EQ(DetailNs(r, m, GapCause::kHostBlockedInCall, "cudaStreamSynchronize"), us(75));
  EXPECT_EQ(DetailNs(r, m, GapCause::kHostBlockedInCall, "cuStreamSynchronize"), 0);
  EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), us(10));  // [15,20) + [95,100)
  const GapFinding& g = r.worst_gaps[0];
  EXPECT_EQ(g.primary, GapCause::kHostBlockedInCall);
  ASSERT_EQ(g.parts.size(), 4u);
  EXPECT_EQ(m.api.source_id[g.parts[1].api], 3);  // the third call the builder added
}

TEST(GapCauses, LaunchBeforeGapIsSubmissionLatency) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(0), us(10), ApiTimes{us(0), us(1), 7});
  b.Kernel("k2", 13, us(18), us(28), ApiTimes{us(2), us(3), 7});  // 8 us gap: latency
  b.Kernel("k3", 13, us(60), us(70), ApiTimes{us(4), us(5), 7});  // 32 us: nothing explains it
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(70)));
  EXPECT_EQ(CauseNs(r, GapCause::kSubmissionLatency), us(8));
  EXPECT_EQ(CauseNs(r, GapCause::kQueuedUnexplained), us(32));
  EXPECT_EQ(r.idle_ns, us(40));
  EXPECT_TRUE(r.threads.empty());  // no CPU starvation
}

TEST(GapCauses, EventWaitIsDependency) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Stream(14, StreamKind::kNonBlocking);
  b.Kernel("producer", 13, us(0), us(10), ApiTimes{us(0), us(1), 7});
  b.Sync(SyncKind::kStreamWaitEvent, 14, us(3), us(4), "cudaStreamWaitEvent", 7);
  b.Kernel("consumer", 14, us(100), us(110), ApiTimes{us(5), us(6), 7});
  // The callback-API form of the wait works the same way on another stream.
  b.Stream(15, StreamKind::kNonBlocking);
  b.EventWait(15, 7, us(104));
  b.Kernel("consumer2", 15, us(200), us(210), ApiTimes{us(105), us(106), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(210)));
  EXPECT_EQ(CauseNs(r, GapCause::kDependencyEventWait), us(90) + us(90));
}

TEST(GapCauses, HostCallbackIsDependency) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(0), us(10), ApiTimes{us(0), us(1), 7});
  b.Api("cudaLaunchHostFunc", 7, us(2), us(3));
  b.Kernel("k2", 13, us(50), us(60), ApiTimes{us(4), us(5), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(60)));
  EXPECT_EQ(CauseNs(r, GapCause::kDependencyHostCallback), us(40));
}

TEST(GapCauses, OpOnAnotherDeviceEndingJustBeforeIsDependency) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking, 0);
  b.Stream(23, StreamKind::kNonBlocking, 1);
  b.Kernel("k0", 13, us(0), us(10), ApiTimes{us(0), us(1), 7});
  b.Kernel("peer_work", 23, us(0), us(98), ApiTimes{us(1), us(2), 8});
  b.Kernel("k1", 13, us(100), us(110), ApiTimes{us(3), us(4), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(110)));
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].device_id, 0);
  EXPECT_EQ(r.devices[0].cause_ns[static_cast<int>(GapCause::kDependencyOtherStream)], us(90));
  EXPECT_EQ(r.devices[1].device_id, 1);
  EXPECT_EQ(r.devices[1].idle_ns, us(12));  // trailing [98, 110)
  EXPECT_EQ(r.devices[1].cause_ns[static_cast<int>(GapCause::kWindowEnd)], us(12));
}

TEST(GapCauses, OpsCrossingTheWindowAreClipped) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(0), us(60), ApiTimes{us(0), us(1), 7});
  b.Kernel("k2", 13, us(100), us(200), ApiTimes{us(90), us(92), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(50), us(150)));
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].window_ns, us(100));
  EXPECT_EQ(r.devices[0].busy_ns, us(60));
  EXPECT_EQ(CauseNs(r, GapCause::kHostUnannotated), us(30));
  EXPECT_EQ(CauseNs(r, GapCause::kSubmissionLatency), us(10));
  // A window that starts inside a gap: the part before it is not counted.
  GapCausesResult r2 = AnalyzeGapCauses(m, WindowOf(us(80), us(100)));
  EXPECT_EQ(CauseNs(r2, GapCause::kHostUnannotated), us(10));
  EXPECT_EQ(CauseNs(r2, GapCause::kSubmissionLatency), us(10));
}

TEST(GapCauses, ZeroLengthOpsDoNotSplitGaps) {
  ModelBuilder b = StarvedPipeline();
  b.Kernel("empty", 13, us(50), us(50), ApiTimes{us(40), us(41), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(115)));
  EXPECT_EQ(r.devices[0].gaps, 2);
  EXPECT_EQ(r.worst_gaps[0].length(), us(90));
  // Thread 7 was in the launch call of the empty kernel for 1 us.
  EXPECT_EQ(DetailNs(r, m, GapCause::kHostBlockedInCall, "cudaLaunchKernel"), us(1));
}

TEST(GapCauses, DeviceWithOnlyZeroLengthOpsIsIdleAllWindow) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking, 0);
  b.Stream(23, StreamKind::kNonBlocking, 1);
  b.Kernel("k", 13, us(0), us(100), ApiTimes{us(0), us(1), 7});
  b.Kernel("empty", 23, us(50), us(50), ApiTimes{us(40), us(41), 7});
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(100)));
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[1].idle_ns, us(100));
  EXPECT_EQ(r.devices[1].busy_ns, 0);
  EXPECT_EQ(r.devices[1].cause_ns[static_cast<int>(GapCause::kWindowStart)], us(100));
}

TEST(GapCauses, MissingApiCallIsUnknownSubmitterNotACrash) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(0), us(10));
  b.Kernel("k2", 13, us(30), us(40));
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(40)));
  EXPECT_EQ(CauseNs(r, GapCause::kUnknownSubmitter), us(20));
  ASSERT_EQ(r.worst_gaps.size(), 1u);
  EXPECT_EQ(r.worst_gaps[0].api, -1);
  nlohmann::json j = GapCausesToJson(r, m);
  EXPECT_TRUE(j["worst_gaps"][0]["api"].is_null());
  EXPECT_EQ(j["worst_gaps"][0]["next_op"]["id"], 2);
}

TEST(GapCauses, EmptyTraceAndEmptyWindowGiveNoGaps) {
  TraceModel empty = ModelBuilder().Build();
  EXPECT_TRUE(AnalyzeGapCauses(empty, WindowOf(0, 100)).devices.empty());
  TraceModel m = StarvedPipeline().Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(50), us(50)));
  EXPECT_EQ(r.idle_ns, 0);
  std::ostringstream text;
  RenderGapCausesText(r, m, text);  // must not crash
  EXPECT_EQ(GapCausesToTables(r, m).size(), 3u);
}

// Whatever the causes, they partition the idle time, and the idle time is
// the window minus the union of the device's ops.
TEST(GapCauses, CausesPartitionIdleTimeOnManyStreams) {
  std::mt19937_64 rng(42);
  ModelBuilder b;
  for (int s = 0; s < 64; ++s) b.Stream(100 + s, StreamKind::kNonBlocking, s % 2);
  IntervalList busy[2];
  for (int i = 0; i < 2000; ++i) {
    int s = static_cast<int>(rng() % 64);
    int64_t start = static_cast<int64_t>(rng() % us(10000));
    int64_t len = static_cast<int64_t>(rng() % us(5));
    int64_t api_start = start - static_cast<int64_t>(rng() % us(30));
    if (rng() % 5 == 0) {
      b.Kernel("k", 100 + s, start, start + len);
    } else {
      b.Kernel("k", 100 + s, start, start + len,
               ApiTimes{api_start, api_start + us(1), static_cast<int64_t>(rng() % 3)});
    }
    busy[s % 2].push_back({start, start + len});
    if (rng() % 7 == 0) b.Nvtx("r", static_cast<int64_t>(rng() % 3), api_start - us(3), api_start);
  }
  TraceModel m = b.Build();
  Window w = WindowOf(us(1000), us(9000));
  GapCausesResult r = AnalyzeGapCauses(m, w);
  ASSERT_EQ(r.devices.size(), 2u);
  for (int d = 0; d < 2; ++d) {
    int64_t idle = TotalLength(Complement(Normalize(busy[d]), w.interval()));
    EXPECT_EQ(r.devices[d].idle_ns, idle);
    int64_t sum = 0;
    for (int64_t ns : r.devices[d].cause_ns) sum += ns;
    EXPECT_EQ(sum, idle);
  }
  int64_t totals = 0;
  for (const GapCauseTotal& t : r.totals) totals += t.ns;
  EXPECT_EQ(totals, r.idle_ns);
  EXPECT_LE(r.worst_gaps.size(), 20u);
  for (size_t i = 1; i < r.worst_gaps.size(); ++i) {
    EXPECT_GE(r.worst_gaps[i - 1].length(), r.worst_gaps[i].length());
  }
}

TEST(GapCauses, RandomInconsistentTracesDoNotCrash) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    GapCausesResult r = AnalyzeGapCauses(m, WindowOf(us(100), us(6000)));
    for (const DeviceGapSummary& d : r.devices) {
      int64_t sum = 0;
      for (int64_t ns : d.cause_ns) sum += ns;
      EXPECT_EQ(sum, d.idle_ns) << "seed " << seed;
      EXPECT_GE(d.busy_ns, 0);
    }
    std::ostringstream text;
    RenderGapCausesText(r, m, text);
    EXPECT_FALSE(GapCausesToJson(r, m).dump().empty());
    GapCausesToTables(r, m);
  }
}

TEST(GapCauses, JsonAndTablesNameOpsThreadsAndCauses) {
  ModelBuilder b = StarvedPipeline();
  b.Nvtx("host_prepare", 7, us(20), us(90), 0);
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(115)));
  nlohmann::json j = GapCausesToJson(r, m);
  EXPECT_EQ(j["analysis"], "gap_causes");
  EXPECT_EQ(j["idle_ns"], us(95));
  const nlohmann::json& g = j["worst_gaps"][0];
  EXPECT_EQ(g["prev_op"]["table"], "kernel");
  EXPECT_EQ(g["prev_op"]["id"], 1);
  EXPECT_EQ(g["next_op"]["name"], "k2");
  EXPECT_EQ(g["api"]["tid"], 7);
  EXPECT_EQ(g["parts"][1]["nvtx_name"], "host_prepare");
  EXPECT_EQ(g["parts"][1]["nvtx_range_id"], 1);
  EXPECT_TRUE(g["parts"][1]["api_name"].is_null());
  EXPECT_FALSE(g["parts"][0].contains("detail"));
  std::vector<ResultTable> tables = GapCausesToTables(r, m);
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].name, "analysis_gap_causes");
  EXPECT_EQ(tables[1].name, "analysis_gap_worst");
  EXPECT_EQ(tables[2].name, "analysis_gap_worst_part");
  for (const ResultTable& t : tables) {
    for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.columns.size());
  }
  EXPECT_EQ(std::find(tables[1].columns.begin(), tables[1].columns.end(), "parts"), tables[1].columns.end());
}

TEST(GapCauses, EachPartOfAWorstGapIsARowOfItsOwn) {
  ModelBuilder b = StarvedPipeline();
  b.Nvtx("host_prepare", 7, us(20), us(90), 0);
  TraceModel m = b.Build();
  std::vector<ResultTable> tables = GapCausesToTables(AnalyzeGapCauses(m, WindowOf(0, us(115))), m);
  const ResultTable& parts = tables[2];
  ASSERT_EQ(parts.columns, (std::vector<std::string>{"window", "rank", "part_index", "cause", "start_ns", "end_ns",
                                                     "length_ns", "api_id", "api_name", "nvtx_range_id", "nvtx_name"}));
  // The first worst gap: unannotated 5 us, range 'host_prepare' 70 us,
  // unannotated 10 us, submission latency 5 us.
  std::vector<std::string> causes;
  std::vector<int64_t> lengths;
  for (const auto& row : parts.rows) {
    if (std::get<int64_t>(row[1]) != 1) continue;
    causes.push_back(std::get<std::string>(row[3]));
    lengths.push_back(std::get<int64_t>(row[6]));
  }
  EXPECT_EQ(causes, (std::vector<std::string>{"host_unannotated", "host_nvtx_range", "host_unannotated",
                                              "submission_latency"}));
  EXPECT_EQ(lengths, (std::vector<int64_t>{us(5), us(70), us(10), us(5)}));
  EXPECT_EQ(std::get<std::string>(parts.rows[1][10]), "host_prepare");     // nvtx_name
  EXPECT_EQ(std::get<int64_t>(parts.rows[1][9]), 1);                       // the NVTX range's row id
  EXPECT_TRUE(std::holds_alternative<std::monostate>(parts.rows[1][8]));   // no call: api_name NULL
  EXPECT_TRUE(std::holds_alternative<std::monostate>(parts.rows[0][10]));  // unannotated: no name, NULL
}

TEST(GapCauses, ABlockingCallIsNamedAsApiNameAndAnNvtxRangeAsNvtxName) {
  ModelBuilder b = StarvedPipeline();
  b.Api("cudaStreamSynchronize", 7, us(20), us(50));
  b.Nvtx("host_prepare", 7, us(60), us(90), 0);
  TraceModel m = b.Build();
  GapCausesResult r = AnalyzeGapCauses(m, WindowOf(0, us(115)));
  nlohmann::json j = GapCausesToJson(r, m);
  std::map<std::string, std::pair<nlohmann::json, nlohmann::json>> names;  // cause -> (api_name, nvtx_name)
  for (const nlohmann::json& t : j["totals"]) {
    EXPECT_FALSE(t.contains("detail"));
    names[t["cause"]] = {t["api_name"], t["nvtx_name"]};
  }
  EXPECT_EQ(names["host_blocked_in_call"].first, "cudaStreamSynchronize");
  EXPECT_TRUE(names["host_blocked_in_call"].second.is_null());
  EXPECT_TRUE(names["host_nvtx_range"].first.is_null());
  EXPECT_EQ(names["host_nvtx_range"].second, "host_prepare");
  EXPECT_TRUE(names["host_unannotated"].first.is_null());
  EXPECT_TRUE(names["host_unannotated"].second.is_null());
  const ResultTable causes = GapCausesToTables(r, m)[0];
  ASSERT_EQ(causes.columns, (std::vector<std::string>{"window", "device_id", "cause", "cpu_starvation", "api_name",
                                                      "nvtx_name", "tid", "ns", "share_of_idle", "gaps"}));
  int blocked_rows = 0;
  for (const auto& row : causes.rows) {
    if (std::get<std::string>(row[2]) != "host_blocked_in_call") continue;
    ++blocked_rows;
    EXPECT_EQ(std::get<std::string>(row[4]), "cudaStreamSynchronize");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row[5]));
  }
  EXPECT_EQ(blocked_rows, 1);
}

}  // namespace
}  // namespace streamscope
