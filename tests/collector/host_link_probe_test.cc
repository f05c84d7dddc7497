// ProbeHostLink against a fake /sys tree and no NVML: the figures sysfs
// holds, nothing (and no crash) when /sys or the device is absent.
#include "collector/host_link_probe.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "collector/trace_writer.h"
#include "schema/enum_values.h"

namespace streamscope::collector {
namespace {

class HostLinkProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/host_link_probe_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    options_.nvml_library = "";  // never the build machine's NVML (it has none; the GPU machine would)
    options_.sysfs_pci_devices = root_;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& bus, const std::string& file, const std::string& text) {
    std::string dir = root_ + "/" + bus;
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/" + file) << text;
  }
  std::string root_;
  HostLinkProbeOptions options_;
};

TEST_F(HostLinkProbeTest, SysfsGivesCurrentAndMaximumLink) {
  Write("0000:3b:00.0", "current_link_speed", "2.5 GT/s PCIe\n");
  Write("0000:3b:00.0", "current_link_width", "16\n");
  Write("0000:3b:00.0", "max_link_speed", "32.0 GT/s PCIe\n");
  Write("0000:3b:00.0", "max_link_width", "16\n");
  HostLinkRecord r = ProbeHostLink(2, "0000:3B:00.0", options_);
  EXPECT_EQ(r.device_id, 2u);
  EXPECT_EQ(r.source, schema::link_source::kSysfs);
  EXPECT_EQ(r.pcie_gen_current, 1);
  EXPECT_EQ(r.pcie_width_current, 16);
  EXPECT_EQ(r.pcie_gen_max, 5);
  EXPECT_EQ(r.pcie_width_max, 16);
  EXPECT_FALSE(r.c2c_enabled.has_value());  // only NVML knows
}

TEST_F(HostLinkProbeTest, MissingSysfsAndNvmlRecordNothingAndSaySo) {
  options_.sysfs_pci_devices = root_ + "/absent";  // gVisor: no /sys
  options_.nvml_library = "libstreamscope-no-such-nvml.so.1";
  HostLinkRecord r = ProbeHostLink(0, "0000:3B:00.0", options_);
  EXPECT_EQ(r.source, schema::link_source::kNone);
  EXPECT_EQ(r.pci_bus_id, "0000:3B:00.0");
  EXPECT_FALSE(r.pcie_gen_current || r.pcie_width_current || r.pcie_gen_max || r.pcie_width_max || r.c2c_enabled);
}

TEST_F(HostLinkProbeTest, UnknownBusIdProbesNothing) {
  HostLinkRecord r = ProbeHostLink(0, "", options_);
  EXPECT_EQ(r.source, schema::link_source::kNone);
  EXPECT_FALSE(r.pcie_gen_max.has_value());
}

TEST_F(HostLinkProbeTest, ImplausibleSysfsFiguresAreLeftUnset) {
  Write("0000:01:00.0", "current_link_speed", "Unknown\n");
  Write("0000:01:00.0", "current_link_width", "255\n");
  Write("0000:01:00.0", "max_link_speed", "");
  HostLinkRecord r = ProbeHostLink(0, "0000:01:00.0", options_);
  EXPECT_EQ(r.source, schema::link_source::kNone);
  EXPECT_FALSE(r.pcie_gen_current || r.pcie_width_current || r.pcie_gen_max);
}

TEST_F(HostLinkProbeTest, BackgroundProbeReachesTheTraceBeforeCaptureEnds) {
  WriterOptions o;
  o.path = root_ + "/trace.sqlite";
  auto w = TraceWriter::Open(o);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ProbeHostLinkInBackground(w->get(), 3, "");  // no bus id: a row that says nothing was readable
  EXPECT_TRUE(WaitForHostLinkProbes(5000));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(o.path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*), min(device_id), min(source) FROM device_link", -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1);
  EXPECT_EQ(sqlite3_column_int(st, 1), 3);
  EXPECT_EQ(sqlite3_column_int(st, 2), schema::link_source::kNone);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(PcieGenerationOfSpeed, EachGenerationsLaneRate) {
  EXPECT_EQ(PcieGenerationOfSpeed("2.5 GT/s"), 1);
  EXPECT_EQ(PcieGenerationOfSpeed("5.0 GT/s PCIe"), 2);
  EXPECT_EQ(PcieGenerationOfSpeed("8 GT/s"), 3);
  EXPECT_EQ(PcieGenerationOfSpeed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(PcieGenerationOfSpeed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(PcieGenerationOfSpeed("64.0 GT/s PCIe"), 6);
  EXPECT_EQ(PcieGenerationOfSpeed("Unknown"), std::nullopt);
  EXPECT_EQ(PcieGenerationOfSpeed("12 GT/s"), std::nullopt);
}

TEST(SysfsBusId, NvmlsEightDigitDomainBecomesSysfsFour) {
  EXPECT_EQ(SysfsBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(SysfsBusId("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(SysfsBusId("0001:C1:00.0"), "0001:c1:00.0");
}

}  // namespace
}  // namespace streamscope::collector
