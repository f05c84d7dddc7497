// Known-answer tests of the overlap analysis (docs/DEFINITIONS.md: overlap). Each
// synthetic trace is checked twice: as a model built directly and as a real
// trace file read back through the importer.
#include "analyzer/analysis/overlap_gaps/overlap.h"

#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::SyntheticTrace;

constexpr int kComputeH2D = 0;  // pair indices follow category order
int Pair(OpCategory a, OpCategory b) { return OverlapPairIndex(a, b); }

Window Whole(const TraceModel& m) { return WholeTraceWindow(m); }

const DeviceOverlap& Device(const OverlapResult& r, int32_t id) {
  for (const DeviceOverlap& d : r.devices) {
    if (d.device_id == id) return d;
  }
  ADD_FAILURE() << "no device " << id;
  static DeviceOverlap none;
  return none;
}

std::vector<int64_t> IntervalSourceIds(const TraceModel& m, const DeviceOverlap& d, const OverlapInterval& iv) {
  std::vector<int64_t> ids;
  for (uint32_t i = 0; i < iv.ops_kept; ++i) ids.push_back(m.ops.source_id[d.interval_ops[iv.ops_offset + i]]);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(Overlap, PairIndicesNameTheirCategories) {
  EXPECT_EQ(Pair(OpCategory::kKernel, OpCategory::kHtoD), kComputeH2D);
  EXPECT_EQ(Pair(OpCategory::kHtoD, OpCategory::kKernel), kComputeH2D);
  EXPECT_EQ(OverlapPairName(kComputeH2D), "compute|H2D");
  EXPECT_EQ(OverlapPairName(kComputeComputePair), "compute|compute");
  EXPECT_EQ(Pair(OpCategory::kKernel, OpCategory::kKernel), kComputeComputePair);
  EXPECT_EQ(Pair(OpCategory::kHtoD, OpCategory::kHtoD), -1);
}

TEST(Overlap, CopyComputeOverlapIsMeasuredAgainstTheHideableTime) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2).Stream(3);
  t.Kernel(1, 100, 300, "k");              // kernel#1
  t.Copy(OpCategory::kHtoD, 2, 200, 400);  // memcpy#1
  t.Copy(OpCategory::kDtoH, 3, 350, 500);  // memcpy#2
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const DeviceOverlap& d = Device(r, 0);
    EXPECT_EQ(d.busy_ns, 400);
    EXPECT_EQ(d.category_ns[0], 200);
    EXPECT_EQ(d.category_ns[1], 200);
    EXPECT_EQ(d.category_ns[2], 150);
    EXPECT_EQ(d.copy_ns, 300);
    EXPECT_EQ(d.exposed_copy_ns, 200);  // [300, 500)
    EXPECT_EQ(d.exposed_ns[1], 100);
    EXPECT_EQ(d.exposed_ns[2], 150);

    const PairOverlap* h2d = r.Find(0, Pair(OpCategory::kKernel, OpCategory::kHtoD));
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->overlapped_ns, 100);
    EXPECT_EQ(h2d->possible_ns, 200);
    EXPECT_DOUBLE_EQ(h2d->hidden_share, 0.5);
    EXPECT_EQ(h2d->interval_count, 1);
    ASSERT_EQ(h2d->by_stream_pair.size(), 1u);
    EXPECT_EQ(m.streams[h2d->by_stream_pair[0].stream_a].id, 1);
    EXPECT_EQ(m.streams[h2d->by_stream_pair[0].stream_b].id, 2);
    EXPECT_EQ(h2d->by_stream_pair[0].overlapped_ns, 100);

    const PairOverlap* d2h = r.Find(0, Pair(OpCategory::kKernel, OpCategory::kDtoH));
    ASSERT_NE(d2h, nullptr);
    EXPECT_EQ(d2h->overlapped_ns, 0);
    EXPECT_EQ(d2h->possible_ns, 150);
    EXPECT_EQ(d2h->interval_count, 0);

    const PairOverlap* copies = r.Find(0, Pair(OpCategory::kHtoD, OpCategory::kDtoH));
    ASSERT_NE(copies, nullptr);
    EXPECT_EQ(copies->overlapped_ns, 50);

    ASSERT_EQ(d.intervals.size(), 2u);
    EXPECT_EQ(d.intervals[0].pair, kComputeH2D);
    EXPECT_EQ(d.intervals[0].start_ns, 200);
    EXPECT_EQ(d.intervals[0].end_ns, 300);
    EXPECT_EQ(d.intervals[0].ops_total, 2);
    EXPECT_EQ(m.ops.category[d.interval_ops[d.intervals[0].ops_offset]], OpCategory::kKernel);
    EXPECT_EQ(d.intervals[1].start_ns, 350);
    EXPECT_EQ(d.intervals[1].end_ns, 400);
    EXPECT_EQ(IntervalSourceIds(m, d, d.intervals[1]), (std::vector<int64_t>{1, 2}));
  }
}

TEST(Overlap, TouchingIntervalsDoNotOverlap) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 0 + 10, 100);
  t.Copy(OpCategory::kHtoD, 2, 100, 200);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const PairOverlap* p = r.Find(0, kComputeH2D);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->overlapped_ns, 0);
    EXPECT_EQ(p->interval_count, 0);
    EXPECT_TRUE(Device(r, 0).intervals.empty());
    EXPECT_EQ(Device(r, 0).exposed_copy_ns, 100);
  }
}

TEST(Overlap, ZeroLengthOpsNeverOverlapAnything) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 10, 110);
  t.Copy(OpCategory::kHtoD, 2, 50, 50);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    EXPECT_EQ(r.Find(0, kComputeH2D), nullptr);
    EXPECT_EQ(Device(r, 0).op_count[1], 0);
    EXPECT_EQ(Device(r, 0).category_ns[1], 0);
    EXPECT_EQ(Device(r, 0).busy_ns, 100);
  }
}

TEST(Overlap, OpsCrossingTheWindowBordersAreClipped) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 10, 1000);
  t.Copy(OpCategory::kHtoD, 2, 500, 1500);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    Window w{600, 1200, {}};
    OverlapResult r = AnalyzeOverlap(m, w, {});
    const DeviceOverlap& d = Device(r, 0);
    EXPECT_EQ(d.category_ns[0], 400);
    EXPECT_EQ(d.category_ns[1], 600);
    EXPECT_EQ(d.busy_ns, 600);
    const PairOverlap* p = r.Find(0, kComputeH2D);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->overlapped_ns, 400);
    EXPECT_EQ(p->possible_ns, 400);
    EXPECT_DOUBLE_EQ(p->hidden_share, 1.0);
    ASSERT_EQ(d.intervals.size(), 1u);
    EXPECT_EQ(d.intervals[0].start_ns, 600);
    EXPECT_EQ(d.intervals[0].end_ns, 1000);
    // An op entirely outside the window is not counted.
    OverlapResult before = AnalyzeOverlap(m, Window{1600, 1700, {}}, {});
    EXPECT_EQ(Device(before, 0).busy_ns, 0);
    EXPECT_TRUE(Device(before, 0).pairs.empty());
  }
}

TEST(Overlap, KernelsOnDifferentStreamsCountAsComputeConcurrency) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2).Stream(3);
  t.Kernel(1, 10, 100);
  t.Kernel(2, 50, 150);
  t.Kernel(3, 60, 70);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const PairOverlap* p = r.Find(0, kComputeComputePair);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->overlapped_ns, 50);  // [50, 100)
    EXPECT_EQ(p->possible_ns, 140);   // compute union [10, 150)
    EXPECT_EQ(p->interval_count, 1);
    ASSERT_EQ(p->by_stream_pair.size(), 3u);
    EXPECT_EQ(m.streams[p->by_stream_pair[0].stream_a].id, 1);
    EXPECT_EQ(m.streams[p->by_stream_pair[0].stream_b].id, 2);
    EXPECT_EQ(p->by_stream_pair[0].overlapped_ns, 50);
    EXPECT_EQ(p->by_stream_pair[1].overlapped_ns, 10);
    EXPECT_EQ(p->by_stream_pair[2].overlapped_ns, 10);
    const DeviceOverlap& d = Device(r, 0);
    ASSERT_EQ(d.intervals.size(), 1u);
    EXPECT_EQ(d.intervals[0].ops_total, 3);
  }
}

TEST(Overlap, KernelsOfOneStreamAreNotComputeConcurrency) {
  SyntheticTrace t;
  t.Device(0).Stream(1);
  t.Kernel(1, 10, 100);
  t.Kernel(1, 20, 40);  // impossible on hardware, but must not count as cross-stream
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const PairOverlap* p = r.Find(0, kComputeComputePair);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->overlapped_ns, 0);
  }
}

TEST(Overlap, AnIntervalLastsWhileBothCategoriesRunEvenIfItsOpsChange) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 10, 100);
  t.Kernel(1, 100, 200);
  t.Copy(OpCategory::kHtoD, 2, 50, 150);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const DeviceOverlap& d = Device(r, 0);
    ASSERT_EQ(d.intervals.size(), 1u);
    EXPECT_EQ(d.intervals[0].start_ns, 50);
    EXPECT_EQ(d.intervals[0].end_ns, 150);
    EXPECT_EQ(d.intervals[0].ops_total, 3);
    EXPECT_EQ(d.intervals[0].ops_kept, 3u);
    OverlapOptions capped;
    capped.max_ops_per_interval = 1;
    OverlapResult c = AnalyzeOverlap(m, Whole(m), capped);
    EXPECT_EQ(Device(c, 0).intervals[0].ops_kept, 1u);
    EXPECT_EQ(Device(c, 0).intervals[0].ops_total, 3);
  }
}

TEST(Overlap, ALimitKeepsTheLongestIntervalsAndExactCounts) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 10, 1000);
  t.Copy(OpCategory::kHtoD, 2, 100, 110);  // 10
  t.Copy(OpCategory::kHtoD, 2, 200, 250);  // 50
  t.Copy(OpCategory::kHtoD, 2, 300, 320);  // 20
  t.Copy(OpCategory::kHtoD, 2, 400, 430);  // 30
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapOptions limited;
    limited.max_intervals_per_pair = 2;
    OverlapResult r = AnalyzeOverlap(m, Whole(m), limited);
    const DeviceOverlap& d = Device(r, 0);
    EXPECT_EQ(d.interval_total, 4);
    EXPECT_EQ(r.Find(0, kComputeH2D)->interval_count, 4);
    EXPECT_EQ(r.Find(0, kComputeH2D)->overlapped_ns, 110);
    ASSERT_EQ(d.intervals.size(), 2u);
    EXPECT_EQ(d.intervals[0].start_ns, 200);
    EXPECT_EQ(d.intervals[1].start_ns, 400);
    EXPECT_EQ(IntervalSourceIds(m, d, d.intervals[1]), (std::vector<int64_t>{1, 4}));
    EXPECT_EQ(Device(AnalyzeOverlap(m, Whole(m), {}), 0).intervals.size(), 4u);
  }
}

TEST(Overlap, ManyStreamsAreBrokenDownPerStreamPair) {
  // 200 kernel streams (beyond the dense per-stream table) and one copy
  // stream: kernel i runs [10i, 10i+15), the H2D copy [0, 2000).
  SyntheticTrace t;
  t.Device(0);
  for (int i = 0; i < 200; ++i) t.Stream(100 + i);
  t.Stream(1000);
  for (int i = 0; i < 200; ++i) t.Kernel(100 + i, 10 * i + 1, 10 * i + 16);
  t.Copy(OpCategory::kHtoD, 1000, 1, 2001);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const PairOverlap* cc = r.Find(0, kComputeComputePair);
    ASSERT_NE(cc, nullptr);
    EXPECT_EQ(cc->overlapped_ns, 199 * 5);
    EXPECT_EQ(cc->by_stream_pair.size(), 199u);
    const PairOverlap* h2d = r.Find(0, kComputeH2D);
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->overlapped_ns, 2000);
    EXPECT_EQ(h2d->possible_ns, 2000);
    ASSERT_EQ(h2d->by_stream_pair.size(), 200u);
    int64_t sum = 0;
    for (const StreamPairTime& s : h2d->by_stream_pair) sum += s.overlapped_ns;
    EXPECT_EQ(sum, 199 * 15 + 10);
    EXPECT_EQ(h2d->by_stream_pair.back().overlapped_ns, 10);
  }
}

TEST(Overlap, DevicesAreAnalyzedSeparately) {
  SyntheticTrace t;
  t.Device(0).Device(1).Stream(1, 0).Stream(2, 1);
  t.Kernel(1, 10, 110);
  t.Copy(OpCategory::kHtoD, 2, 10, 110);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    ASSERT_EQ(r.devices.size(), 2u);
    EXPECT_EQ(r.Find(0, kComputeH2D), nullptr);
    EXPECT_EQ(r.Find(1, kComputeH2D), nullptr);
    EXPECT_EQ(Device(r, 0).category_ns[0], 100);
    EXPECT_EQ(Device(r, 1).category_ns[1], 100);
    EXPECT_EQ(Device(r, 1).exposed_copy_ns, 100);
  }
}

TEST(Overlap, MemsetsAndPeerCopiesAreTheirOwnCategories) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2).Stream(3);
  t.Kernel(1, 10, 110);
  t.Memset(2, 60, 160);
  t.Copy(OpCategory::kPtoP, 3, 100, 130);
  for (const TraceModel& m : testing::ModelsBothWays(t, "overlap")) {
    OverlapResult r = AnalyzeOverlap(m, Whole(m), {});
    const PairOverlap* ms = r.Find(0, Pair(OpCategory::kKernel, OpCategory::kMemset));
    ASSERT_NE(ms, nullptr);
    EXPECT_EQ(ms->overlapped_ns, 50);
    const PairOverlap* p2p = r.Find(0, Pair(OpCategory::kKernel, OpCategory::kPtoP));
    ASSERT_NE(p2p, nullptr);
    EXPECT_EQ(p2p->overlapped_ns, 10);
    EXPECT_EQ(p2p->possible_ns, 30);
    EXPECT_EQ(Device(r, 0).exposed_copy_ns, 20);  // P2P [110, 130); memsets are not copies
  }
}

}  // namespace
}  // namespace streamscope
