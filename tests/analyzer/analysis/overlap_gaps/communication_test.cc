// Known-answer tests of the communication analysis and of the cross-rank
// comparison: NCCL kernels and peer copies against compute per
// device, and which rank the others waited for.
#include "analyzer/analysis/overlap_gaps/communication.h"

#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/pipeline/ranks.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ModelBuilder;

const DeviceCommunication* FindDevice(const CommunicationResult& r, int32_t id) {
  for (const DeviceCommunication& d : r.devices) {
    if (d.device_id == id) return &d;
  }
  return nullptr;
}

TEST(Communication, NcclKernelsAreCommunicationOthersAreCompute) {
  EXPECT_TRUE(IsCommunicationKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  EXPECT_TRUE(IsCommunicationKernel("ncclKernel_Broadcast_RING_LL_Sum_int8_t"));
  EXPECT_TRUE(IsCommunicationKernel("void NCCLwrapper<float>()"));
  EXPECT_FALSE(IsCommunicationKernel("ChunkTransform"));
  EXPECT_FALSE(IsCommunicationKernel("ncc"));
  EXPECT_FALSE(IsCommunicationKernel(""));
}

// Device 0: compute [0,100) and [180,190) on stream 1; NCCL kernels [50,150)
// and [140,200) on stream 2 (they overlap each other: counted once).
// Device 1: a peer copy [0,40) next to a kernel [20,60). Device 2: compute only.
TraceModel ThreeDeviceModel() {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking, 0);
  b.Stream(2, StreamKind::kNonBlocking, 0);
  b.Stream(3, StreamKind::kNonBlocking, 1);
  b.Stream(4, StreamKind::kNonBlocking, 1);
  b.Stream(5, StreamKind::kNonBlocking, 2);
  b.Kernel("gemm", 1, 0, 100);
  b.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2, 50, 150);
  b.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2, 140, 200);
  b.Kernel("relu", 1, 180, 190);
  b.Copy(OpCategory::kPtoP, MemoryKind::kDevice, MemoryKind::kDevice, 3, 0, 40);
  b.Kernel("gemm", 4, 20, 60);
  b.Kernel("gemm", 5, 0, 500);
  return b.Build();
}

TEST(Communication, OverlapExposedAndHiddenShareAreUnionsPerDevice) {
  TraceModel m = ThreeDeviceModel();
  CommunicationResult r = AnalyzeCommunication(m, Window{0, 500, {}});
  ASSERT_EQ(r.devices.size(), 2u) << "device 2 has no communication and is not listed";
  const DeviceCommunication* d0 = FindDevice(r, 0);
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->comm_kernels, 2);
  EXPECT_EQ(d0->compute_kernels, 2);
  EXPECT_EQ(d0->comm_ns, 150);       // [50,200)
  EXPECT_EQ(d0->compute_ns, 110);    // [0,100) + [180,190)
  EXPECT_EQ(d0->overlapped_ns, 60);  // [50,100) + [180,190)
  EXPECT_EQ(d0->exposed_comm_ns, 90);
  EXPECT_DOUBLE_EQ(d0->hidden_share, 60.0 / 110.0);
  ASSERT_EQ(d0->by_name.size(), 1u);
  EXPECT_EQ(d0->by_name[0].count, 2);
  EXPECT_EQ(d0->by_name[0].total_ns, 160);  // summed durations, not the union
  const DeviceCommunication* d1 = FindDevice(r, 1);
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(d1->comm_kernels, 0);
  EXPECT_EQ(d1->p2p_copies, 1);
  EXPECT_EQ(d1->p2p_ns, 40);
  EXPECT_EQ(d1->p2p_overlapped_ns, 20);  // [20,40)
}

TEST(Communication, OpsAreClippedToTheWindow) {
  TraceModel m = ThreeDeviceModel();
  CommunicationResult r = AnalyzeCommunication(m, Window{60, 200, {}});
  const DeviceCommunication* d0 = FindDevice(r, 0);
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->comm_ns, 140);    // [60,200)
  EXPECT_EQ(d0->compute_ns, 50);  // [60,100) + [180,190)
  EXPECT_EQ(d0->overlapped_ns, 50);
  EXPECT_EQ(FindDevice(r, 1), nullptr) << "the peer copy ended before the window";
}

// One rank's trace: NCCL all-reduces starting at `starts` with `durations`,
// and a compute kernel [0, 10).
TraceModel Rank(std::string rank, std::vector<int64_t> starts, std::vector<int64_t> durations,
                std::string host = "node1") {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking, 0);
  b.Stream(2, StreamKind::kNonBlocking, 0);
  b.Kernel("sgemm", 1, 0, 10);
  for (size_t i = 0; i < starts.size(); ++i) {
    b.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2, starts[i], starts[i] + durations[i]);
  }
  TraceModel m = b.Build();
  if (!rank.empty()) m.metadata["env:RANK"] = rank;
  m.metadata["host"] = host;
  m.metadata["clock_domain"] = "monotonic-raw";
  m.path = "trace-" + rank + ".sqlite";
  m.pid = 100 + static_cast<int64_t>(rank.size());
  return m;
}

std::vector<RankInput> Inputs(const std::vector<TraceModel>& models) {
  std::vector<RankInput> inputs;
  for (const TraceModel& m : models) inputs.push_back({&m, {Window{0, 2000, {}}}});
  return inputs;
}

TEST(CrossRank, TheLastRankToArriveIsTheOneTheOthersWaitedFor) {
  // Given in reverse order: ranks come from metadata, not argument order.
  std::vector<TraceModel> models;
  models.push_back(Rank("1", {250, 1050}, {50, 150}));
  models.push_back(Rank("0", {100, 1000, 1500}, {200, 100, 10}));
  CrossRankResult r = RunCrossRank(Inputs(models), 10).value();
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_TRUE(r.comparable);
  EXPECT_EQ(r.ranks[0].rank, 0);
  EXPECT_TRUE(r.ranks[0].rank_from_metadata);
  EXPECT_EQ(r.ranks[1].rank, 1);
  EXPECT_EQ(r.matched_collectives, 2);
  EXPECT_EQ(r.unmatched_kernels, 1) << "rank 0's third all-reduce has no counterpart";
  // Collective 1: rank 0 waited min(250-100, 200) = 150; collective 2:
  // min(1050-1000, 100) = 50.
  EXPECT_EQ(r.ranks[0].waited_ns, 200);
  EXPECT_EQ(r.ranks[0].caused_wait_ns, 0);
  EXPECT_EQ(r.ranks[0].last_arrivals, 0);
  EXPECT_EQ(r.ranks[1].waited_ns, 0);
  EXPECT_EQ(r.ranks[1].caused_wait_ns, 200);
  EXPECT_EQ(r.ranks[1].last_arrivals, 2);
  ASSERT_EQ(r.worst.size(), 2u);
  EXPECT_EQ(r.worst[0].skew_ns, 150);
  EXPECT_EQ(r.worst[0].ordinal, 0);
  EXPECT_EQ(r.worst[0].first_rank, 0);
  EXPECT_EQ(r.worst[0].last_rank, 1);
  EXPECT_EQ(r.worst[1].skew_ns, 50);
  // Busy/idle per rank over the window: rank 1 ran [0,10) + [250,300) + [1050,1200).
  EXPECT_EQ(r.ranks[1].window_ns, 2000);
  EXPECT_EQ(r.ranks[1].busy_ns, 210);
  EXPECT_EQ(r.ranks[1].idle_ns, 1790);
  EXPECT_EQ(r.ranks[1].comm_ns, 200);
  EXPECT_EQ(r.ranks[1].exposed_comm_ns, 200);
  EXPECT_EQ(r.ranks[1].compute_ns, 10);
  EXPECT_EQ(r.ranks[1].overlapped_ns, 0);
}

TEST(CrossRank, RanksWithoutCommunicationStillReportTheirCompute) {
  std::vector<TraceModel> models;
  models.push_back(Rank("0", {}, {}));
  models.push_back(Rank("1", {}, {}));
  CrossRankResult r = RunCrossRank(Inputs(models), 10).value();
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].compute_ns, 10);
  EXPECT_EQ(r.ranks[0].comm_ns, 0);
  EXPECT_EQ(r.matched_collectives, 0);
}

TEST(CrossRank, TracesOfDifferentHostsAreComparedOnceAlignedOnTheirCollectives) {
  // Both all-reduces end at 300: the clocks agree, so the waits are those
  // of one host (tests/analyzer/analysis/ranks/cross_rank_test.cc has
  // the offsets). No wall-clock start is recorded here, and a note says so.
  std::vector<TraceModel> models;
  models.push_back(Rank("0", {100}, {200}, "node1"));
  models.push_back(Rank("1", {250}, {50}, "node2"));
  CrossRankResult r = RunCrossRank(Inputs(models), 10).value();
  EXPECT_TRUE(r.comparable);
  EXPECT_EQ(r.alignment.method, "collectives");
  EXPECT_EQ(r.matched_collectives, 1);
  EXPECT_EQ(r.ranks[1].clock_offset_ns, 0);
  EXPECT_EQ(r.ranks[0].waited_ns, 150);
  EXPECT_EQ(r.ranks[1].caused_wait_ns, 150);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.front().kind, CrossRankNote::Kind::kNoWallClockStart);
}

TEST(CrossRank, TracesWithoutRankAreNumberedAfterTheOthersAndSaidSo) {
  std::vector<TraceModel> models;
  models.push_back(Rank("", {100}, {200}));
  models.push_back(Rank("3", {150}, {200}));
  CrossRankResult r = RunCrossRank(Inputs(models), 10).value();
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].rank, 3);
  EXPECT_EQ(r.ranks[1].rank, 4);
  EXPECT_FALSE(r.ranks[1].rank_from_metadata);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.front().kind, CrossRankNote::Kind::kRanksNumberedInOrder);
  EXPECT_EQ(r.notes.front().value, 1) << "one trace without a rank";
}

TEST(CrossRank, OneTraceHasFiguresButNothingToMatch) {
  std::vector<TraceModel> models;
  models.push_back(Rank("0", {100, 400}, {200, 100}));
  CrossRankResult r = RunCrossRank(Inputs(models), 10).value();
  ASSERT_EQ(r.ranks.size(), 1u);
  EXPECT_EQ(r.matched_collectives, 0);
  EXPECT_EQ(r.ranks[0].comm_ns, 300);
  EXPECT_EQ(r.ranks[0].waited_ns, 0);
}

}  // namespace
}  // namespace streamscope
