// Known-answer tests for the small_grid finding (small_grid.h): kernels
// whose grids leave most SMs empty, how much SM time they leave empty, when
// they do not count, and where the finding ranks.
#include "analyzer/analysis/causes/small_grid.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/diagnose_wording.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/diagnose_ranked.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/analysis/windows/test_windows.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_device.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::DiagnoseThroughPipeline;
using testing::Find;
using testing::GpuWindow;
using testing::ModelBuilder;
using testing::Ranking;
using testing::TestDevice;
using testing::us;

struct Launch {
  int64_t stream, start_us, end_us, blocks;  // blocks 0: grid not recorded
};

// Kernels on a device of `sms` SMs, each launched 5 us before it starts,
// named "k<blocks>" (or `name`).
TraceModel Kernels(int32_t sms, const std::vector<Launch>& launches, const std::string& name = "") {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.sm_count = sms}));
  std::vector<int64_t> streams;
  for (const Launch& l : launches) {
    if (std::find(streams.begin(), streams.end(), l.stream) == streams.end()) {
      b.Stream(l.stream, StreamKind::kNonBlocking);
      streams.push_back(l.stream);
    }
  }
  for (size_t k = 0; k < launches.size(); ++k) {
    const Launch& l = launches[k];
    b.Kernel(name.empty() ? "k" + std::to_string(l.blocks) : name, l.stream, us(l.start_us), us(l.end_us),
             ApiTimes{us(l.start_us) - us(5), us(l.start_us) - us(3), 1});
  }
  TraceModel m = b.Build();
  m.kernel_blocks.assign(m.ops.size(), 0);
  for (size_t op = 0; op < m.ops.size(); ++op) {
    for (const Launch& l : launches) {
      if (m.ops.start_ns[op] == us(l.start_us) && m.ops.end_ns[op] == us(l.end_us)) {
        m.kernel_blocks[op] = KeptKernelBlocks(l.blocks, 1, 1);
      }
    }
  }
  return m;
}

std::vector<DiagnoseFinding> SmallGrids(const TraceModel& m) {
  const Window w = GpuWindow(m);
  return FindSmallGrids(m, w, diagnose_support::OpsStartingIn(m, w), DiagnoseOptions{});
}

TEST(SmallGrid, AOneBlockKernelLeavesEveryOtherSmEmptyAndIsThePrimaryCauseWhenNothingElseLeads) {
  // add<<<1, 1>>> on 108 SMs, 6 ms.
  TraceModel m = Kernels(108, {{1, 100, 6100, 1}});
  std::vector<DiagnoseFinding> found = SmallGrids(m);
  ASSERT_EQ(found.size(), 1u);
  const auto& x = std::get<SmallGridFacts>(found[0].facts);
  EXPECT_EQ(x.sm_count, 108);
  EXPECT_EQ(x.kernels, 1);
  EXPECT_EQ(x.underfilled_ns, us(6000));
  EXPECT_EQ(x.empty_ns, us(6000) * 107 / 108);
  EXPECT_EQ(found[0].impact_ns, x.empty_ns);
  ASSERT_EQ(x.groups.size(), 1u);
  EXPECT_EQ(x.groups[0].max_blocks, 1);
  EXPECT_EQ(x.groups[0].ns, us(6000));
  const std::string summary = DiagnoseSummary(found[0], m);
  EXPECT_EQ(summary.rfind("kernels with small grids left SMs empty while the GPU counted as busy: 'k1' x1 with at most "
                          "1 block, 6.00 ms (1 kernel",
                          0),
            0u)
      << summary;
  EXPECT_NE(summary.find("5.94 ms of the device's SM time left empty over 6.00 ms"), std::string::npos) << summary;
  EXPECT_NE(DiagnoseRemedy(found[0]).find("at least one per SM (108 here)"), std::string::npos);
  DiagnoseResult r = DiagnoseThroughPipeline(m, GpuWindow(m));
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kSmallGrid) << Ranking(r);
  EXPECT_FALSE(r.primary()->saving_estimated);
  EXPECT_NE(DiagnoseCostAndSaving(*r.primary(), r.gpu_span_ns).find("no what-if models a larger grid"),
            std::string::npos);
}

TEST(SmallGrid, SmallGridsRunningTogetherCountOnlyWhileTheirBlocksLeaveSmsEmpty) {
  // 132 SMs. Two 60-block kernels from 0 to 1000 us, a 12-block one from 500
  // to 1000 us: 120 blocks of 132 (12/132 empty) for 500 us, then all 132
  // SMs taken for 500 us.
  TraceModel m = Kernels(132, {{1, 0, 1000, 60}, {2, 0, 1000, 60}, {3, 500, 1000, 12}});
  std::vector<DiagnoseFinding> found = SmallGrids(m);
  ASSERT_EQ(found.size(), 1u);
  const auto& x = std::get<SmallGridFacts>(found[0].facts);
  EXPECT_EQ(x.kernels, 3);
  EXPECT_EQ(x.underfilled_ns, us(500));
  EXPECT_EQ(x.empty_ns, us(500) * 12 / 132);
}

TEST(SmallGrid, GridsOfMoreThanHalfTheSmsShortKernelsNcclAndUnknownGridsAreNot) {
  // A 128-block GEMM on 132 SMs is one wave with a short tail.
  EXPECT_TRUE(SmallGrids(Kernels(132, {{1, 0, 1000, 128}})).empty());
  // 1-block kernels of 10 us are launch-bound: small_work's.
  EXPECT_TRUE(SmallGrids(Kernels(132, {{1, 0, 10, 1}, {1, 20, 30, 1}, {1, 40, 50, 1}})).empty());
  // A kernel whose grid is not recorded fills the device as far as anyone
  // knows: the 1-block kernel beside it counts only after it ends.
  std::vector<DiagnoseFinding> found = SmallGrids(Kernels(132, {{1, 0, 1000, 1}, {2, 0, 400, 0}}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(std::get<SmallGridFacts>(found[0].facts).underfilled_ns, us(600));
  // NCCL takes few SMs on purpose (the rest are the compute's it overlaps).
  EXPECT_TRUE(SmallGrids(Kernels(132, {{1, 0, 1000, 2}}, "ncclDevKernel_AllReduce_Sum_f32_RING_LL")).empty());
  // Without the device's SM count, or without grids, nothing is said.
  EXPECT_TRUE(SmallGrids(Kernels(0, {{1, 0, 1000, 1}})).empty());
  TraceModel no_grids = Kernels(132, {{1, 0, 1000, 1}});
  no_grids.kernel_blocks.clear();
  EXPECT_TRUE(SmallGrids(no_grids).empty());
}

TEST(SmallGrid, RanksAfterTheCausesOfIdleTimeAndLostOverlap) {
  // planted_traces.h's three causes (host work in 'prepare' primary), with
  // every kernel on one block of 132 SMs: small_grid is significant and
  // comes after the causes that the what-ifs rank.
  TraceModel m = testing::ThreeCausesTrace();
  m.devices.push_back(TestDevice({.sm_count = 132}));
  m.kernel_blocks.assign(m.ops.size(), 0);
  for (size_t op = 0; op < m.ops.size(); ++op) {
    if (m.ops.category[op] == OpCategory::kKernel) m.kernel_blocks[op] = 1;
  }
  DiagnoseResult r = DiagnoseThroughPipeline(m, WholeTraceWindow(m));
  const DiagnoseFinding* grid = Find(r, DiagnoseCause::kSmallGrid);
  ASSERT_NE(grid, nullptr) << Ranking(r);
  EXPECT_TRUE(grid->significant);
  EXPECT_EQ(grid->impact_ns, us(5 * 300) * 131 / 132);
  ASSERT_NE(r.primary(), nullptr);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kCpuStarvation) << Ranking(r);
  std::vector<DiagnoseCause> order;
  for (int32_t i : r.ranked) order.push_back(r.findings[i].cause);
  auto at = [&](DiagnoseCause c) { return std::find(order.begin(), order.end(), c) - order.begin(); };
  EXPECT_LT(at(DiagnoseCause::kSyncBetween), at(DiagnoseCause::kSmallGrid)) << Ranking(r);
  EXPECT_LT(at(DiagnoseCause::kPageableCopies), at(DiagnoseCause::kSmallGrid)) << Ranking(r);
  EXPECT_LT(at(DiagnoseCause::kSmallGrid), r.leading_count) << Ranking(r);
}

TEST(SmallGrid, TheUnifiedMemoryVecAddRanOneThreadOnAnA100) {
  // A public vecAdd (tests/data/nsys/README.md): add<<<1, 1>>> over managed
  // memory for 6.30 s; before this finding its diagnosis said "No cause
  // found" while 107 of the A100's 108 SMs sat empty.
  auto models = LoadTraceFile("tests/data/nsys/vecadd-um-a100.sqlite");
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = models->front();
  DiagnoseResult r = DiagnoseThroughPipeline(m, GpuWindow(m));
  ASSERT_NE(r.primary(), nullptr) << Ranking(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kSmallGrid) << Ranking(r);
  const auto& x = std::get<SmallGridFacts>(r.primary()->facts);
  EXPECT_EQ(x.sm_count, 108);
  EXPECT_EQ(x.kernels, 1);
  EXPECT_EQ(x.underfilled_ns, 6300325739);
  EXPECT_EQ(x.empty_ns, 6300325739 * 107 / 108);
}

}  // namespace
}  // namespace streamscope
