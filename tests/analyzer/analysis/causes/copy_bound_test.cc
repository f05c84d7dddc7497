// Known-answer tests for the copy_bandwidth_bound finding (copy_bound.h):
// a simpleStreams-like trace whose D2H copies run back to back near the
// link's rate while short kernels wait for them.
#include "analyzer/analysis/causes/copy_bound.h"

#include <string>

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/diagnose_ranking.h"
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

Device::HostLink Pcie5x16() {
  Device::HostLink l;
  l.recorded = true;
  l.source = "nvml";
  l.pcie_gen_current = 1;  // idle at start-up
  l.pcie_width_current = 16;
  l.pcie_gen_max = 5;
  l.pcie_width_max = 16;
  return l;
}

// 40 rounds over 4 streams: an 80 us kernel, then a 16 MiB D2H copy of
// `copy_us` on the same stream. The copies share one copy engine, so they
// run back to back; each kernel runs under the previous copy.
TraceModel CopyBoundTrace(MemoryKind host, int64_t copy_us, bool link) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.async_engine_count = 3, .link = link ? Pcie5x16() : Device::HostLink{}}));
  for (int s = 1; s <= 4; ++s) b.Stream(s, StreamKind::kBlocking);
  int64_t copy_start = us(80);
  for (int i = 0; i < 40; ++i) {
    int64_t stream = 1 + i % 4;
    int64_t t_call = us(i);
    b.Kernel("init_array", stream, copy_start - us(80), copy_start, ApiTimes{t_call, t_call + 500, 1});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, host, stream, copy_start, copy_start + us(copy_us),
           ApiTimes{t_call + 600, t_call + 900, 1}, "cudaMemcpyAsync", true, k16MiB);
    copy_start += us(copy_us);
  }
  return b.Build();
}

using testing::GpuWindow;

const DiagnoseFinding* FindCause(const DiagnoseResult& r, DiagnoseCause c) {
  for (const DiagnoseFinding& f : r.findings) {
    if (f.cause == c) return &f;
  }
  return nullptr;
}

std::string Causes(const DiagnoseResult& r) {
  std::string s;
  for (const DiagnoseFinding& f : r.findings) s += std::string(DiagnoseCauseName(f.cause)) + " ";
  return s;
}

TEST(CopyBandwidthBound, BackToBackPinnedCopiesAtTheirOwnRateAreTheLimit) {
  TraceModel m = CopyBoundTrace(MemoryKind::kPinned, 320, /*link=*/true);  // 16 MiB / 320 us = 52.4 GB/s
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  const DiagnoseFinding* f = FindCause(r, DiagnoseCause::kCopyBandwidthBound);
  ASSERT_NE(f, nullptr) << Causes(r);
  const auto& x = std::get<CopyBoundFacts>(f->facts);
  EXPECT_EQ(x.category, OpCategory::kDtoH);
  EXPECT_EQ(x.copies, 40);
  EXPECT_EQ(x.busy_ns, us(40 * 320));
  EXPECT_EQ(x.span_ns, us(80 + 40 * 320));
  EXPECT_EQ(x.compute_ns, us(40 * 80));
  EXPECT_EQ(f->impact_ns, us(40 * 320 - 39 * 80));  // exposed: copies while no kernel ran
  EXPECT_NEAR(x.achieved_bytes_per_ns, 52.43, 0.01);
  EXPECT_EQ(x.reference, CopyBoundFacts::Reference::kThisTrace);  // measured beats theoretical
  EXPECT_NEAR(x.reference_bytes_per_ns, 52.43, 0.01);
  EXPECT_NEAR(x.link_bytes_per_ns, 63.015, 0.001);
  EXPECT_EQ(DiagnoseLabels(*f).at("link"), "PCIe 5.0 x16");
  std::string summary = DiagnoseSummary(*f, m);
  EXPECT_NE(summary.find("40 D2H copies on device 0 (640.00 MiB) kept a copy engine busy 12.8 ms (99% of the GPU span"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("52.4 GB/s, 100% of the fastest pinned D2H copies in this trace"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("83% of the PCIe 5.0 x16 link's theoretical ceiling (63.0 GB/s per direction)"),
            std::string::npos)
      << summary;
  EXPECT_NE(DiagnoseRemedy(*f).find("keep data on the device"), std::string::npos);
  EXPECT_NE(DiagnoseRemedy(*f).find("both directions"), std::string::npos);  // 3 copy engines
}

TEST(CopyBandwidthBound, RankedFirstByItsMeasuredCostWithoutASavingEstimate) {
  TraceModel m = CopyBoundTrace(MemoryKind::kPinned, 320, /*link=*/false);
  Window w = GpuWindow(m);
  DiagnoseResult r = testing::DiagnoseUnranked(m, w, DiagnoseOptions{});
  RankDiagnoseFindings(m, BuildDependencyGraph(m, w), DiagnoseOptions{}, &r);
  ASSERT_NE(r.primary(), nullptr) << Causes(r);
  EXPECT_EQ(r.primary()->cause, DiagnoseCause::kCopyBandwidthBound) << Causes(r);
  EXPECT_FALSE(r.primary()->saving_estimated);
  EXPECT_NE(DiagnoseCostAndSaving(*r.primary(), r.gpu_span_ns).find("saving not estimated"), std::string::npos)
      << DiagnoseCostAndSaving(*r.primary(), r.gpu_span_ns);
}

TEST(CopyBandwidthBound, WithoutPinnedCopiesTheLinkIsTheReference) {
  // Pageable copies at 52.4 GB/s: 83% of a PCIe 5.0 x16 link.
  TraceModel m = CopyBoundTrace(MemoryKind::kPageable, 320, /*link=*/true);
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  const DiagnoseFinding* f = FindCause(r, DiagnoseCause::kCopyBandwidthBound);
  ASSERT_NE(f, nullptr) << Causes(r);
  const auto& x = std::get<CopyBoundFacts>(f->facts);
  EXPECT_EQ(x.reference, CopyBoundFacts::Reference::kDeviceLink);
  EXPECT_NEAR(x.reference_bytes_per_ns, 63.015, 0.001);
  EXPECT_EQ(DiagnoseLabels(*f).at("reference"), "device link");
  EXPECT_NE(DiagnoseSummary(*f, m).find("83% of the PCIe 5.0 x16 link's theoretical ceiling"), std::string::npos)
      << DiagnoseSummary(*f, m);
}

TEST(CopyBandwidthBound, NoReferenceNoFinding) {
  // Pageable copies, no link recorded: nothing says what "near the limit" is.
  TraceModel m = CopyBoundTrace(MemoryKind::kPageable, 320, /*link=*/false);
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  EXPECT_EQ(FindCause(r, DiagnoseCause::kCopyBandwidthBound), nullptr) << Causes(r);
}

TEST(CopyBandwidthBound, SlowCopiesFarBelowTheLinkAreNotBandwidthBound) {
  // 16 MiB in 1600 us = 10.5 GB/s: 17% of the link; the pageable finding
  // explains those.
  TraceModel m = CopyBoundTrace(MemoryKind::kPageable, 1600, /*link=*/true);
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  EXPECT_EQ(FindCause(r, DiagnoseCause::kCopyBandwidthBound), nullptr) << Causes(r);
  EXPECT_NE(FindCause(r, DiagnoseCause::kPageableCopies), nullptr) << Causes(r);
}

TEST(CopyBandwidthBound, CopiesThatFillLittleOfTheWindowAreNot) {
  // Each 320 us copy follows a 1000 us kernel on one stream: copies are 24%
  // of the span and shorter than the kernels.
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.async_engine_count = 3, .link = Pcie5x16()}));
  b.Stream(1, StreamKind::kNonBlocking);
  for (int i = 0; i < 10; ++i) {
    int64_t t = us(1320) * i;
    b.Kernel("k", 1, t, t + us(1000), ApiTimes{us(i), us(i) + 500, 1});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 1, t + us(1000), t + us(1320),
           ApiTimes{us(i) + 600, us(i) + 900, 1}, "cudaMemcpyAsync", true, k16MiB);
  }
  TraceModel m = b.Build();
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  EXPECT_EQ(FindCause(r, DiagnoseCause::kCopyBandwidthBound), nullptr) << Causes(r);
}

TEST(CopyBandwidthBound, CopiesAsLongAsTheKernelsDoNotSetThePaceAlone) {
  // A pipeline: 320 us copies on one stream, 300 us kernels on another, each
  // kernel under the next copy: copies 94% of the span, kernels 88%.
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.async_engine_count = 3, .link = Pcie5x16()}));
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  for (int i = 0; i < 10; ++i) {
    b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(320) * i, us(320) * (i + 1),
           ApiTimes{us(i), us(i) + 100, 1}, "cudaMemcpyAsync", true, k16MiB);
    b.Kernel("k", 2, us(320) * (i + 1), us(320) * (i + 1) + us(300), ApiTimes{us(i) + 200, us(i) + 300, 1});
  }
  TraceModel m = b.Build();
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  EXPECT_EQ(FindCause(r, DiagnoseCause::kCopyBandwidthBound), nullptr) << Causes(r);
}

TEST(CopyBandwidthBound, TinyCopiesAreLatencyBoundNotBandwidthBound) {
  // 4 KiB copies back to back for most of the window: their rate says
  // nothing about the link.
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.async_engine_count = 3, .link = Pcie5x16()}));
  b.Stream(1, StreamKind::kNonBlocking);
  for (int i = 0; i < 100; ++i) {
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 1, us(2) * i, us(2) * i + us(2),
           ApiTimes{us(i), us(i) + 100, 1}, "cudaMemcpyAsync", true, 4096);
  }
  TraceModel m = b.Build();
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  EXPECT_EQ(FindCause(r, DiagnoseCause::kCopyBandwidthBound), nullptr) << Causes(r);
}

}  // namespace
}  // namespace streamscope
