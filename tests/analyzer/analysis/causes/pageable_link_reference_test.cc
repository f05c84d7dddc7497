// Which rate pageable copies are judged against (diagnose step 2), in order:
// the same device's pinned copies of similar size in this trace, a control
// trace's, the device's host link (a theoretical ceiling), else unknown.
// Known answers on one 16 MiB pageable H2D copy at 10 GB/s.
#include <optional>
#include <string>

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/diagnose_ranking.h"
#include "analyzer/analysis/causes/host_link_rate.h"
#include "analyzer/analysis/causes/what_if.h"
#include "analyzer/render/diagnose_wording.h"
#include "analyzer/render/host_link_render.h"
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
constexpr int64_t kCopyNs = 1'677'722;  // 16 MiB at 10 GB/s

Device::HostLink Link(int32_t gen, int32_t width, int32_t c2c = 0) {
  Device::HostLink l;
  l.recorded = true;
  l.source = "nvml";
  l.pcie_gen_max = gen;
  l.pcie_width_max = width;
  l.c2c_enabled = c2c;
  return l;
}

TraceModel OnePageableCopy(std::optional<Device::HostLink> link, int64_t bytes = k16MiB, int64_t copy_ns = kCopyNs) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.link = link.value_or(Device::HostLink{})}));
  b.Stream(1, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 1, us(0), copy_ns, ApiTimes{0, us(1), 1},
         "cudaMemcpyAsync", true, bytes);
  return b.Build();
}

using testing::GpuWindow;

const DiagnoseFinding& Pageable(const DiagnoseResult& r) {
  for (const DiagnoseFinding& f : r.findings) {
    if (f.cause == DiagnoseCause::kPageableCopies) return f;
  }
  static const DiagnoseFinding kNone;
  ADD_FAILURE() << "no pageable_copies finding";
  return kNone;
}

const PageableCopiesFacts::Direction& H2D(const DiagnoseFinding& f) {
  static const PageableCopiesFacts::Direction kNone;
  const auto* x = std::get_if<PageableCopiesFacts>(&f.facts);
  return x != nullptr && !x->directions.empty() ? x->directions.front() : kNone;
}

TEST(PageableLinkReference, WithoutPinnedCopiesTheLinkCeilingIsTheReference) {
  TraceModel m = OnePageableCopy(Link(4, 16));  // 31.5 GB/s per direction
  Window w = GpuWindow(m);
  DiagnoseResult r = testing::DiagnoseUnranked(m, w, DiagnoseOptions{});
  const DiagnoseFinding& f = Pageable(r);
  EXPECT_EQ(H2D(f).reference, PageableCopiesFacts::Reference::kDeviceLink);
  EXPECT_NEAR(f.figures.at("H2D_slowdown"), 3.15, 0.01);  // 31.5 / 10
  int64_t at_link = static_cast<int64_t>(static_cast<double>(k16MiB) / PcieBytesPerNs(4, 16));
  EXPECT_NEAR(static_cast<double>(f.impact_ns), static_cast<double>(kCopyNs - at_link), 2);
  EXPECT_EQ(DiagnoseLabels(f).at("H2D_reference"),
            "the device link's theoretical ceiling (PCIe 4.0 x16, 31.5 GB/s per direction; no pinned H2D copy of "
            "similar size in this trace, and real copies stay below a link's ceiling)");
  EXPECT_NE(DiagnoseSummary(f, m).find("3.2x slower per byte than the device link's theoretical ceiling"),
            std::string::npos)
      << DiagnoseSummary(f, m);
  // The what-if runs the copy at the same link rate.
  RankDiagnoseFindings(m, BuildDependencyGraph(m, w), DiagnoseOptions{}, &r);
  const DiagnoseFinding& ranked = Pageable(r);
  EXPECT_TRUE(ranked.saving_estimated);
  EXPECT_NEAR(static_cast<double>(ranked.estimated_saving_ns), static_cast<double>(kCopyNs - at_link), 1000);
}

TEST(PageableLinkReference, PinnedCopiesInTheTraceComeBeforeTheLink) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice({.link = Link(4, 16)}));
  b.Stream(1, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, us(0), us(671), ApiTimes{0, us(1), 1},
         "cudaMemcpyAsync", true, k16MiB);  // 25 GB/s measured
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 1, us(700), us(700) + kCopyNs,
         ApiTimes{us(2), us(3), 1}, "cudaMemcpyAsync", true, k16MiB);
  TraceModel m = b.Build();
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  const DiagnoseFinding& f = Pageable(r);
  EXPECT_EQ(H2D(f).reference, PageableCopiesFacts::Reference::kThisTrace);
  EXPECT_NEAR(f.figures.at("H2D_slowdown"), 2.5, 0.01);
}

TEST(PageableLinkReference, AControlTracesMeasuredRateComesBeforeTheLink) {
  TraceModel m = OnePageableCopy(Link(4, 16));
  DiagnoseReference ref;
  ref.source = "control.sqlite";
  ref.pinned_ns_per_byte[static_cast<int>(OpCategory::kHtoD)] = 0.04;  // 25 GB/s
  DiagnoseOptions o;
  o.reference = &ref;
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), o);
  const DiagnoseFinding& f = Pageable(r);
  EXPECT_EQ(H2D(f).reference, PageableCopiesFacts::Reference::kReferenceTrace);
  EXPECT_NEAR(f.figures.at("H2D_slowdown"), 2.5, 0.01);
}

TEST(PageableLinkReference, NvlinkC2cDeviceUsesItsCeiling) {
  TraceModel m = OnePageableCopy(Link(5, 16, /*c2c=*/1));
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  const DiagnoseFinding& f = Pageable(r);
  EXPECT_EQ(HostLinkName(H2D(f).link), "NVLink-C2C");
  EXPECT_NEAR(f.figures.at("H2D_slowdown"), 45.0, 0.01);
}

TEST(PageableLinkReference, NoPinnedCopyNoControlNoLinkIsUnknown) {
  TraceModel m = OnePageableCopy(std::nullopt);
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  const DiagnoseFinding& f = Pageable(r);
  EXPECT_EQ(H2D(f).reference, PageableCopiesFacts::Reference::kNone);
  EXPECT_FALSE(f.figures.contains("H2D_slowdown"));
  EXPECT_EQ(f.impact_ns, 0);
  EXPECT_NE(DiagnoseSummary(f, m).find("the pinned rate is unknown"), std::string::npos) << DiagnoseSummary(f, m);
}

TEST(PageableLinkReference, TinyCopiesAreNeverJudgedPerByteAgainstTheLink) {
  TraceModel m = OnePageableCopy(Link(4, 16), /*bytes=*/8, /*copy_ns=*/us(2));
  DiagnoseResult r = testing::DiagnoseUnranked(m, GpuWindow(m), DiagnoseOptions{});
  const DiagnoseFinding& f = Pageable(r);
  EXPECT_TRUE(H2D(f).latency_bound);
  EXPECT_EQ(H2D(f).reference, PageableCopiesFacts::Reference::kNone);
  EXPECT_FALSE(f.figures.contains("H2D_slowdown"));
  // Nor does the what-if run an 8-byte copy at the link's rate (0 ns).
  WhatIfResult what_if = EstimateSavings(m, GpuWindow(m), RankingWhatIfOptions(m));
  bool found = false;
  for (const WhatIfEstimate& e : what_if.estimates) {
    if (e.cause.kind != WhatIfKind::kPageableCopy) continue;
    found = true;
    EXPECT_FALSE(e.estimable);
    EXPECT_EQ(e.unestimated_ops, 1);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace streamscope
