// Known-answer tests of the idle-gap analysis (docs/DEFINITIONS.md: idle gaps).
#include "analyzer/analysis/overlap_gaps/idle_gaps.h"

#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::SyntheticTrace;

IdleGapsResult Gaps(const TraceModel& m, Window w, int64_t threshold) {
  IdleGapsOptions o;
  o.list_threshold_ns = threshold;
  return AnalyzeIdleGaps(m, w, o);
}

const StreamGaps* StreamById(const TraceModel& m, const IdleGapsResult& r, int64_t id) {
  for (const StreamGaps& s : r.streams) {
    if (m.streams[s.stream].id == id) return &s;
  }
  return nullptr;
}

// s1: kernel#1 [100,200), kernel#2 [400,450); s2: memcpy#1 H2D [150,300),
// kernel#3 [460,470). Device busy [100,300) [400,450) [460,470).
SyntheticTrace TwoStreams() {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 100, 200);
  t.Copy(OpCategory::kHtoD, 2, 150, 300);
  t.Kernel(1, 400, 450);
  t.Kernel(2, 460, 470);
  return t;
}

TEST(IdleGaps, DeviceGapsAreTheComplementOfTheBusyUnion) {
  for (const TraceModel& m : testing::ModelsBothWays(TwoStreams(), "gaps")) {
    IdleGapsResult r = Gaps(m, WholeTraceWindow(m), 20);
    ASSERT_EQ(r.devices.size(), 1u);
    const DeviceGaps& d = r.devices[0];
    EXPECT_EQ(d.window_ns, 370);
    EXPECT_EQ(d.busy_ns, 260);
    EXPECT_EQ(d.idle_ns, 110);
    EXPECT_EQ(d.gap_count, 2);
    EXPECT_EQ(d.listed_count, 1);  // the 10 ns gap is below the threshold
    EXPECT_EQ(d.listed_ns, 100);
    ASSERT_EQ(d.gaps.size(), 1u);
    const Gap& g = d.gaps[0];
    EXPECT_EQ(g.start_ns, 300);
    EXPECT_EQ(g.end_ns, 400);
    EXPECT_EQ(m.ops.category[g.op_before], OpCategory::kHtoD);
    EXPECT_EQ(m.ops.source_id[g.op_before], 1);
    EXPECT_EQ(m.ops.category[g.op_after], OpCategory::kKernel);
    EXPECT_EQ(m.ops.source_id[g.op_after], 2);
  }
}

TEST(IdleGaps, StreamGapsLieBetweenTheStreamsOwnOps) {
  for (const TraceModel& m : testing::ModelsBothWays(TwoStreams(), "gaps")) {
    IdleGapsResult r = Gaps(m, WholeTraceWindow(m), 0);
    const StreamGaps* s1 = StreamById(m, r, 1);
    const StreamGaps* s2 = StreamById(m, r, 2);
    ASSERT_NE(s1, nullptr);
    ASSERT_NE(s2, nullptr);
    EXPECT_EQ(s1->busy_ns, 150);
    EXPECT_EQ(s1->idle_ns, 220);
    EXPECT_EQ(s1->gap_count, 1);
    EXPECT_EQ(s1->between_ops_ns, 200);
    EXPECT_EQ(s1->longest.start_ns, 200);
    EXPECT_EQ(s1->longest.end_ns, 400);
    EXPECT_EQ(s2->between_ops_ns, 160);
    EXPECT_EQ(s2->op_count, 2);
  }
}

TEST(IdleGaps, AnExplicitWindowAddsLeadingAndTrailingGaps) {
  for (const TraceModel& m : testing::ModelsBothWays(TwoStreams(), "gaps")) {
    IdleGapsResult r = Gaps(m, Window{0, 600, {}}, 0);
    const DeviceGaps& d = r.devices[0];
    EXPECT_EQ(d.gap_count, 4);
    EXPECT_EQ(d.idle_ns, 340);
    ASSERT_EQ(d.gaps.size(), 4u);
    EXPECT_EQ(d.gaps.front().start_ns, 0);
    EXPECT_EQ(d.gaps.front().op_before, -1);
    EXPECT_EQ(m.ops.source_id[d.gaps.front().op_after], 1);
    EXPECT_EQ(d.gaps.back().start_ns, 470);
    EXPECT_EQ(d.gaps.back().end_ns, 600);
    EXPECT_EQ(d.gaps.back().op_after, -1);
  }
}

TEST(IdleGaps, OpsCrossingTheWindowAreClipped) {
  for (const TraceModel& m : testing::ModelsBothWays(TwoStreams(), "gaps")) {
    IdleGapsResult r = Gaps(m, Window{250, 420, {}}, 0);
    const DeviceGaps& d = r.devices[0];
    EXPECT_EQ(d.busy_ns, 50 + 20);  // [250,300) and [400,420)
    EXPECT_EQ(d.idle_ns, 100);
    EXPECT_EQ(d.gap_count, 1);
  }
}

TEST(IdleGaps, TouchingOpsLeaveNoGapAndZeroLengthOpsDoNotSplitOne) {
  SyntheticTrace t;
  t.Device(0).Stream(1);
  t.Kernel(1, 10, 100);
  t.Kernel(1, 100, 200);
  t.Kernel(1, 250, 250);
  t.Kernel(1, 300, 400);
  for (const TraceModel& m : testing::ModelsBothWays(t, "gaps")) {
    IdleGapsResult r = Gaps(m, WholeTraceWindow(m), 0);
    const DeviceGaps& d = r.devices[0];
    EXPECT_EQ(d.gap_count, 1);
    ASSERT_EQ(d.gaps.size(), 1u);
    EXPECT_EQ(d.gaps[0].start_ns, 200);
    EXPECT_EQ(d.gaps[0].end_ns, 300);
    EXPECT_EQ(d.op_count, 3);
  }
}

TEST(IdleGaps, EachDeviceHasItsOwnGaps) {
  SyntheticTrace t;
  t.Device(0).Device(1).Stream(1, 0).Stream(2, 1);
  t.Kernel(1, 10, 100);
  t.Kernel(2, 200, 300);
  for (const TraceModel& m : testing::ModelsBothWays(t, "gaps")) {
    IdleGapsResult r = Gaps(m, WholeTraceWindow(m), 0);
    ASSERT_EQ(r.devices.size(), 2u);
    EXPECT_EQ(r.devices[0].device_id, 0);
    EXPECT_EQ(r.devices[0].idle_ns, 200);  // trailing [100, 300)
    EXPECT_EQ(r.devices[0].gaps[0].op_after, -1);
    EXPECT_EQ(r.devices[1].idle_ns, 190);  // leading [10, 200)
    EXPECT_EQ(r.devices[1].gaps[0].op_before, -1);
  }
}

TEST(IdleGaps, ADeviceWithNoOpsInTheWindowIsIdleThroughout) {
  for (const TraceModel& m : testing::ModelsBothWays(TwoStreams(), "gaps")) {
    IdleGapsResult r = Gaps(m, Window{1000, 2000, {}}, 0);
    EXPECT_EQ(r.devices[0].idle_ns, 1000);
    EXPECT_EQ(r.devices[0].op_count, 0);
    EXPECT_TRUE(r.streams.empty());
  }
}

}  // namespace
}  // namespace streamscope
