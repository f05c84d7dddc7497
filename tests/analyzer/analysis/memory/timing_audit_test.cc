#include "analyzer/analysis/memory/timing_audit.h"

#include "gtest/gtest.h"
#include "tests/analyzer/model/memory_trace_util.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::AddEventOp;
using testing::ApiTimes;
using testing::ModelBuilder;
using testing::OpIndex;
using testing::Record;
using testing::WaitEvent;

using testing::kS1;
using testing::kS2;
const Window kWhole{0, 1'000'000, {}};
constexpr int64_t kStart = 0x5A, kStop = 0x5B;

void Elapsed(ModelBuilder& b, int64_t ts, double ms) {
  AddEventOp(b, EventOp::Op::kElapsed, kStart, -1, ts, ts + 2, "cudaEventElapsedTime", kStop, ms);
}

// misleading_timing in small: start/stop recorded on s1 around one kernel,
// the other kernel submitted after the stop record on s2.
TEST(TimingAudit, EventsOnOneStreamMissTheWorkOnAnother) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  Record(b, kStart, kS1, 100);  // s1 idle: completes at ~100
  int64_t k0 = b.Kernel("chunk", kS1, 200, 1200, ApiTimes{110, 115, 1});
  Record(b, kStop, kS1, 120);  // completes when k0 ends: 1200
  int64_t k1 = b.Kernel("chunk", kS2, 300, 3000, ApiTimes{130, 135, 1});
  Elapsed(b, 3100, 1.1e-3);
  TraceModel m = b.Build();
  HappensBefore hb(m);
  TimingAuditResult r = AnalyzeTimingAudit(m, &hb, kWhole);
  EXPECT_TRUE(r.has_event_data);
  ASSERT_EQ(r.elapsed_count, 1);
  ASSERT_EQ(r.elapsed.size(), 1u);
  const ElapsedAudit& a = r.elapsed[0];
  ASSERT_TRUE(a.determined);
  EXPECT_EQ(a.start.gpu_ns, 100);
  EXPECT_EQ(a.start.after_op, -1);
  EXPECT_EQ(a.stop.gpu_ns, 1200);
  EXPECT_EQ(a.stop.after_op, OpIndex(m, "kernel", k0));
  EXPECT_EQ(a.measured_ns, 1100);
  EXPECT_EQ(a.inside_busy_ns, 1000);  // [200, 1200)
  EXPECT_EQ(a.inside_events_stream_ns, 1000);
  EXPECT_EQ(a.inside_other_streams_ns, 900);  // k1's [300, 1200)
  EXPECT_EQ(a.scope_ops, 2);
  EXPECT_EQ(a.scope_other_stream_ops, 1);
  EXPECT_EQ(a.scope_busy_ns, 2800);     // [200, 3000)
  EXPECT_EQ(a.scope_outside_ns, 1800);  // k1's [1200, 3000)
  EXPECT_EQ(a.scope_ops_outside, 1);
  EXPECT_EQ(a.scope_last_end_ns, 3000);
  EXPECT_EQ(a.running_at_stop, 1);
  ASSERT_EQ(a.running_ops.size(), 1u);
  EXPECT_EQ(a.running_ops[0], OpIndex(m, "kernel", k1));
  EXPECT_EQ(a.running_until_ns, 3000);
  EXPECT_TRUE(a.misses_work);
  EXPECT_EQ(r.elapsed_missing_work, 1);
}

TEST(TimingAudit, EventsAroundAllTheWorkMissNothing) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  Record(b, kStart, kS1, 100);
  b.Kernel("chunk", kS1, 200, 1200, ApiTimes{110, 115, 1});
  b.Kernel("chunk", kS1, 1200, 2000, ApiTimes{116, 118, 1});
  Record(b, kStop, kS1, 120);
  Elapsed(b, 3100, 1.9e-3);
  TraceModel m = b.Build();
  HappensBefore hb(m);
  TimingAuditResult r = AnalyzeTimingAudit(m, &hb, kWhole);
  ASSERT_EQ(r.elapsed.size(), 1u);
  EXPECT_EQ(r.elapsed[0].measured_ns, 1900);
  EXPECT_EQ(r.elapsed[0].scope_outside_ns, 0);
  EXPECT_EQ(r.elapsed[0].running_at_stop, 0);
  EXPECT_FALSE(r.elapsed[0].misses_work);
}

TEST(TimingAudit, AStartEventAfterAWaitCompletesAfterTheWaitedWork) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t producer = b.Kernel("produce", kS2, 100, 900, ApiTimes{50, 55, 1});
  Record(b, 0xD0, kS2, 60);
  WaitEvent(b, kS1, 0xD0, 70);
  Record(b, kStart, kS1, 80);  // s1 idle, but waits for the producer
  b.Kernel("consume", kS1, 900, 1000, ApiTimes{90, 95, 1});
  Record(b, kStop, kS1, 96);
  Elapsed(b, 2000, 0.1e-3);
  TraceModel m = b.Build();
  HappensBefore hb(m);
  TimingAuditResult r = AnalyzeTimingAudit(m, &hb, kWhole);
  ASSERT_EQ(r.elapsed.size(), 1u);
  EXPECT_EQ(r.elapsed[0].start.gpu_ns, 900);
  EXPECT_EQ(r.elapsed[0].start.after_op, OpIndex(m, "kernel", producer));
  EXPECT_EQ(r.elapsed[0].stop.gpu_ns, 1000);
}

TEST(TimingAudit, AnEventNeverRecordedIsUndetermined) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  Record(b, kStart, kS1, 100);
  Elapsed(b, 3100, 1.0);        // kStop never recorded
  Record(b, kStop, kS1, 3200);  // after the read: not the one it read
  TraceModel m = b.Build();
  HappensBefore hb(m);
  TimingAuditResult r = AnalyzeTimingAudit(m, &hb, kWhole);
  ASSERT_EQ(r.elapsed.size(), 1u);
  EXPECT_FALSE(r.elapsed[0].determined);
  EXPECT_TRUE(r.elapsed[0].start.determined);
  EXPECT_FALSE(r.elapsed[0].stop.determined);
  EXPECT_EQ(r.elapsed_undetermined, 1);
  EXPECT_EQ(r.elapsed_missing_work, 0);
}

TEST(TimingAudit, AHostRangeThatEndsBeforeItsGpuWorkIsIncomplete) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Nvtx("step", 1, 0, 500);
  int64_t late = b.Kernel("k", kS1, 200, 800, ApiTimes{100, 110, 1});
  b.Kernel("other_thread", kS1, 900, 950, ApiTimes{120, 130, 2});  // not the range's thread
  b.Nvtx("step", 1, 1000, 2000);
  b.Kernel("k", kS1, 1200, 1500, ApiTimes{1100, 1110, 1});
  b.Nvtx("host_only", 1, 3000, 3100);
  TraceModel m = b.Build();
  HappensBefore hb(m);
  TimingAuditResult r = AnalyzeTimingAudit(m, &hb, kWhole);
  EXPECT_EQ(r.nvtx_ranges, 3);
  EXPECT_EQ(r.nvtx_with_gpu_work, 2);
  EXPECT_EQ(r.nvtx_incomplete_count, 1);
  ASSERT_EQ(r.nvtx_incomplete.size(), 1u);
  EXPECT_EQ(r.nvtx_incomplete[0].ops, 1);
  EXPECT_EQ(r.nvtx_incomplete[0].ops_after_end, 1);
  EXPECT_EQ(r.nvtx_incomplete[0].overrun_ns, 300);
  EXPECT_EQ(r.nvtx_incomplete[0].last_op, OpIndex(m, "kernel", late));
  ASSERT_FALSE(r.nvtx_totals.empty());
  EXPECT_EQ(m.strings.Get(r.nvtx_totals[0].name), "step");
  EXPECT_EQ(r.nvtx_totals[0].ranges, 2);
  EXPECT_EQ(r.nvtx_totals[0].incomplete, 1);
}

TEST(TimingAudit, RandomTracesNeverCrash) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 300);
    EventOp e;
    e.op = EventOp::Op::kElapsed;
    e.event_handle = 1;
    e.other_event = 2;
    e.ts_ns = 50'000;
    m.event_ops.push_back(e);
    e.op = EventOp::Op::kRecord;
    e.stream = 0;
    e.ts_ns = 10;
    m.event_ops.push_back(e);
    HappensBefore hb(m);
    TimingAuditResult r = AnalyzeTimingAudit(m, &hb, Window{INT64_MIN / 4, INT64_MAX / 4, {}});
    EXPECT_GE(r.nvtx_ranges, 0);
  }
}

}  // namespace
}  // namespace streamscope
