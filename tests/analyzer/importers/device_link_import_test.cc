// The trace's device_link table reaches the model's Device::link; a trace
// without the table (older collectors, conversions) loads with no link.
#include <string>

#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::ExecSql;
using testing::SyntheticTrace;
using testing::TempTracePath;

std::string TraceWithOneDevice(const std::string& stem) {
  SyntheticTrace t;
  t.Device(0, 3, 1).Stream(7, 0, StreamKind::kNonBlocking);
  t.Kernel(7, 100, 200, "k");
  std::string path = TempTracePath(stem);
  EXPECT_TRUE(t.WriteFile(path).ok());
  return path;
}

TEST(DeviceLinkImport, LinkRowFillsTheDevicesLink) {
  std::string path = TraceWithOneDevice("link_row");
  ASSERT_TRUE(ExecSql(path,
                      "INSERT INTO device_link(device_id,pci_bus_id,source,pcie_gen_current,pcie_width_current,"
                      "pcie_gen_max,pcie_width_max,c2c_enabled) VALUES(0,'0000:3B:00.0',1,1,16,5,16,0)")
                  .ok());
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const Device::HostLink& link = (*models)[0].devices.at(0).link;
  EXPECT_TRUE(link.recorded);
  EXPECT_EQ(link.source, "nvml");
  EXPECT_EQ(link.pcie_gen_current, 1);
  EXPECT_EQ(link.pcie_width_current, 16);
  EXPECT_EQ(link.pcie_gen_max, 5);
  EXPECT_EQ(link.pcie_width_max, 16);
  EXPECT_EQ(link.c2c_enabled, 0);
}

TEST(DeviceLinkImport, UnknownFiguresStayUnknown) {
  std::string path = TraceWithOneDevice("link_none");
  ASSERT_TRUE(ExecSql(path, "INSERT INTO device_link(device_id,source) VALUES(0,0)").ok());
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const Device::HostLink& link = (*models)[0].devices.at(0).link;
  EXPECT_TRUE(link.recorded);
  EXPECT_EQ(link.source, "none");
  EXPECT_EQ(link.pcie_gen_max, -1);
  EXPECT_EQ(link.c2c_enabled, -1);
}

TEST(DeviceLinkImport, TraceWithoutTheTableHasNoLink) {
  std::string path = TraceWithOneDevice("link_absent");
  ASSERT_TRUE(ExecSql(path, "DROP TABLE device_link; DROP TABLE enum_link_source;").ok());
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_FALSE((*models)[0].devices.at(0).link.recorded);
}

TEST(DeviceLinkImport, RowOfAnUnlistedDeviceIsCountedNotKept) {
  std::string path = TraceWithOneDevice("link_orphan");
  ASSERT_TRUE(ExecSql(path, "INSERT INTO device_link(device_id,source,pcie_gen_max) VALUES(5,2,4)").ok());
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_EQ((*models)[0].import_stats.at("device_link_unknown_device"), 1);
  EXPECT_FALSE((*models)[0].devices.at(0).link.recorded);
}

}  // namespace
}  // namespace streamscope
