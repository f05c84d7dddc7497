// Known-answer tests for analysis 7 (diagnose): each synthetic trace plants
// exactly one cause, which must come first.
#include "analyzer/analysis/causes/diagnose.h"

#include <sstream>

#include "analyzer/render/diagnose_render.h"
#include "analyzer/render/diagnose_wording.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/diagnose_unranked.h"
#include "tests/analyzer/analysis/windows/test_windows.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_device.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;
using testing::TestDevice;

using testing::k16MiB;
using testing::us;

void AddDevice(ModelBuilder& b, int copy_engines = 2, int concurrent_kernels = 1) {
  b.model().devices.push_back(
      TestDevice({.async_engine_count = copy_engines, .concurrent_kernels = concurrent_kernels}));
}

// The whole GPU activity of a model: first op start to last op end.
using testing::GpuWindow;

DiagnoseResult Diagnose(const TraceModel& m, const DiagnoseOptions& o = {}) {
  return testing::DiagnoseUnranked(m, GpuWindow(m), o);
}

std::string Causes(const DiagnoseResult& r) {
  std::string s;
  for (const DiagnoseFinding& f : r.findings) {
    s += std::string(DiagnoseCauseName(f.cause)) + "(" + std::to_string(f.impact_ns) +
         (f.significant ? ") " : ", minor) ");
  }
  return s;
}

std::vector<int64_t> SourceIds(const TraceModel& m, const std::vector<int32_t>& ops) {
  std::vector<int64_t> out;
  for (int32_t op : ops) out.push_back(m.ops.source_id[op]);
  return out;
}

TEST(Diagnose, OneCopyEngineMakesHardwareThePrimaryCause) {
  ModelBuilder b;
  AddDevice(b, /*copy_engines=*/1);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Stream(3, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(100), ApiTimes{0, us(1), 1});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 2, us(100), us(200), ApiTimes{us(2), us(3), 1});
  b.Kernel("k", 3, us(0), us(200), ApiTimes{us(4), us(5), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kCopyEngines) << Causes(r);
  EXPECT_EQ(r.primary()->impact_ns, us(100));  // min(H2D, D2H), none of it hidden
  EXPECT_NE(DiagnoseSummary(*r.primary(), m).find("1 copy engine"), std::string::npos)
      << DiagnoseSummary(*r.primary(), m);
  EXPECT_EQ(SourceIds(m, r.primary()->ops), (std::vector<int64_t>{1, 2}));  // memcpy 1 (H2D), 2 (D2H)
}

TEST(Diagnose, TwoCopyEnginesAreNotAFinding) {
  ModelBuilder b;
  AddDevice(b, /*copy_engines=*/2);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(100), ApiTimes{0, us(1), 1});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 2, us(50), us(150), ApiTimes{us(2), us(3), 1});
  TraceModel m = b.Build();
  for (const DiagnoseFinding& f : Diagnose(m).findings) EXPECT_NE(f.cause, DiagnoseCause::kCopyEngines);
}

TEST(Diagnose, PageableCopiesAreNamedWithTheirSlowdownPerByte) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  // A pinned 16 MiB copy alone takes 310 us; the pageable one takes 1860 us
  // (6x per byte) while a queued kernel runs next to it.
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(310), ApiTimes{0, us(2), 1},
         "cudaMemcpyAsync", true, k16MiB);
  b.Kernel("k", 1, us(400), us(2000), ApiTimes{us(3), us(4), 1});
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 2, us(400), us(2260),
         ApiTimes{us(5), us(2260), 1}, "cudaMemcpyAsync", true, k16MiB);
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kPageableCopies) << Causes(r);
  EXPECT_NEAR(f.figures.at("H2D_slowdown"), 6.0, 0.01);
  EXPECT_EQ(f.impact_ns, us(1860) - us(310));
  EXPECT_EQ(DiagnoseLabels(f).at("H2D_reference"), "pinned H2D copies of similar size in this trace");
  EXPECT_NE(DiagnoseSummary(f, m).find("6.0x slower per byte"), std::string::npos) << DiagnoseSummary(f, m);
  EXPECT_NE(DiagnoseRemedy(f).find("cudaMallocHost"), std::string::npos);
  EXPECT_EQ(SourceIds(m, f.ops), (std::vector<int64_t>{2}));  // memcpy 2, the pageable one
}

TEST(Diagnose, PageableCopiesWithoutPinnedOnesUseTheReferenceElseSayTheRateIsUnknown) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  // 16 MiB in 1678 us = 10 GB/s.
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 1, us(0), 1'677'722, ApiTimes{0, us(1), 1},
         "cudaMemcpyAsync", true, k16MiB);
  TraceModel m = b.Build();
  DiagnoseOptions o;
  // No pinned copy and no reference: no constant stands in for the rate.
  DiagnoseResult unknown = Diagnose(m, o);
  ASSERT_FALSE(unknown.findings.empty());
  EXPECT_FALSE(unknown.findings[0].figures.contains("H2D_slowdown"));
  EXPECT_EQ(unknown.findings[0].impact_ns, 0);
  EXPECT_NE(DiagnoseSummary(unknown.findings[0], m).find("the pinned rate is unknown"), std::string::npos)
      << DiagnoseSummary(unknown.findings[0], m);
  DiagnoseReference ref;
  ref.source = "control.sqlite";
  ref.pinned_ns_per_byte[static_cast<int>(OpCategory::kHtoD)] = 0.02;  // 50 GB/s
  o.reference = &ref;
  DiagnoseResult vs_control = Diagnose(m, o);
  EXPECT_NEAR(vs_control.findings[0].figures.at("H2D_slowdown"), 5.0, 0.01);
  EXPECT_EQ(DiagnoseLabels(vs_control.findings[0]).at("H2D_reference"), "pinned H2D copies in control.sqlite");
}

// Sequential control: per chunk H2D, kernel, D2H on ONE stream, all
// submitted up front.
TraceModel SequentialOnOneStream() {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  for (int c = 0; c < 4; ++c) {
    int64_t t = us(300) * c;
    b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, t, t + us(100),
           ApiTimes{us(3 * c), us(3 * c) + 500, 1}, "cudaMemcpyAsync", true, k16MiB);
    b.Kernel("chunk", 1, t + us(100), t + us(200), ApiTimes{us(3 * c) + 600, us(3 * c) + 1100, 1});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 1, t + us(200), t + us(300),
           ApiTimes{us(3 * c) + 1200, us(3 * c) + 1700, 1}, "cudaMemcpyAsync", true, k16MiB);
  }
  return b.Build();
}

TEST(Diagnose, WorkOnOneStreamIsASameStreamDependency) {
  TraceModel m = SequentialOnOneStream();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kSameStream) << Causes(r);
  EXPECT_EQ(r.primary()->impact_ns, us(400));  // min(compute, H2D): nothing hidden
  EXPECT_NE(DiagnoseSummary(*r.primary(), m).find("stream 1"), std::string::npos) << DiagnoseSummary(*r.primary(), m);
  EXPECT_NE(DiagnoseRemedy(*r.primary()).find("cudaStreamNonBlocking"), std::string::npos);
  EXPECT_EQ(r.overlap_ns, 0);
}

TEST(Diagnose, MigrationsOnNoStreamAreNotASameStreamDependency) {
  // Unified-memory migrations (nsys exports them on no stream: stream id
  // -1) one after another, H2D and D2H: the driver runs them on demand, no
  // stream of the program's holds them, so "split the work over streams"
  // is no remedy (seen on a real A100 vecAdd with managed memory).
  ModelBuilder b;
  AddDevice(b);
  b.Stream(-1, StreamKind::kUnknown);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Kernel("vecadd", 1, us(0), us(400), ApiTimes{0, us(5), 1});
  for (int c = 0; c < 8; ++c) {
    const int64_t t = us(500) + us(300) * c;
    b.Copy(OpCategory::kHtoD, MemoryKind::kManaged, MemoryKind::kManaged, -1, t, t + us(100));
    b.Copy(OpCategory::kDtoH, MemoryKind::kManaged, MemoryKind::kManaged, -1, t + us(150), t + us(250));
  }
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  for (const DiagnoseFinding& f : r.findings) EXPECT_NE(f.cause, DiagnoseCause::kSameStream) << Causes(r);
  // The same copies on a stream of the program's are one.
  ModelBuilder on_stream;
  AddDevice(on_stream);
  on_stream.Stream(1, StreamKind::kNonBlocking);
  on_stream.Kernel("vecadd", 1, us(0), us(400), ApiTimes{0, us(5), 1});
  for (int c = 0; c < 8; ++c) {
    const int64_t t = us(500) + us(300) * c;
    on_stream.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, t, t + us(100),
                   ApiTimes{us(10) + us(2) * c, us(11) + us(2) * c, 1}, "cudaMemcpyAsync", true, k16MiB);
    on_stream.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 1, t + us(150), t + us(250),
                   ApiTimes{us(12) + us(2) * c, us(13) + us(2) * c, 1}, "cudaMemcpyAsync", true, k16MiB);
  }
  TraceModel m2 = on_stream.Build();
  DiagnoseResult r2 = Diagnose(m2);
  EXPECT_TRUE(std::any_of(r2.findings.begin(), r2.findings.end(), [](const DiagnoseFinding& f) {
    return f.cause == DiagnoseCause::kSameStream;
  })) << Causes(r2);
}

TEST(Diagnose, EventWaitThatDelaysAReadyKernelIsADependency) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Kernel("producer", 1, us(0), us(500), ApiTimes{0, us(5), 1});
  b.Sync(SyncKind::kStreamWaitEvent, 2, us(8), us(9), "cudaStreamWaitEvent");
  b.Kernel("consumer", 2, us(501), us(1000), ApiTimes{us(10), us(15), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kEventWait) << Causes(r);
  EXPECT_EQ(f.impact_ns, us(501) - us(15));                      // ready when its launch returned
  EXPECT_EQ(SourceIds(m, f.ops), (std::vector<int64_t>{2, 1}));  // consumer, then the producer it waited for
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(m.strings.Get(m.api.name[f.calls[0]]), "cudaStreamWaitEvent");
}

TEST(Diagnose, LegacyDefaultStreamSerializationIsHiddenSync) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(7, StreamKind::kLegacyDefault);
  b.Stream(13, StreamKind::kBlocking);
  b.Kernel("legacy", 7, us(5), us(100), ApiTimes{us(0), us(1), 1});
  b.Kernel("user", 13, us(101), us(111), ApiTimes{us(10), us(12), 1});
  b.Kernel("user_b", 13, us(120), us(200), ApiTimes{us(115), us(116), 1});
  b.Kernel("legacy_b", 7, us(201), us(210), ApiTimes{us(130), us(131), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kLegacyDefaultStream) << Causes(r);
  EXPECT_EQ(f.impact_ns, us(89) + us(70));
  EXPECT_EQ(SourceIds(m, f.ops), (std::vector<int64_t>{2, 1, 4, 3}));  // delayed, waited-for, ...
  EXPECT_NE(DiagnoseRemedy(f).find("cudaStreamNonBlocking"), std::string::npos);
  EXPECT_NE(DiagnoseRemedy(f).find("per-thread"), std::string::npos);
}

TEST(Diagnose, CudaFreeInTheLoopIsAnImplicitSyncCall) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Kernel("k1", 1, us(0), us(100), ApiTimes{0, us(2), 1});
  int64_t free_call = b.Api("cudaFree", 1, us(5), us(140));  // waits for k1, then the GPU idles
  b.Kernel("k2", 1, us(145), us(245), ApiTimes{us(141), us(143), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kImplicitSyncCall) << Causes(r);
  EXPECT_EQ(f.impact_ns, us(40));  // device idle [100, 140) us while the thread sat in cudaFree
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(m.api.source_id[f.calls[0]], free_call);
  EXPECT_NE(DiagnoseRemedy(f).find("cudaMallocAsync"), std::string::npos);
  // The idle time is not counted again as CPU starvation.
  for (const DiagnoseFinding& g : r.findings) {
    if (g.cause == DiagnoseCause::kCpuStarvation) {
      EXPECT_FALSE(g.significant) << Causes(r);
    }
  }
}

TEST(Diagnose, HostWorkInAnNvtxRangeIsCpuStarvation) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Kernel("k1", 1, us(0), us(100), ApiTimes{0, us(2), 1});
  b.Nvtx("host_prepare", 1, us(100), us(400));
  b.Kernel("k2", 1, us(405), us(505), ApiTimes{us(400), us(402), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kCpuStarvation) << Causes(r);
  EXPECT_EQ(f.impact_ns, us(300));
  EXPECT_EQ(f.labels.at("top_nvtx_name"), "host_prepare");
  EXPECT_EQ(f.tids, (std::vector<int64_t>{1}));
  EXPECT_NE(DiagnoseRemedy(f).find("'host_prepare'"), std::string::npos);
}

// A first launch's call that runs on after its kernel (module loading) is
// reported apart: CPU starvation counts only the host work between launches,
// and its remedy does not tell the user to move the launch call.
TEST(Diagnose, FirstLaunchTailIsNotCpuStarvation) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("w", 13, us(5), us(15), ApiTimes{us(0), us(200), 7});
  b.Kernel("w", 13, us(312), us(400), ApiTimes{us(300), us(310), 7});
  b.Nvtx("prepare", 7, us(410), us(500));
  b.Kernel("w", 13, us(512), us(600), ApiTimes{us(500), us(510), 7});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);  // GPU span [5, 600)
  const DiagnoseFinding* f = nullptr;
  for (const DiagnoseFinding& x : r.findings) {
    if (x.cause == DiagnoseCause::kCpuStarvation) f = &x;
  }
  ASSERT_NE(f, nullptr) << Causes(r);
  EXPECT_EQ(f->impact_ns, us(200));  // [200, 300) unannotated + [400, 500): 10 us unannotated, 90 us 'prepare'
  EXPECT_EQ(f->labels.at("top_cause"), "host_unannotated");
  EXPECT_EQ(DiagnoseRemedy(*f).find("cudaLaunchKernel"), std::string::npos) << DiagnoseRemedy(*f);
}

TEST(Diagnose, SameCopiesSlowerWhenOverlappedIsContention) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  // Alone: 300 us. Overlapped with a kernel: 900 us (twice).
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(300), ApiTimes{0, 500, 1},
         "cudaMemcpyAsync", true, k16MiB);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(400), us(1300),
         ApiTimes{us(1), us(1) + 500, 1}, "cudaMemcpyAsync", true, k16MiB);
  b.Kernel("k", 2, us(400), us(1300), ApiTimes{us(2), us(2) + 500, 1});
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(1400), us(2300),
         ApiTimes{us(3), us(3) + 500, 1}, "cudaMemcpyAsync", true, k16MiB);
  b.Kernel("k", 2, us(1400), us(2300), ApiTimes{us(4), us(4) + 500, 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kContention) << Causes(r);
  EXPECT_EQ(f.impact_ns, us(600) * 2);
  EXPECT_NE(DiagnoseSummary(f, m).find(
                "H2D 16.00 MiB copies took 900 us overlapped vs 300 us alone (3.0x, 2 overlapped ops)"),
            std::string::npos)
      << DiagnoseSummary(f, m);
}

TEST(Diagnose, ContentionUsesTheControlsAloneDurationsWhenTheTraceHasNone) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(900), ApiTimes{0, 500, 1},
         "cudaMemcpyAsync", true, k16MiB);
  b.Kernel("k", 2, us(0), us(900), ApiTimes{us(1), us(1) + 500, 1});
  TraceModel m = b.Build();
  EXPECT_TRUE(Diagnose(m).findings.empty()) << Causes(Diagnose(m));
  DiagnoseReference ref;
  ref.source = "control.sqlite";
  ref.alone_median_ns["H2D:16777216"] = us(300);
  DiagnoseOptions o;
  o.reference = &ref;
  DiagnoseResult r = Diagnose(m, o);
  ASSERT_NE(r.primary(), nullptr);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kContention);
  EXPECT_NE(DiagnoseSummary(*r.primary(), m).find("vs 300 us alone in control.sqlite"), std::string::npos)
      << DiagnoseSummary(*r.primary(), m);
}

TEST(Diagnose, TinyKernelsLaunchedOneByOneAreTooSmallForTheirLaunchCost) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  // Launch calls of 8 us back to back; each kernel runs 2 us after its call.
  for (int i = 0; i < 50; ++i) {
    int64_t t = us(8) * i;
    b.Kernel("tiny", 1, t + us(9), t + us(11), ApiTimes{t, t + us(8), 1});
  }
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  const DiagnoseFinding& f = *r.primary();
  EXPECT_EQ(f.cause, DiagnoseCause::kSmallWork) << Causes(r);
  EXPECT_EQ(f.impact_ns, 49 * us(6));  // graph-removable gaps
  EXPECT_NE(DiagnoseSummary(f, m).find("'tiny' x50"), std::string::npos) << DiagnoseSummary(f, m);
  EXPECT_NE(DiagnoseRemedy(f).find("CUDA graph"), std::string::npos);
}

TEST(Diagnose, SyncInsideTheLoopThatDrainsTheGpuIsADependency) {
  ModelBuilder b;
  AddDevice(b);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Kernel("a", 1, us(0), us(100), ApiTimes{0, us(2), 1});
  b.Sync(SyncKind::kStreamSynchronize, 1, us(3), us(101), "cudaStreamSynchronize");
  b.Kernel("b", 2, us(150), us(250), ApiTimes{us(102), us(104), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kSyncBetween) << Causes(r);
  EXPECT_EQ(r.primary()->impact_ns, us(50));  // idle [100, 150) us
}

TEST(Diagnose, MinorFindingsComeAfterSignificantOnesAndAreNotPrimary) {
  ModelBuilder b;
  AddDevice(b, /*copy_engines=*/1);
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  // A tiny D2H (1 us) next to a long H2D: the copy-engine limit costs 1 us
  // of a 1 ms window, far less than the host gap.
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(400), ApiTimes{0, us(1), 1});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 2, us(400), us(401), ApiTimes{us(2), us(3), 1});
  b.Nvtx("host_prepare", 1, us(401), us(900));
  b.Kernel("k", 2, us(905), us(1000), ApiTimes{us(900), us(902), 1});
  TraceModel m = b.Build();
  DiagnoseResult r = Diagnose(m);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kCpuStarvation) << Causes(r);
  EXPECT_EQ(r.primary()->impact_ns, us(499));
  ASSERT_GE(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[1].cause, DiagnoseCause::kCopyEngines) << Causes(r);
  EXPECT_EQ(r.findings[1].impact_ns, us(1));
  for (size_t i = 1; i < r.findings.size(); ++i) EXPECT_FALSE(r.findings[i].significant) << Causes(r);
}

TEST(Diagnose, JsonAndTextNameThePrimaryCauseWithEvidence) {
  TraceModel m = SequentialOnOneStream();
  DiagnoseResult r = Diagnose(m);
  nlohmann::json j = DiagnoseToJson(r, m);
  EXPECT_EQ(j["analysis"], "diagnose");
  EXPECT_EQ(j["primary"]["cause"], "same_stream");
  EXPECT_EQ(j["primary"]["step"], "dependencies");
  EXPECT_EQ(j["steps"].size(), 7u);
  EXPECT_EQ(j["findings"][0]["rank"], 1);
  EXPECT_TRUE(j["findings"][0]["primary"].get<bool>());
  EXPECT_EQ(j["findings"][0]["impact_ns"], us(400));
  EXPECT_FALSE(j["findings"][0]["evidence"]["ops"].empty());
  EXPECT_EQ(j["findings"][0]["evidence"]["ops"][0]["table"], "memcpy");
  std::ostringstream text;
  RenderDiagnoseText(r, m, text);
  EXPECT_NE(text.str().find("1. [dependencies] same_stream: measured cost 400 us"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("<- primary cause"), std::string::npos);
  EXPECT_NE(text.str().find("remedy: split the work"), std::string::npos);
}

TEST(Diagnose, EmptyWindowHasNoFindingsAndSaysSo) {
  TraceModel m = SequentialOnOneStream();
  Window w{us(5000), us(6000), {}};
  DiagnoseResult r = testing::DiagnoseUnranked(m, w, {});
  EXPECT_TRUE(r.findings.empty());
  ASSERT_FALSE(r.notes.empty());
}

}  // namespace
}  // namespace streamscope
