// The HTML page's timeline data (html_timeline_data.h): API calls per host
// thread on a lane per nesting depth, synchronizing calls marked, short
// calls merged beyond the budget, and the columns the script decodes.
#include "analyzer/export/html_timeline_data.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ModelBuilder;

Window Span(int64_t start_ns, int64_t end_ns) {
  Window w;
  w.start_ns = start_ns;
  w.end_ns = end_ns;
  return w;
}

TEST(ApiCallLanes, ADriverCallInsideARuntimeCallGoesOneLaneDown) {
  ModelBuilder b;
  b.Api("cudaLaunchKernel", 7, 1'000, 9'000);
  b.Api("cuLaunchKernel", 7, 2'000, 8'000, -1, ApiDomain::kDriver);
  b.Api("cudaStreamSynchronize", 7, 10'000, 20'000);
  b.Api("cudaMalloc", 9, 500, 600);
  TraceModel m = b.Build();
  std::vector<ApiLanes> threads = ApiCallLanes(m, Span(0, 30'000));
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].tid, 7);
  ASSERT_EQ(threads[0].lanes.size(), 2u);
  EXPECT_EQ(threads[0].lanes[0].size(), 2u);  // the two runtime calls
  ASSERT_EQ(threads[0].lanes[1].size(), 1u);
  EXPECT_EQ(m.strings.Get(m.api.name[threads[0].lanes[1][0]]), "cuLaunchKernel");
  EXPECT_EQ(threads[1].tid, 9);
  EXPECT_EQ(threads[1].lanes.size(), 1u);
}

nlohmann::json Rows(TimelineData& data) { return nlohmann::json::parse(data.Finish())["rows"]; }

TEST(TimelineData, ApiRowMarksSynchronizingCallsAndStartsAsDeltas) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Api("cudaLaunchKernel", 7, 1'000, 3'000);
  b.Sync(SyncKind::kStreamSynchronize, 13, 4'000, 9'000, "cudaStreamSynchronize", 7);
  TraceModel m = b.Build();
  Window w = Span(500, 10'000);
  std::vector<ApiLanes> threads = ApiCallLanes(m, w);
  ASSERT_EQ(threads.size(), 1u);
  TimelineData data;
  data.AddApiRow(m, w, 7, threads[0].lanes[0], 0, 10, 14);
  nlohmann::json rows = Rows(data);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["k"], "api");
  EXPECT_EQ(rows[0]["s"], nlohmann::json({500, 3'000}));  // from the window start, then from the previous call
  EXPECT_EQ(rows[0]["d"], nlohmann::json({2'000, 5'000}));
  EXPECT_EQ(rows[0]["c"], nlohmann::json({0, 1}));  // the second call synchronizes
}

TEST(TimelineData, ShortCallsMergeIntoBlocksOfAtMostOneResolutionStep) {
  ModelBuilder b;
  for (int i = 0; i < 10; ++i) b.Api("cudaLaunchKernel", 7, i * 1'000, i * 1'000 + 100);
  b.Api("cudaDeviceSynchronize", 7, 20'000, 40'000);
  TraceModel m = b.Build();
  Window w = Span(0, 50'000);
  std::vector<ApiLanes> threads = ApiCallLanes(m, w);
  TimelineData data;
  data.AddApiRow(m, w, 7, threads[0].lanes[0], 5'000, 0, 14);
  nlohmann::json row = Rows(data)[0];
  // Calls 0-4 span 4.1 us, call 5 would stretch the block past 5 us: two
  // blocks of five, then the long call on its own (name, source id).
  ASSERT_EQ(row["n"].size(), 3u);
  EXPECT_EQ(row["n"][0], -1);
  EXPECT_EQ(row["i"][0], 5);  // calls merged
  EXPECT_EQ(row["b"][0], 500);
  EXPECT_EQ(row["i"][1], 5);
  EXPECT_GE(row["n"][2].get<int>(), 0);
  EXPECT_EQ(data.items(), 3);
}

}  // namespace
}  // namespace streamscope
