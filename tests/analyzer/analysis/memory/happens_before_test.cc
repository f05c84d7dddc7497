#include "analyzer/analysis/memory/happens_before.h"

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
constexpr int64_t kS3 = 13, kLegacy = 7;

// A kernel on `stream` submitted by a call at `call` and running [start, end).
int64_t K(ModelBuilder& b, int64_t stream, int64_t call, int64_t start, int64_t end) {
  return b.Kernel("k", stream, start, end, ApiTimes{call, call + 5, 1});
}

struct Ops {
  TraceModel model;
  int32_t Op(int64_t kernel_id) const { return OpIndex(model, "kernel", kernel_id); }
};

TEST(HappensBefore, SameStreamOpsAreOrderedBySubmission) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 1000, 2000), k2 = K(b, kS1, 200, 2000, 3000);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k2)));
  EXPECT_FALSE(hb.Ordered(o.Op(k2), o.Op(k1)));
  EXPECT_FALSE(hb.Ordered(o.Op(k1), o.Op(k1)));
}

TEST(HappensBefore, OpsOnTwoNonBlockingStreamsAreUnordered) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  // k2 even ran after k1 ended: what happened is not what was guaranteed.
  int64_t k1 = K(b, kS1, 100, 1000, 2000), k2 = K(b, kS2, 200, 5000, 6000);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Unordered(o.Op(k1), o.Op(k2)));
}

TEST(HappensBefore, StreamWaitEventOrdersLaterCommandsAfterTheRecord) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t before_wait = K(b, kS2, 50, 100, 200);
  int64_t k1 = K(b, kS1, 100, 1000, 2000);
  Record(b, /*handle=*/0xE1, kS1, 200);
  int64_t after_record = K(b, kS1, 250, 2000, 3000);
  WaitEvent(b, kS2, 0xE1, 300);
  int64_t k2 = K(b, kS2, 400, 2000, 2500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k2)));
  EXPECT_FALSE(hb.Ordered(o.Op(after_record), o.Op(k2)));  // recorded before it was submitted
  EXPECT_TRUE(hb.Unordered(o.Op(k1), o.Op(before_wait)));  // submitted before the wait
  EXPECT_EQ(hb.stats().at("edge_event_wait"), 1);
}

TEST(HappensBefore, WaitUsesTheMostRecentRecordBeforeTheWaitCall) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  b.Stream(kS3, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 1000, 2000);
  Record(b, 0xE1, kS1, 200);
  int64_t k2 = K(b, kS1, 300, 2000, 3000);
  WaitEvent(b, kS2, 0xE1, 350);  // sees the first record only
  int64_t on_s2 = K(b, kS2, 360, 2000, 2100);
  Record(b, 0xE1, kS1, 400);  // re-recorded after k2
  WaitEvent(b, kS3, 0xE1, 450);
  int64_t on_s3 = K(b, kS3, 460, 3000, 3100);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(on_s2)));
  EXPECT_FALSE(hb.Ordered(o.Op(k2), o.Op(on_s2)));  // a later record changes nothing retroactively
  EXPECT_TRUE(hb.Ordered(o.Op(k2), o.Op(on_s3)));
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(on_s3)));
}

TEST(HappensBefore, WaitOnANeverRecordedEventOrdersNothing) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 1000, 2000);
  WaitEvent(b, kS2, 0xE9, 200);
  Record(b, 0xE9, kS1, 300);
  int64_t k2 = K(b, kS2, 400, 2000, 3000);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Unordered(o.Op(k1), o.Op(k2)));
  EXPECT_EQ(hb.stats().at("wait_before_record"), 1);
}

TEST(HappensBefore, TransitiveThroughTwoWaits) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  b.Stream(kS3, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 1000, 2000);
  Record(b, 0xA, kS1, 150);
  WaitEvent(b, kS2, 0xA, 200);
  int64_t k2 = K(b, kS2, 250, 2000, 2500);
  Record(b, 0xB, kS2, 300);
  WaitEvent(b, kS3, 0xB, 350);
  int64_t k3 = K(b, kS3, 400, 2500, 2600);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k2), o.Op(k3)));
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k3)));
}

TEST(HappensBefore, StreamSynchronizeOrdersWhatIsSubmittedAfterItReturns) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300);
  b.Sync(SyncKind::kStreamSynchronize, kS1, 120, 310, "cudaStreamSynchronize");
  int64_t during = b.Kernel("k", kS2, 350, 400, ApiTimes{200, 205, 2});  // other thread, mid-sync
  int64_t after = K(b, kS2, 320, 400, 500);
  int64_t late_on_s1 = K(b, kS1, 115, 300, 350);  // submitted before the sync started: covered too
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(after)));
  EXPECT_TRUE(hb.Ordered(o.Op(late_on_s1), o.Op(after)));
  EXPECT_TRUE(hb.Unordered(o.Op(k1), o.Op(during)));
}

TEST(HappensBefore, EventSynchronizeCoversTheRecordedWork) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300);
  Record(b, 0xE1, kS1, 150);
  int64_t after_record = K(b, kS1, 160, 300, 900);
  AddEventOp(b, EventOp::Op::kSynchronize, 0xE1, -1, 170, 310, "cudaEventSynchronize");
  int64_t k2 = K(b, kS2, 320, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k2)));
  EXPECT_TRUE(hb.Unordered(o.Op(after_record), o.Op(k2)));
}

TEST(HappensBefore, EventQueryOrdersOnlyWhenItReportedCompletion) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  b.Stream(kS3, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300);
  Record(b, 0xE1, kS1, 150);
  AddEventOp(b, EventOp::Op::kQuery, 0xE1, -1, 160, 165, "cudaEventQuery", 0, 0, /*cudaErrorNotReady*/ 600);
  int64_t k2 = K(b, kS2, 170, 400, 500);
  AddEventOp(b, EventOp::Op::kQuery, 0xE1, -1, 350, 355, "cudaEventQuery", 0, 0, /*cudaSuccess*/ 0);
  int64_t k3 = K(b, kS3, 360, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Unordered(o.Op(k1), o.Op(k2)));
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k3)));
}

TEST(HappensBefore, DeviceSynchronizeCoversEveryStream) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  b.Stream(kS3, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300), k2 = K(b, kS2, 110, 200, 400);
  b.Api("cudaDeviceSynchronize", 1, 150, 410);
  int64_t k3 = K(b, kS3, 420, 500, 600);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k3)));
  EXPECT_TRUE(hb.Ordered(o.Op(k2), o.Op(k3)));
  EXPECT_TRUE(hb.Unordered(o.Op(k1), o.Op(k2)));
}

TEST(HappensBefore, SynchronousMemcpyHoldsTheHostUntilItsCopyIsDone) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t running = K(b, kS1, 50, 60, 1000);
  int64_t copy = b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kS2, 150, 390,
                        ApiTimes{100, 400, 1}, "cudaMemcpy", false);
  int64_t after = K(b, kS1, 500, 1000, 1100);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  int32_t c = OpIndex(o.model, "memcpy", copy);
  EXPECT_TRUE(hb.Ordered(c, o.Op(after)));
  EXPECT_TRUE(hb.Unordered(o.Op(running), c));  // a copy is not a device-wide drain
}

TEST(HappensBefore, CudaFreeDrainsTheDevice) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300);
  b.Api("cudaFree", 1, 150, 310);
  int64_t k2 = K(b, kS2, 320, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k2)));
  EXPECT_EQ(hb.stats().at("edge_sync_call"), 1);
}

TEST(HappensBefore, LegacyDefaultStreamOrdersBlockingStreamsBothWays) {
  ModelBuilder b;
  b.Stream(kLegacy, StreamKind::kLegacyDefault);
  b.Stream(kS1, StreamKind::kBlocking);
  b.Stream(kS2, StreamKind::kBlocking);
  int64_t before = K(b, kS1, 100, 200, 300);
  int64_t legacy = K(b, kLegacy, 200, 300, 400);
  int64_t after = K(b, kS2, 300, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(before), o.Op(legacy)));
  EXPECT_TRUE(hb.Ordered(o.Op(legacy), o.Op(after)));
  EXPECT_TRUE(hb.Ordered(o.Op(before), o.Op(after)));  // through the legacy op
  EXPECT_GT(hb.stats().at("edge_legacy_stream"), 0);
}

TEST(HappensBefore, NonBlockingStreamsAreExemptFromTheLegacyStream) {
  ModelBuilder b;
  b.Stream(kLegacy, StreamKind::kLegacyDefault);
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t before = K(b, kS1, 100, 200, 300);
  int64_t legacy = K(b, kLegacy, 200, 300, 400);
  int64_t after = K(b, kS2, 300, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Unordered(o.Op(before), o.Op(legacy)));
  EXPECT_TRUE(hb.Unordered(o.Op(legacy), o.Op(after)));
}

TEST(HappensBefore, PerThreadDefaultStreamSynchronizesWithLegacyOnly) {
  ModelBuilder b;
  b.Stream(kLegacy, StreamKind::kLegacyDefault);
  b.Stream(kS1, StreamKind::kPerThreadDefault);
  b.Stream(kS2, StreamKind::kBlocking);
  int64_t ptds = K(b, kS1, 100, 200, 300);
  int64_t blocking = K(b, kS2, 150, 200, 300);
  int64_t legacy = K(b, kLegacy, 200, 300, 400);
  int64_t ptds_after = K(b, kS1, 300, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Unordered(o.Op(ptds), o.Op(blocking)));  // no legacy op between them
  EXPECT_TRUE(hb.Ordered(o.Op(ptds), o.Op(legacy)));
  EXPECT_TRUE(hb.Ordered(o.Op(legacy), o.Op(ptds_after)));
  EXPECT_TRUE(hb.Ordered(o.Op(blocking), o.Op(ptds_after)));
}

TEST(HappensBefore, SynchronizingTheLegacyStreamCoversBlockingStreams) {
  ModelBuilder b;
  b.Stream(kLegacy, StreamKind::kLegacyDefault);
  b.Stream(kS1, StreamKind::kBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300);
  b.Sync(SyncKind::kStreamSynchronize, kLegacy, 150, 310, "cudaStreamSynchronize");
  int64_t k2 = K(b, kS2, 320, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k2)));
}

TEST(HappensBefore, EventRecordedOnTheLegacyStreamCoversBlockingStreams) {
  ModelBuilder b;
  b.Stream(kLegacy, StreamKind::kLegacyDefault);
  b.Stream(kS1, StreamKind::kBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t k1 = K(b, kS1, 100, 200, 300);
  Record(b, 0xE1, kLegacy, 150);
  WaitEvent(b, kS2, 0xE1, 160);
  int64_t k2 = K(b, kS2, 170, 400, 500);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  EXPECT_TRUE(hb.Ordered(o.Op(k1), o.Op(k2)));
}

TEST(HappensBefore, RecordCoverCountsTheRecordedPrefix) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  K(b, kS1, 100, 200, 300);
  K(b, kS1, 110, 300, 400);
  Record(b, 0xE1, kS1, 120);
  Ops o{b.Build()};
  HappensBefore hb(o.model);
  std::vector<uint32_t> cover = hb.RecordCover(0);
  ASSERT_EQ(cover.size(), o.model.streams.size());
  EXPECT_EQ(cover[o.model.stream_index.at(kS1)], 2u);
  EXPECT_EQ(cover[o.model.stream_index.at(kS2)], 0u);
}

TEST(HappensBefore, OpsWithoutCallsOrStreamsDoNotCrash) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  int64_t k1 = b.Kernel("k", kS1, 100, 200);  // no call: submitted "at" its start
  int64_t k2 = b.Kernel("k", kS1, 300, 400);
  Record(b, 0xE1, -1, 150);  // record with no stream
  WaitEvent(b, kS1, 0xE1, 160);
  TraceModel m = b.Build();
  m.ops.stream.Set(OpIndex(m, "kernel", k2), -1);
  HappensBefore hb(m);
  EXPECT_FALSE(hb.Ordered(OpIndex(m, "kernel", k1), OpIndex(m, "kernel", k2)));
  EXPECT_EQ(hb.stats().at("op_without_call"), 2);
  EXPECT_EQ(hb.stats().at("op_without_stream"), 1);
  EXPECT_EQ(hb.stats().at("event_op_without_stream"), 1);
}

TEST(HappensBefore, RandomInconsistentTracesNeverCrash) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    HappensBefore hb(m);
    size_t ordered = 0;
    for (size_t i = 1; i < m.ops.size(); ++i)
      ordered += hb.Ordered(static_cast<int32_t>(i - 1), static_cast<int32_t>(i));
    EXPECT_LE(ordered, m.ops.size());
  }
}

}  // namespace
}  // namespace streamscope
