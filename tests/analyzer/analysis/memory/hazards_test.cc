#include "analyzer/analysis/memory/hazards.h"

#include <random>

#include "analyzer/analysis/memory/ownership.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/memory_trace_util.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::AddAccess;
using testing::AddAllocation;
using testing::ApiTimes;
using testing::ModelBuilder;
using testing::OpIndex;
using testing::Record;
using testing::WaitEvent;
using Access = MemoryAccess::Access;

using testing::kS1;
using testing::kS2;
constexpr uint64_t kBuf = 0x7000'0000;
const Window kWhole{0, 1'000'000, {}};

// Two streams; a H2D copy on s1 into the buffer and a kernel on s2, with or
// without the event wait that orders the kernel after the copy.
struct CopyThenKernel {
  TraceModel model;
  int32_t copy = -1, kernel = -1;
  int64_t alloc = -1;
};
CopyThenKernel MakeCopyThenKernel(bool wait, int64_t kernel_start = 150) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t c = b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kS1, 100, 300, ApiTimes{10, 15, 1});
  Record(b, 0xE1, kS1, 20);
  if (wait) WaitEvent(b, kS2, 0xE1, 30);
  int64_t k = b.Kernel("consume", kS2, kernel_start, kernel_start + 200, ApiTimes{40, 45, 1});
  CopyThenKernel out{b.Build()};
  out.copy = OpIndex(out.model, "memcpy", c);
  out.kernel = OpIndex(out.model, "kernel", k);
  out.alloc = AddAllocation(out.model, kBuf, 1 << 20);
  AddAccess(out.model, out.copy, kBuf, 1 << 20, Access::kWrite, out.alloc);
  AddAccess(out.model, out.kernel, kBuf, 1 << 20, Access::kUnknown, out.alloc, 0);
  return out;
}

TEST(Hazards, KernelArgumentOnAnUnorderedStreamIsAPossibleHazard) {
  CopyThenKernel t = MakeCopyThenKernel(/*wait=*/false);
  HazardsResult r = AnalyzeHazards(t.model, kWhole);
  EXPECT_TRUE(r.has_access_data);
  EXPECT_EQ(r.certain_count, 0);
  ASSERT_EQ(r.possible_count, 1);
  const Hazard& h = r.possible[0];
  EXPECT_EQ(h.op_a, t.copy);
  EXPECT_EQ(h.op_b, t.kernel);
  EXPECT_EQ(h.allocation, t.alloc);
  EXPECT_EQ(h.access_a, Access::kWrite);
  EXPECT_EQ(h.access_b, Access::kUnknown);
  EXPECT_EQ(h.lo, kBuf);
  EXPECT_EQ(h.hi, kBuf + (1 << 20));
  EXPECT_TRUE(h.observed_concurrent);  // copy [100,300) and kernel [150,350)
  EXPECT_EQ(r.possible_observed, 1);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].count, 1);
}

TEST(Hazards, TheEventWaitRemovesTheHazard) {
  CopyThenKernel t = MakeCopyThenKernel(/*wait=*/true, 300);
  HazardsResult r = AnalyzeHazards(t.model, kWhole);
  EXPECT_EQ(r.certain_count, 0);
  EXPECT_EQ(r.possible_count, 0);
}

TEST(Hazards, UnorderedButNotOverlappingInTimeIsStillAHazard) {
  CopyThenKernel t = MakeCopyThenKernel(/*wait=*/false, 5000);
  HazardsResult r = AnalyzeHazards(t.model, kWhole);
  ASSERT_EQ(r.possible_count, 1);
  EXPECT_FALSE(r.possible[0].observed_concurrent);
  EXPECT_EQ(r.possible_observed, 0);
}

// Two copies on two streams touching [a_lo, a_hi) and [b_lo, b_hi).
HazardsResult TwoCopies(uint64_t a_lo, uint64_t a_hi, Access a, uint64_t b_lo, uint64_t b_hi, Access bacc,
                        bool same_stream = false) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t c1 = b.Copy(OpCategory::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, kS1, 100, 300, ApiTimes{10, 15, 1});
  int64_t c2 = b.Copy(OpCategory::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, same_stream ? kS1 : kS2, 400, 500,
                      ApiTimes{20, 25, 1});
  TraceModel m = b.Build();
  int64_t alloc = AddAllocation(m, kBuf, 4096);
  AddAccess(m, OpIndex(m, "memcpy", c1), kBuf + a_lo, a_hi - a_lo, a, alloc);
  AddAccess(m, OpIndex(m, "memcpy", c2), kBuf + b_lo, b_hi - b_lo, bacc, alloc);
  return AnalyzeHazards(m, kWhole);
}

TEST(Hazards, TwoKnownWritesOnUnorderedStreamsAreCertain) {
  HazardsResult r = TwoCopies(0, 1024, Access::kWrite, 0, 1024, Access::kWrite);
  EXPECT_EQ(r.certain_count, 1);
  EXPECT_EQ(r.possible_count, 0);
  EXPECT_FALSE(r.certain[0].observed_concurrent);
}

TEST(Hazards, AKnownReadAgainstAWriteIsCertain) {
  HazardsResult r = TwoCopies(0, 1024, Access::kRead, 0, 1024, Access::kWrite);
  EXPECT_EQ(r.certain_count, 1);
}

TEST(Hazards, TwoReadsNeverConflict) {
  HazardsResult r = TwoCopies(0, 1024, Access::kRead, 0, 1024, Access::kRead);
  EXPECT_EQ(r.certain_count + r.possible_count, 0);
}

TEST(Hazards, PartiallyOverlappingRangesReportTheSharedBytes) {
  HazardsResult r = TwoCopies(0, 1024, Access::kWrite, 512, 2048, Access::kRead);
  ASSERT_EQ(r.certain_count, 1);
  EXPECT_EQ(r.certain[0].lo, kBuf + 512);
  EXPECT_EQ(r.certain[0].hi, kBuf + 1024);
}

TEST(Hazards, TouchingRangesDoNotOverlap) {
  HazardsResult r = TwoCopies(0, 1024, Access::kWrite, 1024, 2048, Access::kWrite);
  EXPECT_EQ(r.certain_count + r.possible_count, 0);
}

TEST(Hazards, TheSameStreamIsAlwaysOrdered) {
  HazardsResult r = TwoCopies(0, 1024, Access::kWrite, 0, 1024, Access::kWrite, /*same_stream=*/true);
  EXPECT_EQ(r.certain_count + r.possible_count, 0);
}

TEST(Hazards, SeveralArgumentsOfOneKernelGiveOneHazardPerOpPair) {
  CopyThenKernel t = MakeCopyThenKernel(false);
  AddAccess(t.model, t.kernel, kBuf + 64, 128, Access::kUnknown, t.alloc, 1);
  HazardsResult r = AnalyzeHazards(t.model, kWhole);
  EXPECT_EQ(r.possible_count, 1);
}

TEST(Hazards, AccessesWithoutAnOpAreCountedNotFatal) {
  CopyThenKernel t = MakeCopyThenKernel(false);
  MemoryAccess orphan;
  orphan.correlation_id = 987654;  // no op has it (a launch captured into a graph)
  orphan.address = kBuf;
  orphan.bytes = 64;
  orphan.access = Access::kWrite;
  t.model.memory_accesses.push_back(orphan);
  MemoryAccess empty = orphan;
  empty.correlation_id = t.model.ops.correlation_id[t.copy];
  empty.bytes = 0;
  t.model.memory_accesses.push_back(empty);
  MemoryAccess huge = empty;  // wraps past 2^64: clamped, no crash
  huge.address = UINT64_MAX - 10;
  huge.bytes = 100;
  huge.allocation = 12345;  // no such allocation
  t.model.memory_accesses.push_back(huge);
  HazardsResult r = AnalyzeHazards(t.model, kWhole);
  EXPECT_EQ(r.stats.accesses_without_op, 1);
  EXPECT_EQ(r.stats.accesses_empty, 1);
  EXPECT_EQ(r.stats.access_rows, 5);
  EXPECT_EQ(r.possible_count, 1);
}

TEST(Hazards, AHazardBelongsToTheWindowOfItsLaterOp) {
  CopyThenKernel t = MakeCopyThenKernel(false, 5000);
  EXPECT_EQ(AnalyzeHazards(t.model, Window{0, 1000, {}}).possible_count, 0);
  EXPECT_EQ(AnalyzeHazards(t.model, Window{1000, 10000, {}}).possible_count, 1);
}

TEST(Hazards, NoAccessRecordsMeansNotChecked) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Kernel("k", kS1, 100, 200, ApiTimes{10, 15, 1});
  TraceModel m = b.Build();
  HazardsResult r = AnalyzeHazards(m, kWhole);
  EXPECT_FALSE(r.has_access_data);
  EXPECT_EQ(r.certain_count + r.possible_count, 0);
}

TEST(Ownership, ListsEveryAccessOfAnAllocationInTimeOrder) {
  CopyThenKernel t = MakeCopyThenKernel(false);
  OwnershipResult r = AnalyzeOwnership(t.model, kWhole);
  ASSERT_EQ(r.allocations.size(), 1u);
  const AllocationOwnership& a = r.allocations[0];
  EXPECT_EQ(a.allocation, t.alloc);
  ASSERT_EQ(a.accesses.size(), 2u);
  EXPECT_EQ(a.accesses[0].op, t.copy);
  EXPECT_EQ(a.accesses[1].op, t.kernel);
  EXPECT_EQ(a.writes, 1);
  EXPECT_EQ(a.unknown, 1);
  EXPECT_TRUE(a.shared());
}

// Copies on stream 1 writing [lo_i, lo_i + 64), then one on stream 2
// writing [0, 64); nothing orders the streams.
TraceModel ManyCopiesThenOne(const std::vector<uint64_t>& s1_offsets, std::vector<int32_t>* s1_ops, int32_t* last) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  std::vector<int64_t> ids;
  int64_t t = 10;
  for (size_t i = 0; i < s1_offsets.size(); ++i, t += 10) {
    ids.push_back(b.Copy(OpCategory::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, kS1, 1000 + t * 10, 1050 + t * 10,
                         ApiTimes{t, t + 1, 1}));
  }
  int64_t y =
      b.Copy(OpCategory::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, kS2, 90000, 90050, ApiTimes{t, t + 1, 1});
  TraceModel m = b.Build();
  int64_t alloc = AddAllocation(m, kBuf, 1 << 20);
  for (size_t i = 0; i < ids.size(); ++i) {
    s1_ops->push_back(OpIndex(m, "memcpy", ids[i]));
    AddAccess(m, s1_ops->back(), kBuf + s1_offsets[i], 64, Access::kWrite, alloc);
  }
  *last = OpIndex(m, "memcpy", y);
  AddAccess(m, *last, kBuf, 64, Access::kWrite, alloc);
  return m;
}

TEST(Hazards, OnlyTheMostRecentUnorderedAccessOfEachStreamIsPaired) {
  std::vector<int32_t> s1;
  int32_t y = -1;
  TraceModel m = ManyCopiesThenOne(std::vector<uint64_t>(10, 0), &s1, &y);
  HazardsResult r = AnalyzeHazards(m, kWhole);
  ASSERT_EQ(r.certain_count, 1);  // ordering the last one would order the nine before it too
  EXPECT_EQ(r.certain[0].op_a, s1.back());
  EXPECT_EQ(r.certain[0].op_b, y);
}

TEST(Hazards, AWalkPastTheScanLimitIsCountedAsTruncated) {
  std::vector<uint64_t> offsets = {0};
  for (int i = 1; i < 20; ++i) offsets.push_back(4096 * i);  // only the first overlaps [0, 64)
  std::vector<int32_t> s1;
  int32_t y = -1;
  TraceModel m = ManyCopiesThenOne(offsets, &s1, &y);
  HazardOptions o;
  o.max_scan_per_stream = 8;
  HazardsResult cut = AnalyzeHazards(m, kWhole, o);
  EXPECT_EQ(cut.certain_count, 0);
  EXPECT_EQ(cut.stats.scans_truncated, 1);
  HazardsResult full = AnalyzeHazards(m, kWhole);
  ASSERT_EQ(full.certain_count, 1);
  EXPECT_EQ(full.certain[0].op_a, s1.front());
  EXPECT_EQ(full.stats.scans_truncated, 0);
}

TEST(Hazards, ACertainHazardBehindAPossibleOneIsStillFound) {
  ModelBuilder b;
  b.Stream(kS1, StreamKind::kNonBlocking);
  b.Stream(kS2, StreamKind::kNonBlocking);
  int64_t fill =
      b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kS1, 100, 200, ApiTimes{10, 11, 1});
  int64_t k = b.Kernel("use", kS1, 200, 300, ApiTimes{20, 21, 1});
  int64_t out = b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, kS2, 150, 250, ApiTimes{30, 31, 1});
  TraceModel m = b.Build();
  int64_t alloc = AddAllocation(m, kBuf, 4096);
  AddAccess(m, OpIndex(m, "memcpy", fill), kBuf, 4096, Access::kWrite, alloc);
  AddAccess(m, OpIndex(m, "kernel", k), kBuf, 4096, Access::kUnknown, alloc, 0);
  AddAccess(m, OpIndex(m, "memcpy", out), kBuf, 4096, Access::kRead, alloc);
  HazardsResult r = AnalyzeHazards(m, kWhole);
  ASSERT_EQ(r.certain_count, 1);
  EXPECT_EQ(r.certain[0].op_a, OpIndex(m, "memcpy", fill));
  ASSERT_EQ(r.possible_count, 1);
  EXPECT_EQ(r.possible[0].op_a, OpIndex(m, "kernel", k));
  EXPECT_EQ(r.certain_observed, 1);  // [100, 200) and [150, 250)
}

TEST(Hazards, RandomAccessesOnRandomTracesNeverCrash) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 300);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 3; ++i) AddAllocation(m, kBuf + i * 4096, 4096);
    for (size_t op = 0; op < m.ops.size(); ++op) {
      if (rng() % 2 || m.ops.correlation_id[op] < 0) continue;
      AddAccess(m, static_cast<int32_t>(op), kBuf + rng() % 8192, rng() % 4096, static_cast<Access>(rng() % 3),
                static_cast<int64_t>(rng() % 5) - 1);
    }
    HazardsResult r = AnalyzeHazards(m, kWhole);
    EXPECT_GE(r.certain_count + r.possible_count, 0);
  }
}

}  // namespace
}  // namespace streamscope
