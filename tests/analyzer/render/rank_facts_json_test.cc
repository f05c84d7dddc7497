// The JSON form of rank facts: a round trip gives the same facts, so the
// merge of parsed facts (merge-facts, the Dask path) equals the merge of
// facts computed in memory (report A B).
#include "analyzer/render/rank_facts_json.h"

#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/pipeline/ranks.h"
#include "analyzer/render/communication_render.h"
#include "analyzer/render/window_label.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ModelBuilder;

TraceModel RankTrace(int rank, int64_t base, int64_t arrive) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking, 0);
  b.Stream(2, StreamKind::kNonBlocking, 1);
  b.Kernel("sgemm", 1, base, base + 150);
  b.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2, base + arrive, base + 400);
  b.Kernel("ncclDevKernel_AllGather_RING_LL", 2, base + 500, base + 600);
  TraceModel m = b.Build();
  m.metadata["env:RANK"] = std::to_string(rank);
  m.metadata["host"] = "node" + std::to_string(rank);
  m.metadata["start_trace_ns"] = std::to_string(base);
  m.metadata["start_wall_time_ns"] = "1780000000000000000";
  m.path = "rank" + std::to_string(rank) + ".sqlite";
  m.pid = 100 + rank;
  return m;
}

TEST(RankFactsJson, ARoundTripMergesToTheSameFigures) {
  std::vector<TraceModel> m;
  m.push_back(RankTrace(1, 3'000'000'000, 100));
  m.push_back(RankTrace(0, 0, 250));
  std::vector<Window> w0 = {{3'000'000'000, 3'000'001'000, {}}}, w1 = {{0, 1000, {}}};
  w0[0].origin.kind = w1[0].origin.kind = WindowKind::kWholeTrace;
  std::vector<RankFacts> facts = {RunRankFacts(m[0], w0, false).value(), RunRankFacts(m[1], w1, false).value()};
  auto parsed = RankFactsFromJson(RankFactsToJson(facts).dump(), "facts.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].comm_kernels.size(), 2u);
  EXPECT_EQ((*parsed)[0].windows[0].devices.size(), 2u);
  EXPECT_EQ(WindowLabel((*parsed)[0].windows[0].origin), "whole trace");  // the label as written
  nlohmann::json direct = CrossRankToJson(RunCrossRank({{&m[0], w0}, {&m[1], w1}}, 10).value());
  nlohmann::json merged = CrossRankToJson(MergeRankFacts(*parsed, 10));
  EXPECT_EQ(direct, merged);
  EXPECT_EQ(merged["alignment"]["method"], "collectives");
  EXPECT_EQ(merged["ranks"][1]["clock_offset_ns"], -3'000'000'000);
}

TEST(RankFactsJson, AnythingElseIsAClearError) {
  auto not_json = RankFactsFromJson("{", "a.json");
  EXPECT_EQ(not_json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(not_json.status().message().find("a.json: not a JSON document"), std::string::npos);
  auto report = RankFactsFromJson(R"({"generator": "streamscope report"})", "r.json");
  EXPECT_NE(report.status().message().find("not rank facts"), std::string::npos) << report.status();
  auto newer = RankFactsFromJson(R"({"generator": "streamscope facts", "facts_version": 99, "processes": []})", "n");
  EXPECT_NE(newer.status().message().find("facts version 99"), std::string::npos) << newer.status();
  auto broken = RankFactsFromJson(R"({"generator": "streamscope facts", "facts_version": 1,
                                      "processes": [{"path": 3}]})",
                                  "b.json");
  EXPECT_NE(broken.status().message().find("b.json: malformed rank facts"), std::string::npos) << broken.status();
}

}  // namespace
}  // namespace streamscope
