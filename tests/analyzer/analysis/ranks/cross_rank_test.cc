// Known-answer tests of the cross-rank merge: clocks of
// different hosts aligned on the collectives' ends, the straggler of each
// step, and the facts a rank contributes.
#include "analyzer/analysis/ranks/cross_rank.h"

#include "analyzer/analysis/ranks/rank_facts.h"
#include "analyzer/pipeline/ranks.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ModelBuilder;

constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
constexpr int64_t kWall = 1'780'000'000'000'000'000;

// One rank: compute [base, base+10), all-reduces [base+start, base+end).
// The trace clock of its host reads `base` at the true instant 0; its
// wall-clock start is off by `wall_error`.
TraceModel Rank(int rank, std::string host, int64_t base, std::vector<std::pair<int64_t, int64_t>> collectives,
                int64_t wall_error = 0) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking, 0);
  b.Stream(2, StreamKind::kNonBlocking, 0);
  b.Kernel("sgemm", 1, base, base + 10);
  for (auto [start, end] : collectives) b.Kernel(kAllReduce, 2, base + start, base + end);
  TraceModel m = b.Build();
  m.metadata["env:RANK"] = std::to_string(rank);
  m.metadata["host"] = host;
  m.metadata["clock_domain"] = "cupti-default";
  m.metadata["start_trace_ns"] = std::to_string(base);
  m.metadata["start_wall_time_ns"] = std::to_string(kWall + wall_error);
  m.path = "rank" + std::to_string(rank) + ".sqlite";
  return m;
}

Window Whole(int64_t base) { return Window{base, base + 2000, {}}; }

TEST(CrossRank, ClocksOfDifferentHostsAreAlignedOnTheEndsOfTheirCollectives) {
  // Rank 1's host clock is 5 s ahead, its wall clock 1 ms off. Both
  // all-reduces end at the same true instant (300, 900) on both ranks.
  const int64_t ahead = 5'000'000'000;
  std::vector<TraceModel> m;
  m.push_back(Rank(0, "node1", 0, {{100, 300}, {700, 900}}));
  m.push_back(Rank(1, "node2", ahead, {{250, 300}, {600, 900}}, 1'000'000));
  CrossRankResult r = RunCrossRank({{&m[0], {Whole(0)}}, {&m[1], {Whole(ahead)}}}, 10).value();
  EXPECT_TRUE(r.comparable);
  EXPECT_EQ(r.alignment.method, "collectives");
  EXPECT_EQ(r.alignment.hosts, 2);
  EXPECT_EQ(r.alignment.reference_rank, 0);
  EXPECT_EQ(r.ranks[1].wall_clock_offset_ns, -ahead + 1'000'000) << "the first estimate carries the wall error";
  EXPECT_EQ(r.ranks[1].clock_offset_ns, -ahead) << "refined from the collectives";
  EXPECT_EQ(r.ranks[0].clock_offset_ns, 0);
  EXPECT_EQ(r.alignment.residual_max_ns, 0);
  // Aligned arrivals: rank 1 came 150 ns late to the first, rank 0 100 ns
  // late to the second.
  EXPECT_EQ(r.ranks[0].waited_ns, 150);
  EXPECT_EQ(r.ranks[1].waited_ns, 100);
  EXPECT_EQ(r.ranks[1].caused_wait_ns, 150);
  EXPECT_EQ(r.ranks[0].caused_wait_ns, 100);
  ASSERT_EQ(r.worst.size(), 2u);
  EXPECT_EQ(r.worst[0].skew_ns, 150);
  EXPECT_EQ(r.worst[0].last_rank, 1);
  EXPECT_EQ(r.worst[0].last_start_ns, 250) << "times are in the reference rank's clock";
}

TEST(CrossRank, TheResidualIsTheLargestDistanceOfAnAlignedEndFromTheConsensus) {
  // Three ranks; rank 2's second end is 40 ns late (jitter).
  std::vector<TraceModel> m;
  m.push_back(Rank(0, "a", 0, {{100, 300}, {700, 900}, {1100, 1300}}));
  m.push_back(Rank(1, "b", 7000, {{100, 300}, {700, 900}, {1100, 1300}}));
  m.push_back(Rank(2, "c", 9000, {{100, 300}, {700, 940}, {1100, 1300}}));
  CrossRankResult r = RunCrossRank({{&m[0], {Whole(0)}}, {&m[1], {Whole(7000)}}, {&m[2], {Whole(9000)}}}, 10).value();
  EXPECT_EQ(r.ranks[1].clock_offset_ns, -7000);
  EXPECT_EQ(r.ranks[2].clock_offset_ns, -9000) << "the median ignores the one late end";
  EXPECT_EQ(r.ranks[2].alignment_residual_ns, 40);
  EXPECT_EQ(r.ranks[0].alignment_residual_ns, 0);
  EXPECT_EQ(r.alignment.residual_max_ns, 40);
  EXPECT_EQ(r.alignment.residual_median_ns, 0);
}

TEST(CrossRank, EndsThatStillDisagreeAfterAlignmentAreSaidToBeMismatched) {
  // Rank 1's window misses its first all-reduce: its k-th is rank 0's k+1-th,
  // and the collectives are 1 ms apart, so no offset makes the ends agree.
  std::vector<TraceModel> m;
  m.push_back(Rank(0, "a", 0, {{100, 200}, {1100, 1200}, {1300, 3000000}}));
  m.push_back(Rank(1, "b", 0, {{1100, 1200}, {1300, 3000000}}));
  const std::vector<Window> whole = {Window{0, 4'000'000, {}}};
  CrossRankResult r = RunCrossRank({{&m[0], whole}, {&m[1], whole}}, 10).value();
  EXPECT_GT(r.alignment.residual_max_ns, 100'000);
  bool said = false;
  for (const CrossRankNote& note : r.notes) {
    said |= note.kind == CrossRankNote::Kind::kLargeResidual && note.value == r.alignment.residual_max_ns;
  }
  EXPECT_TRUE(said);
}

TEST(CrossRank, DifferentHostsWithoutACollectiveAreNotComparedForWaiting) {
  std::vector<TraceModel> m;
  m.push_back(Rank(0, "node1", 0, {}));
  m.push_back(Rank(1, "node2", 5000, {}));
  CrossRankResult r = RunCrossRank({{&m[0], {Whole(0)}}, {&m[1], {Whole(5000)}}}, 10).value();
  EXPECT_FALSE(r.comparable);
  EXPECT_EQ(r.alignment.method, "wall_clock");
  EXPECT_EQ(r.ranks[1].clock_offset_ns, -5000) << "the wall-clock estimate is all there is";
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.back().kind, CrossRankNote::Kind::kClocksNotComparable);
  EXPECT_EQ(r.notes.back().value, 2) << "hosts";
}

TEST(CrossRank, OneHostKeepsItsSharedClock) {
  std::vector<TraceModel> m;
  m.push_back(Rank(0, "node1", 0, {{100, 300}}));
  m.push_back(Rank(1, "node1", 0, {{250, 305}}, 1'000'000));
  CrossRankResult r = RunCrossRank({{&m[0], {Whole(0)}}, {&m[1], {Whole(0)}}}, 10).value();
  EXPECT_EQ(r.alignment.method, "shared_clock");
  EXPECT_EQ(r.ranks[1].clock_offset_ns, 0);
  EXPECT_EQ(r.ranks[1].alignment_residual_ns, 5) << "|305 - 300|: the consensus is the lower median";
}

TEST(CrossRank, EachStepNamesTheRankTheOthersWaitedFor) {
  // Steps [0,1000) and [1000,2000): rank 1 late in the first, rank 0 in the second.
  std::vector<TraceModel> m;
  m.push_back(Rank(0, "node1", 0, {{100, 400}, {1500, 1600}}));
  m.push_back(Rank(1, "node1", 0, {{250, 400}, {1050, 1600}}));
  std::vector<Window> steps = {{0, 1000, {}}, {1000, 2000, {}}};
  CrossRankResult r = RunCrossRank({{&m[0], steps, true}, {&m[1], steps, true}}, 10).value();
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].step, 0);
  EXPECT_EQ(r.steps[0].straggler_rank, 1);
  EXPECT_EQ(r.steps[0].caused_wait_ns, 150);
  EXPECT_EQ(r.steps[1].straggler_rank, 0);
  EXPECT_EQ(r.steps[1].caused_wait_ns, 450) << "min(1500 - 1050, 550)";
  EXPECT_EQ(r.ranks[0].straggler_steps, 1);
  EXPECT_EQ(r.ranks[1].straggler_steps, 1);
}

TEST(RankFacts, ListCommunicationKernelsWithTheirCollectiveAndPerDeviceFigures) {
  TraceModel m = Rank(3, "node1", 0, {{100, 300}, {700, 900}});
  RankFacts f = RunRankFacts(m, {Whole(0)}, false).value();
  EXPECT_EQ(f.rank, 3);
  EXPECT_EQ(f.host, "node1");
  EXPECT_EQ(f.start_wall_time_ns, kWall);
  ASSERT_EQ(f.comm_names.size(), 1u);
  EXPECT_EQ(CollectiveOf(f.comm_names[0]), "AllReduce");
  ASSERT_EQ(f.comm_kernels.size(), 2u);
  EXPECT_EQ(f.comm_kernels[1].start_ns, 700);
  ASSERT_EQ(f.windows.size(), 1u);
  ASSERT_EQ(f.windows[0].devices.size(), 1u);
  EXPECT_EQ(f.windows[0].devices[0].busy_ns, 410);
  EXPECT_EQ(f.windows[0].devices[0].comm_ns, 400);
  EXPECT_EQ(f.windows[0].devices[0].idle_ns, 1590);
  EXPECT_EQ(CollectiveOf("ncclKernel_Broadcast_RING_LL_Sum_int8_t"), "Broadcast");
  EXPECT_EQ(CollectiveOf("void NCCLwrapper<float>()"), "");
}

}  // namespace
}  // namespace streamscope
