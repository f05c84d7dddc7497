// The report's device line and JSON name the recorded host link; a trace
// without one prints exactly what it printed before.
#include <sstream>
#include <string>

#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/render/trace_summary_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/test_device.h"

namespace streamscope {
namespace {

using testing::TestDevice;

TraceModel OneDevice(const Device::HostLink& link) {
  TraceModel m;
  m.devices.push_back(TestDevice({.name = "NVIDIA H200", .async_engine_count = 3, .link = link}));
  return m;
}

std::string Text(const TraceModel& m) {
  std::ostringstream out;
  RenderTraceSummaryText(SummarizeTrace(m), m, out);
  return out.str();
}

TEST(HostLinkRender, DeviceLineNamesTheLinkItsCeilingAndItsStateWhenProbed) {
  Device::HostLink l;
  l.recorded = true;
  l.source = "nvml";
  l.pcie_gen_current = 1;
  l.pcie_width_current = 16;
  l.pcie_gen_max = 5;
  l.pcie_width_max = 16;
  l.c2c_enabled = 0;
  TraceModel m = OneDevice(l);
  EXPECT_NE(Text(m).find("; host link PCIe 5.0 x16 (63.0 GB/s per direction, a theoretical ceiling; gen 1 x16 when "
                         "probed; from nvml)"),
            std::string::npos)
      << Text(m);
  nlohmann::json j = DeviceJson(m.devices[0]);
  EXPECT_EQ(j["host_link"]["pcie_gen_max"], 5);
  EXPECT_EQ(j["host_link"]["c2c"], false);
  EXPECT_EQ(j["host_link"]["label"], "PCIe 5.0 x16");
}

TEST(HostLinkRender, UnreadableLinkIsSaidSo) {
  Device::HostLink l;
  l.recorded = true;
  l.source = "none";
  TraceModel m = OneDevice(l);
  EXPECT_NE(Text(m).find("host link not readable (from none)"), std::string::npos) << Text(m);
  EXPECT_TRUE(DeviceJson(m.devices[0])["host_link"]["label"].is_null());
}

TEST(HostLinkRender, NoLinkRecordedLeavesTheDeviceLineAndJsonAsBefore) {
  TraceModel m = OneDevice(Device::HostLink{});
  EXPECT_EQ(Text(m).find("host link"), std::string::npos) << Text(m);
  EXPECT_FALSE(DeviceJson(m.devices[0]).contains("host_link"));
}

}  // namespace
}  // namespace streamscope
