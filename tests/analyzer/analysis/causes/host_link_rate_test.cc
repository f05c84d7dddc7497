// Known answers for the host link's theoretical per-direction rate.
#include "analyzer/analysis/causes/host_link_rate.h"
#include "analyzer/render/host_link_render.h"

#include "gtest/gtest.h"
#include "tests/analyzer/model/test_device.h"

namespace streamscope {
namespace {

using testing::TestDevice;

Device::HostLink Pcie(int32_t gen_current, int32_t width_current, int32_t gen_max, int32_t width_max) {
  Device::HostLink l;
  l.recorded = true;
  l.source = "nvml";
  l.pcie_gen_current = gen_current;
  l.pcie_width_current = width_current;
  l.pcie_gen_max = gen_max;
  l.pcie_width_max = width_max;
  return l;
}

TEST(HostLinkRate, EachPcieGenerationAtSixteenLanes) {
  EXPECT_DOUBLE_EQ(PcieBytesPerNs(1, 16), 4.0);                        // 2.5 GT/s, 8b/10b
  EXPECT_DOUBLE_EQ(PcieBytesPerNs(2, 16), 8.0);                        // 5 GT/s, 8b/10b
  EXPECT_NEAR(PcieBytesPerNs(3, 16), 15.754, 0.001);                   // 8 GT/s, 128b/130b
  EXPECT_NEAR(PcieBytesPerNs(4, 16), 31.508, 0.001);                   // 16 GT/s
  EXPECT_NEAR(PcieBytesPerNs(5, 16), 63.015, 0.001);                   // 32 GT/s
  EXPECT_DOUBLE_EQ(PcieBytesPerNs(6, 16), 128.0);                      // 64 GT/s, 1b/1b flits
  EXPECT_NEAR(PcieBytesPerNs(4, 8), PcieBytesPerNs(4, 16) / 2, 1e-9);  // width scales it
}

TEST(HostLinkRate, ImpossibleLinksHaveNoRate) {
  EXPECT_EQ(PcieBytesPerNs(0, 16), 0);
  EXPECT_EQ(PcieBytesPerNs(7, 16), 0);
  EXPECT_EQ(PcieBytesPerNs(4, 0), 0);
  EXPECT_FALSE(RateOfHostLink(Device::HostLink{}).has_value());    // not recorded
  EXPECT_FALSE(RateOfHostLink(Pcie(-1, -1, -1, -1)).has_value());  // recorded, nothing readable
}

TEST(HostLinkRate, MaximumLinkWinsOverAnIdleDownTrainedOne) {
  std::optional<HostLinkRate> r = RateOfHostLink(Pcie(1, 16, 5, 16));
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(r->bytes_per_ns, 63.015, 0.001);
  EXPECT_EQ(HostLinkName(*r), "PCIe 5.0 x16");
  std::optional<HostLinkRate> current_only = RateOfHostLink(Pcie(4, 8, -1, -1));
  ASSERT_TRUE(current_only.has_value());
  EXPECT_EQ(HostLinkName(*current_only), "PCIe 4.0 x8");
}

TEST(HostLinkRate, NvlinkC2cIsFourHundredFiftyGigabytesPerDirection) {
  Device::HostLink l = Pcie(5, 16, 5, 16);
  l.c2c_enabled = 1;
  std::optional<HostLinkRate> r = RateOfHostLink(l);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->bytes_per_ns, 450.0);
  EXPECT_EQ(HostLinkName(*r), "NVLink-C2C");
}

TEST(HostLinkRate, ModelRatesByDevice) {
  TraceModel m;
  m.devices = {TestDevice({.link = Pcie(4, 16, 4, 16)}), TestDevice({.id = 1})};  // device 1: no link recorded
  std::map<int32_t, double> rates = LinkBytesPerNs(m);
  ASSERT_EQ(rates.size(), 1u);
  EXPECT_NEAR(rates.at(0), 31.508, 0.001);
  EXPECT_FALSE(DeviceLinkRate(m, 1).has_value());
  EXPECT_FALSE(DeviceLinkRate(m, 7).has_value());
}

}  // namespace
}  // namespace streamscope
