// The trace's device_link table reaches the model's Device::link; a trace
// without the table (older collectors, conversions) loads with no link.
#include <optional>
#include <string>

#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::ExecSql;
using testing::SyntheticTrace;
using testing::TempTracePath;

// A trace of device 0 and, when given, the device_link row `link`.
std::string TraceWithOneDevice(const std::string& stem, std::optional<DeviceLinkRow> link = std::nullopt) {
  SyntheticTrace t;
  t.Device(0, 3, 1).Stream(7, 0, StreamKind::kNonBlocking);
  t.Kernel(7, 100, 200, "k");
  std::string path = TempTracePath(stem);
  EXPECT_TRUE(
      t.WriteFile(path, [&](TraceTableWriter& w) { return link ? w.DeviceLink(*link) : absl::OkStatus(); }).ok());
  return path;
}

TEST(DeviceLinkImport, LinkRowFillsTheDevicesLink) {
  std::string path = TraceWithOneDevice("link_row", DeviceLinkRow{.device_id = 0,
                                                                  .pci_bus_id = "0000:3B:00.0",
                                                                  .source = 1,
                                                                  .pcie_gen_current = 1,
                                                                  .pcie_width_current = 16,
                                                                  .pcie_gen_max = 5,
                                                                  .pcie_width_max = 16,
                                                                  .c2c_enabled = 0});
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
  std::string path = TraceWithOneDevice("link_none", DeviceLinkRow{.device_id = 0, .source = 0});
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
  std::string path = TraceWithOneDevice("link_orphan", DeviceLinkRow{.device_id = 5, .source = 2, .pcie_gen_max = 4});
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_EQ((*models)[0].import_stats.at("device_link_unknown_device"), 1);
  EXPECT_FALSE((*models)[0].devices.at(0).link.recorded);
}

}  // namespace
}  // namespace streamscope
