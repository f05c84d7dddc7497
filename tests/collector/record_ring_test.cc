// The flight recorder's ring: its bound, wrap-around, the records it never
// drops, and names that outlive CUPTI's buffers.
#include "collector/record_ring.h"

#include <gtest/gtest.h>

#include <string>

namespace streamscope::collector {
namespace {

KernelRecord Kernel(uint32_t correlation, uint64_t start, std::string_view name = "k") {
  KernelRecord k;
  k.correlation_id = correlation;
  k.start_ns = start;
  k.end_ns = start + 5;
  k.name = name;
  return k;
}

std::vector<uint32_t> Correlations(const RecordBatch& batch) {
  std::vector<uint32_t> out;
  for (const TraceRecord& r : batch) {
    if (const auto* k = std::get_if<KernelRecord>(&r)) out.push_back(k->correlation_id);
  }
  return out;
}

TEST(RingBound, ReadsSpansAndCounts) {
  EXPECT_EQ(RingBound::Parse("30s")->span_ns, 30'000'000'000u);
  EXPECT_EQ(RingBound::Parse("30s")->max_records, kDefaultMaxRecords) << "a span is capped in records too";
  EXPECT_EQ(RingBound::Parse("250ms")->span_ns, 250'000'000u);
  EXPECT_EQ(RingBound::Parse("2m")->span_ns, 120'000'000'000u);
  EXPECT_EQ(RingBound::Parse("1000")->max_records, 1000u);
  EXPECT_EQ(RingBound::Parse("1000")->span_ns, 0u);
  EXPECT_EQ(RingBound::Parse("30s")->ToString(), "30s, at most 500000 records");
  for (std::string_view bad : {"", "0", "0s", "30h", "s", "-5s", "10 s"})
    EXPECT_FALSE(RingBound::Parse(bad).ok()) << bad;
}

TEST(RecordRing, ACountBoundKeepsTheNewestRecordsAcrossWrapAround) {
  RecordRing ring(RingBound{3, 0});
  for (uint32_t i = 1; i <= 10; ++i) {
    RecordBatch b;
    b.emplace_back(Kernel(i, i * 100));
    ring.Add(&b);
    EXPECT_LE(ring.size(), 3u);
  }
  EXPECT_EQ(Correlations(ring.Snapshot()), (std::vector<uint32_t>{8, 9, 10}));
  EXPECT_EQ(ring.evicted(), 7u);
  EXPECT_EQ(ring.first_ns(), 800u);
  EXPECT_EQ(ring.last_ns(), 1000u);
}

TEST(RecordRing, ASpanBoundKeepsWhatIsWithinTheSpanOfTheNewest) {
  RecordRing ring(RingBound{0, 250});
  RecordBatch b;
  for (uint32_t i = 1; i <= 10; ++i) b.emplace_back(Kernel(i, i * 100));
  ring.Add(&b);
  EXPECT_TRUE(b.empty());
  // Newest at 1000: kept from 750 on.
  EXPECT_EQ(Correlations(ring.Snapshot()), (std::vector<uint32_t>{8, 9, 10}));
}

TEST(RecordRing, DevicesStreamsAndContextsAreNeverDropped) {
  RecordRing ring(RingBound{2, 0});
  RecordBatch b;
  b.emplace_back(StreamRecord{7, 1, 0, 2});
  DeviceRecord d;
  d.name = "H200";
  b.emplace_back(d);
  for (uint32_t i = 1; i <= 5; ++i) b.emplace_back(Kernel(i, i * 100));
  ring.Add(&b);
  RecordBatch snap = ring.Snapshot();
  ASSERT_EQ(snap.size(), 4u);
  EXPECT_TRUE(std::holds_alternative<StreamRecord>(snap[0]));
  EXPECT_EQ(std::get<DeviceRecord>(snap[1]).name, "H200");
  EXPECT_EQ(Correlations(snap), (std::vector<uint32_t>{4, 5}));
}

TEST(RecordRing, NamesOutliveTheBufferTheyCameFrom) {
  RecordRing ring(RingBound{10, 0});
  {
    std::string buffer = "gemm_kernel";  // stands for a CUPTI buffer, reused once decoded
    RecordBatch b;
    b.emplace_back(Kernel(1, 100, buffer));
    MarkerRecord m;
    m.phase = MarkerRecord::Phase::kStart;
    m.ts_ns = 90;
    m.name = std::string_view(buffer).substr(0, 4);
    b.emplace_back(m);
    ring.Add(&b);
    buffer.assign(buffer.size(), 'x');
  }
  RecordBatch snap = ring.Snapshot();
  EXPECT_EQ(std::get<KernelRecord>(snap[0]).name, "gemm_kernel");
  EXPECT_EQ(std::get<MarkerRecord>(snap[1]).name, "gemm");
}

}  // namespace
}  // namespace streamscope::collector
