#include "collector/nvtx_pairer.h"

#include <gtest/gtest.h>

namespace streamscope::collector {
namespace {

MarkerRecord Start(uint32_t id, uint32_t tid, uint64_t ts, std::string_view name) {
  return MarkerRecord{MarkerRecord::Phase::kStart, ts, id, tid, name, {}};
}
MarkerRecord End(uint32_t id, uint32_t tid, uint64_t ts) {
  return MarkerRecord{MarkerRecord::Phase::kEnd, ts, id, tid, {}, {}};
}

TEST(NvtxPairer, NestedPushPopGetsDepths) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.Add(Start(1, 10, 100, "outer"), &done, &mark);
  p.Add(Start(2, 10, 110, "inner"), &done, &mark);
  p.Add(End(2, 10, 120), &done, &mark);
  p.Add(End(1, 10, 130), &done, &mark);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].name, "inner");
  EXPECT_EQ(done[0].depth, 1);
  EXPECT_TRUE(done[0].is_push_pop);
  EXPECT_EQ(done[1].name, "outer");
  EXPECT_EQ(done[1].depth, 0);
  EXPECT_EQ(done[1].start_ns, 100u);
  EXPECT_EQ(done[1].end_ns, 130u);
  EXPECT_FALSE(mark);
}

TEST(NvtxPairer, RangeEndedOnAnotherThreadIsStartEnd) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.Add(Start(5, 10, 100, "io"), &done, &mark);
  p.Add(End(5, 11, 200), &done, &mark);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_FALSE(done[0].is_push_pop);
  EXPECT_FALSE(done[0].depth.has_value());
  EXPECT_EQ(done[0].tid, 10u);
  EXPECT_EQ(done[0].end_tid, 11u);
}

TEST(NvtxPairer, OverlappingNonLifoRangesAreStartEnd) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.Add(Start(1, 10, 100, "a"), &done, &mark);
  p.Add(Start(2, 10, 110, "b"), &done, &mark);
  p.Add(End(1, 10, 120), &done, &mark);  // a ends while b (inner) is open
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].name, "a");
  EXPECT_FALSE(done[0].is_push_pop);
  p.Add(End(2, 10, 130), &done, &mark);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(done[1].is_push_pop);
}

TEST(NvtxPairer, EndBeforeStartStillPairs) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.Add(End(9, 10, 300), &done, &mark);
  EXPECT_EQ(p.unmatched_ends(), 1);
  p.Add(Start(9, 10, 250, "late"), &done, &mark);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].start_ns, 250u);
  EXPECT_EQ(done[0].end_ns, 300u);
  EXPECT_EQ(p.unmatched_ends(), 0);
}

TEST(NvtxPairer, OpenRangesAreReturnedWithoutEnd) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.Add(Start(1, 10, 100, "never_closed"), &done, &mark);
  p.AddData(MarkerDataRecord{1, 0xff00ff00u, 3});
  std::vector<NvtxRange> open = p.TakeOpen();
  ASSERT_EQ(open.size(), 1u);
  EXPECT_FALSE(open[0].end_ns.has_value());
  EXPECT_EQ(open[0].color, 0xff00ff00u);
  EXPECT_EQ(open[0].category, 3u);
  EXPECT_TRUE(p.TakeOpen().empty());
}

TEST(NvtxPairer, InstantMarkerIsAMark) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.Add(MarkerRecord{MarkerRecord::Phase::kInstant, 5, 1, 10, "m", {}}, &done, &mark);
  EXPECT_TRUE(mark);
  EXPECT_TRUE(done.empty());
}

}  // namespace
}  // namespace streamscope::collector

namespace streamscope::collector {
namespace {

TEST(NvtxPairer, KnownStartEndRangeDoesNotCountTowardsDepth) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  p.MarkStartEnd(NvtxStartEndRecord{1, 10, 95, 99});  // nvtxRangeStartA returned id 1
  p.Add(Start(1, 10, 100, "startend"), &done, &mark);
  p.Add(Start(2, 10, 110, "pushed"), &done, &mark);
  p.Add(End(2, 10, 120), &done, &mark);
  p.Add(End(1, 10, 130), &done, &mark);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].name, "pushed");
  EXPECT_EQ(done[0].depth, 0);
  EXPECT_TRUE(done[0].is_push_pop);
  EXPECT_EQ(done[1].name, "startend");
  EXPECT_FALSE(done[1].is_push_pop);
  EXPECT_FALSE(done[1].depth.has_value());
}

}  // namespace
}  // namespace streamscope::collector

namespace streamscope::collector {
namespace {

TEST(NvtxPairer, StartEndRangeFoundByThreadAndCallInterval) {
  NvtxPairer p;
  std::vector<NvtxRange> done;
  bool mark = false;
  // NVTX returned an id that is not CUPTI's marker id; the START marker's
  // timestamp lies inside the call on the same thread.
  p.MarkStartEnd(NvtxStartEndRecord{0xdead, 10, 95, 105});
  p.Add(Start(7, 11, 100, "other_thread"), &done, &mark);
  p.Add(Start(8, 10, 100, "startend"), &done, &mark);
  p.Add(Start(9, 10, 110, "pushed"), &done, &mark);
  p.Add(End(9, 10, 120), &done, &mark);
  p.Add(End(8, 10, 130), &done, &mark);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].name, "pushed");
  EXPECT_EQ(done[0].depth, 0);
  EXPECT_FALSE(done[1].is_push_pop);
  EXPECT_EQ(p.start_end_matched(), 1);
  std::vector<NvtxRange> open = p.TakeOpen();
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].name, "other_thread");
  EXPECT_EQ(open[0].depth, 0);
}

}  // namespace
}  // namespace streamscope::collector
