// Known-answer tests of the hardware-queue check (hardware_queues.h): a
// planted simpleHyperQ (16 streams of two one-block 1 ms kernels, submitted
// depth-first, run in waves as shared queues let them) and the controls
// that must not be blamed on queues: a queue per stream, a full device, an
// event wait, unknown shapes. The findings and their what-ifs read one
// detection (window_detections.h).
#include "analyzer/analysis/causes/hardware_queues.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/causes/diagnose_ranking.h"
#include "analyzer/analysis/causes/what_if.h"
#include "analyzer/analysis/causes/window_detections.h"
#include "analyzer/render/diagnose_wording.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/diagnose_ranked.h"
#include "tests/analyzer/analysis/causes/diagnose_unranked.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_device.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::Find;
using testing::ModelBuilder;
using testing::Ranking;
using testing::TestDevice;

using testing::kMs;
using testing::kUs;
constexpr int kStreams = 16;
constexpr int64_t kRun = 1 * kMs;  // each kernel

struct Planted {
  int blocks = 1;             // grid blocks of every kernel
  bool record_blocks = true;  // the trace holds the grids
  std::string connections;    // metadata env:CUDA_DEVICE_MAX_CONNECTIONS ("" = not recorded)
  bool event_wait_on_a8 = false;
  int64_t first_start = 200'000;  // A0's start (ns)
};

// Calls: stream s launches A_s at [10 s, 10 s + 5) us and B_s at
// [10 s + 5, 10 s + 10) us (depth-first). Waves, each kernel 2 us after the
// one before it in its wave, each wave 3 us after the last kernel of the
// wave before ended: A0 alone [200, 1200) us; B0 and A1..A7 from 1203 us;
// B1..B7 and A8..A15 from 2220 us; B8..B15 from 3251 us. GPU span 200 us -
// 4265 us. With a queue per stream A1..A15 start when their calls return
// (15-155 us) and each B when its A ends: the span runs from 15 us to B0's
// end at 2203 us, 1877 us shorter.
TraceModel PlantedHyperQ(const Planted& p) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.name = "planted GPU", .sm_count = 132}));
  if (!p.connections.empty()) b.model().metadata["env:CUDA_DEVICE_MAX_CONNECTIONS"] = p.connections;
  for (int s = 0; s < kStreams; ++s) b.Stream(100 + s, StreamKind::kNonBlocking);
  auto call = [](int s, int k) {
    const int64_t t = 10 * kUs * s + 5 * kUs * k;
    return ApiTimes{t, t + 5 * kUs, 1};
  };
  std::vector<std::pair<int, int>> waves[4];  // (stream, 0 = A / 1 = B)
  waves[0] = {{0, 0}};
  waves[1].push_back({0, 1});
  for (int s = 1; s < 8; ++s) waves[1].push_back({s, 0});
  for (int s = 1; s < 8; ++s) waves[2].push_back({s, 1});
  for (int s = 8; s < 16; ++s) waves[2].push_back({s, 0});
  for (int s = 8; s < 16; ++s) waves[3].push_back({s, 1});
  int64_t wave_start = p.first_start;
  for (const auto& wave : waves) {
    int64_t t = wave_start, last_end = 0;
    for (const auto& [s, k] : wave) {
      b.Kernel(k == 0 ? "kernel_A" : "kernel_B", 100 + s, t, t + kRun, call(s, k));
      last_end = t + kRun;
      t += 2 * kUs;
    }
    wave_start = last_end + 3 * kUs;
  }
  if (p.event_wait_on_a8) b.EventWait(108, 1, 10 * kUs * 8 - 1 * kUs);
  TraceModel m = b.Build();
  if (p.record_blocks) m.kernel_blocks.assign(m.ops.size(), KeptKernelBlocks(p.blocks, 1, 1));
  return m;
}

DiagnoseResult Diagnose(const TraceModel& m) { return testing::DiagnoseThroughPipeline(m, WholeTraceWindow(m)); }

TEST(HardwareQueues, PlantedHyperQIsHeldInSharedQueues) {
  const TraceModel m = PlantedHyperQ(Planted{});
  const HardwareQueueResult held = FindQueueHeldKernels(m, WholeTraceWindow(m));
  EXPECT_TRUE(held.load_stalls.empty());  // B0's call returned before A0 started
  EXPECT_EQ(held.connections, 8);
  EXPECT_FALSE(held.connections_recorded);
  // A1..A15: each ready when launched, started when a kernel of another
  // stream ended. No B waited: each started when its own A ended.
  ASSERT_EQ(held.held.size(), 15u);
  for (const QueueHeldKernel& h : held.held) {
    EXPECT_EQ(m.strings.Get(m.ops.name[h.op]), "kernel_A");
    EXPECT_NE(m.ops.stream[h.op], m.ops.stream[h.waited_op]);
    EXPECT_GE(h.delay_ns, 900 * kUs);
  }

  const DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kHardwareQueue);
  const auto& facts = std::get<HardwareQueueFacts>(r.primary()->facts);
  EXPECT_EQ(facts.held_kernels, 15);
  EXPECT_EQ(facts.streams, kStreams);
  EXPECT_EQ(facts.sm_count, 132);
  EXPECT_EQ(facts.max_concurrent_kernels, 15);  // wave 2: B1..B7 and A8..A15
  // Held from their calls' ends (15-155 us) until 1203-1217 or 2234-2248
  // us: the union runs from A1's ready time to A15's start.
  EXPECT_EQ(r.primary()->impact_ns, 2248 * kUs - 15 * kUs);
  // Replayed with a queue per stream: 1877 us saved.
  ASSERT_TRUE(r.primary()->saving_estimated);
  EXPECT_EQ(r.primary()->estimated_saving_ns, 1877 * kUs);
  const std::string summary = DiagnoseSummary(*r.primary(), m);
  EXPECT_NE(summary.find("15 kernels of independent streams"), std::string::npos) << summary;
  EXPECT_NE(summary.find("16 streams shared 8 hardware queues (the driver's default"), std::string::npos) << summary;
  EXPECT_NE(DiagnoseRemedy(*r.primary()).find("CUDA_DEVICE_MAX_CONNECTIONS=32"), std::string::npos);
}

TEST(HardwareQueues, AQueuePerStreamIsNotBlamed) {
  // The same timeline with 32 queues recorded: something else held them.
  const TraceModel m = PlantedHyperQ(Planted{1, true, "32", false});
  const HardwareQueueResult held = FindQueueHeldKernels(m, WholeTraceWindow(m));
  EXPECT_EQ(held.connections, 32);
  EXPECT_TRUE(held.connections_recorded);
  EXPECT_TRUE(held.held.empty());
  EXPECT_EQ(Find(Diagnose(m), DiagnoseCause::kHardwareQueue), nullptr);
}

TEST(HardwareQueues, OneQueueRecordedIsNamedInTheRemedy) {
  const TraceModel m = PlantedHyperQ(Planted{1, true, "1", false});
  const DiagnoseResult r = Diagnose(m);
  const DiagnoseFinding* f = Find(r, DiagnoseCause::kHardwareQueue);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(DiagnoseSummary(*f, m).find("CUDA_DEVICE_MAX_CONNECTIONS=1 in the environment"), std::string::npos);
  EXPECT_NE(DiagnoseRemedy(*f).find("CUDA_DEVICE_MAX_CONNECTIONS=1 is set"), std::string::npos);
}

TEST(HardwareQueues, AFullDeviceIsNotBlamed) {
  // Kernels of 200 blocks on 132 SMs: each waited for SMs, not for a queue.
  const TraceModel m = PlantedHyperQ(Planted{200, true, "", false});
  EXPECT_TRUE(FindQueueHeldKernels(m, WholeTraceWindow(m)).held.empty());
  EXPECT_EQ(Find(Diagnose(m), DiagnoseCause::kHardwareQueue), nullptr);
}

TEST(HardwareQueues, UnknownShapesAreNotChecked) {
  const TraceModel m = PlantedHyperQ(Planted{1, false, "", false});
  EXPECT_TRUE(FindQueueHeldKernels(m, WholeTraceWindow(m)).held.empty());
}

TEST(HardwareQueues, AnEventWaitOwnsItsKernel) {
  // A8 follows a cudaStreamWaitEvent made just before its launch: the
  // event-wait step owns its delay.
  const TraceModel m = PlantedHyperQ(Planted{1, true, "", true});
  const HardwareQueueResult held = FindQueueHeldKernels(m, WholeTraceWindow(m));
  EXPECT_EQ(held.held.size(), 14u);
  for (const QueueHeldKernel& h : held.held) EXPECT_NE(m.streams[m.ops.stream[h.op]].id, 108);
}

TEST(HardwareQueues, ALazyLoadingStallIsNotAQueue) {
  // A0 starts at 6 us, before B0's call returns (10 us): the first launch of
  // kernel_B waits for A0 to end (1006 us), and nothing else starts on the
  // device meanwhile: lazy module loading. A1..A7, ready inside that stall,
  // were ready at its end and started 3-17 us later: not held. A8..A15
  // waited 1 ms more, behind wave 1: held, from 1006 us.
  Planted p;
  p.first_start = 6 * kUs;
  const TraceModel m = PlantedHyperQ(p);
  const HardwareQueueResult held = FindQueueHeldKernels(m, WholeTraceWindow(m));
  ASSERT_EQ(held.load_stalls.size(), 1u);
  EXPECT_EQ(held.load_stalls[0].start_ns, 10 * kUs);
  EXPECT_EQ(held.load_stalls[0].end_ns, 1006 * kUs);
  EXPECT_EQ(m.strings.Get(m.ops.name[held.load_stalls[0].first_launch]), "kernel_B");
  ASSERT_EQ(held.held.size(), 8u);
  for (const QueueHeldKernel& h : held.held) {
    EXPECT_GE(m.streams[m.ops.stream[h.op]].id, 108);
    EXPECT_EQ(h.ready_ns, 1006 * kUs);
  }
  const DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kHardwareQueue);
  const auto& facts = std::get<HardwareQueueFacts>(r.primary()->facts);
  EXPECT_EQ(facts.load_stall_ns, 996 * kUs);
  // The held wait: 1006 us to A15's start (2054 us).
  EXPECT_EQ(r.primary()->impact_ns, 1048 * kUs);
  // Replayed, A8..A15 start at 1006 us and their Bs follow: the span ends
  // about 1 ms sooner (wave 3 moves into wave 2), the stall stays.
  EXPECT_GT(r.primary()->estimated_saving_ns, 900 * kUs) << Ranking(r);
  EXPECT_LT(r.primary()->estimated_saving_ns, 1100 * kUs) << Ranking(r);
  const std::string summary = DiagnoseSummary(*r.primary(), m);
  EXPECT_NE(summary.find("lazy module loading stalled the device 996 us"), std::string::npos) << summary;
  EXPECT_NE(DiagnoseRemedy(*r.primary()).find("CUDA_MODULE_LOADING=EAGER"), std::string::npos);
  // The stall is its own finding: the 15 A kernels ready in it (A1..A15:
  // their calls returned at 15-155 us) waited until 1006 us.
  const LoadStallResult stalls = FindLoadStalls(m, WholeTraceWindow(m));
  ASSERT_EQ(stalls.stalls.size(), 1u);
  EXPECT_EQ(stalls.waiting.size(), 15u);
  const DiagnoseFinding* lazy = Find(r, DiagnoseCause::kLazyLoading);
  ASSERT_NE(lazy, nullptr) << Ranking(r);
  EXPECT_EQ(lazy->impact_ns, 1006 * kUs - 15 * kUs);
  EXPECT_TRUE(lazy->saving_estimated);
  EXPECT_NE(DiagnoseRemedy(*lazy).find("CUDA_MODULE_LOADING=EAGER"), std::string::npos);
}

TEST(HardwareQueues, ALazyLoadingStallOnAQueuePerStreamIsTheOnlyCause) {
  // The same with 32 queues recorded: nothing held in a queue, the stall
  // held A1..A15 (ready at 15-155 us) until 1006 us. Replayed without it,
  // each starts earlier by its wait in the stall; what follows moves with it.
  Planted p;
  p.first_start = 6 * kUs;
  p.connections = "32";
  const TraceModel m = PlantedHyperQ(p);
  const DiagnoseResult r = Diagnose(m);
  EXPECT_EQ(Find(r, DiagnoseCause::kHardwareQueue), nullptr) << Ranking(r);
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kLazyLoading) << Ranking(r);
  const auto& facts = std::get<LazyLoadingFacts>(r.primary()->facts);
  EXPECT_EQ(facts.waiting_kernels, 15);
  EXPECT_EQ(facts.stalled_ns, 996 * kUs);
  EXPECT_EQ(m.strings.Get(m.ops.name[facts.first_launch]), "kernel_B");
  // The span ends with B15, after A15, whose wait after the stall (here
  // unexplained: 32 queues) stays: it moves by its wait in the stall, from
  // its call's return at 155 us to 1006 us.
  EXPECT_EQ(r.primary()->estimated_saving_ns, 851 * kUs) << Ranking(r);
  const std::string summary = DiagnoseSummary(*r.primary(), m);
  EXPECT_NE(summary.find("lazy module loading held 15 kernels"), std::string::npos) << summary;
}

TEST(HardwareQueues, NoStallWhenTheLaunchesKeptStarting) {
  // The planted default: B0's call returns before A0 starts, nothing waits
  // for a load.
  const TraceModel m = PlantedHyperQ(Planted{});
  EXPECT_TRUE(FindLoadStalls(m, WholeTraceWindow(m)).waiting.empty());
}

// The kernels of a detection, by op index.
std::vector<int32_t> Ops(const std::vector<QueueHeldKernel>& kernels) {
  std::vector<int32_t> ops;
  for (const QueueHeldKernel& k : kernels) ops.push_back(k.op);
  return ops;
}

// The what-if of `kind` over the whole trace, with `detections` (nullptr:
// found by the session), every op listed, sorted.
WhatIfEstimate WhatIfOf(const TraceModel& m, WhatIfKind kind, const WindowDetections* detections) {
  const DependencyGraph g = BuildDependencyGraph(m, WholeTraceWindow(m));
  WhatIfOptions o;
  o.max_listed = 32;
  for (WhatIfEstimate& e : WhatIfSession(m, g, o, detections).EstimateSavings().estimates) {
    if (e.cause.kind != kind) continue;
    std::sort(e.ops.begin(), e.ops.end());
    return e;
  }
  ADD_FAILURE() << "no " << WhatIfKindName(kind) << " what-if";
  return {};
}

TEST(HardwareQueues, TheFindingAndItsWhatIfReadOneDetection) {
  // The diagnosis and the what-ifs are handed the same WindowDetections:
  // with A1..A7 dropped from its held kernels, the finding counts the 8
  // left (A8..A15) and the hardware_queue what-if replays exactly those,
  // over the same delays. A consumer that found them again would see 15.
  const TraceModel m = PlantedHyperQ(Planted{});
  WindowDetections d = FindWindowDetections(m, WholeTraceWindow(m));
  ASSERT_EQ(d.queue_held.held.size(), 15u);
  d.queue_held.held.erase(d.queue_held.held.begin(), d.queue_held.held.begin() + 7);
  const DiagnoseResult r = testing::DiagnoseUnranked(m, WholeTraceWindow(m), DiagnoseOptions{}, &d);
  const DiagnoseFinding* f = Find(r, DiagnoseCause::kHardwareQueue);
  ASSERT_NE(f, nullptr) << Ranking(r);
  EXPECT_EQ(std::get<HardwareQueueFacts>(f->facts).held_kernels, 8);
  const WhatIfEstimate e = WhatIfOf(m, WhatIfKind::kHardwareQueue, &d);
  EXPECT_EQ(e.ops, Ops(d.queue_held.held));
  EXPECT_EQ(e.measured_cost_ns, f->impact_ns);
  // Given none, the session finds all 15 itself.
  EXPECT_EQ(WhatIfOf(m, WhatIfKind::kHardwareQueue, nullptr).op_count, 15);
}

TEST(HardwareQueues, TheLoadStallFindingAndItsWhatIfReadOneDetection) {
  // The same for lazy loading: of the 15 kernels that waited in the stall,
  // the 5 kept are the finding's and the lazy_loading what-if's.
  Planted p;
  p.first_start = 6 * kUs;
  p.connections = "32";
  const TraceModel m = PlantedHyperQ(p);
  WindowDetections d = FindWindowDetections(m, WholeTraceWindow(m));
  ASSERT_EQ(d.load_stalls.waiting.size(), 15u);
  d.load_stalls.waiting.resize(5);
  const DiagnoseResult r = testing::DiagnoseUnranked(m, WholeTraceWindow(m), DiagnoseOptions{}, &d);
  const DiagnoseFinding* f = Find(r, DiagnoseCause::kLazyLoading);
  ASSERT_NE(f, nullptr) << Ranking(r);
  EXPECT_EQ(std::get<LazyLoadingFacts>(f->facts).waiting_kernels, 5);
  EXPECT_EQ(WhatIfOf(m, WhatIfKind::kLazyLoading, &d).ops, Ops(d.load_stalls.waiting));
}

TEST(HardwareQueues, KeptBlocksSaturate) {
  EXPECT_EQ(KeptKernelBlocks(0, 1, 1), 0);  // not recorded
  EXPECT_EQ(KeptKernelBlocks(1, 0, 0), 1);  // y, z unset count as 1
  EXPECT_EQ(KeptKernelBlocks(4, 4, 4), 64);
  EXPECT_EQ(KeptKernelBlocks(254, 1, 1), 254);
  EXPECT_EQ(KeptKernelBlocks(16, 16, 1), 255);
  EXPECT_EQ(KeptKernelBlocks(int64_t{1} << 31, int64_t{1} << 31, 65535), 255);  // no overflow
  // Dimensions a damaged trace claims: capped, never an overflow.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(KeptKernelBlocks(1056, kMax - 1, 1), 255);
  EXPECT_EQ(KeptKernelBlocks(kMax, kMax, kMax), 255);
  EXPECT_EQ(KeptKernelBlocks(3, -5, 2), 6);  // a negative y or z counts as 1
}

}  // namespace
}  // namespace streamscope
