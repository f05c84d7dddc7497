// `streamscope upgrade` (analyzer/storage/trace_upgrade.h): an old trace is
// brought to this schema version in place, its views then speak the reports'
// vocabulary and never give a negative queue delay, and its analyses do not
// change.
#include "analyzer/storage/trace_upgrade.h"

#include <sqlite3.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"
#include "schema/schema.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

namespace fs = std::filesystem;

std::string One(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out = t != nullptr ? reinterpret_cast<const char*>(t) : "NULL";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

std::string ReportText(const std::string& path) {
  ReportOptions o;
  o.traces = {path};
  std::ostringstream out, err;
  EXPECT_TRUE(RunReport(o, out, err).ok()) << err.str();
  return out.str();
}

TEST(TraceUpgrade, AVersionOneTraceIsBroughtToThisVersionInPlace) {
  std::string copy = testing::TempTracePath("upgrade_v1");
  fs::copy_file("tests/data/old_schema/overlapped_schema1.sqlite", copy, fs::copy_options::overwrite_existing);
  ASSERT_EQ(One(copy, "PRAGMA user_version"), "1");
  ASSERT_EQ(One(copy, "SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), "0");  // version 1 said HtoD
  const std::string ops = One(copy, "SELECT count(*) FROM gpu_op");
  const std::string report_before = ReportText(copy);

  auto upgraded = UpgradeTraceInPlace(copy);
  ASSERT_TRUE(upgraded.ok()) << upgraded.status();
  EXPECT_EQ(upgraded->from_version, 1);
  EXPECT_EQ(upgraded->to_version, schema::Version());
  EXPECT_EQ(One(copy, "PRAGMA user_version"), std::to_string(schema::Version()));
  EXPECT_EQ(One(copy, "SELECT value FROM metadata WHERE key = 'schema_version'"), std::to_string(schema::Version()));
  EXPECT_EQ(One(copy, "SELECT count(*) FROM gpu_op"), ops);
  EXPECT_NE(One(copy, "SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), "0");
  EXPECT_EQ(One(copy, "SELECT count(*) FROM gpu_op_with_api WHERE queue_delay_ns < 0"), "0");
  // The analyses read the tables, which the upgrade leaves alone.
  EXPECT_EQ(ReportText(copy), report_before);

  auto again = UpgradeTraceInPlace(copy);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->from_version, schema::Version());
  EXPECT_EQ(again->to_version, schema::Version());
}

TEST(TraceUpgrade, WhatIsNotAStreamscopeTraceIsRefusedAndLeftAlone) {
  std::string copy = testing::TempTracePath("upgrade_nsys");
  fs::copy_file("tests/data/nsys/small-rtx3060-nsys2025.sqlite", copy, fs::copy_options::overwrite_existing);
  const auto size = fs::file_size(copy);
  auto upgraded = UpgradeTraceInPlace(copy);
  ASSERT_FALSE(upgraded.ok());
  EXPECT_EQ(upgraded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(upgraded.status().message().find("streamscope convert"), std::string_view::npos);
  EXPECT_EQ(fs::file_size(copy), size);
  auto missing = UpgradeTraceInPlace(copy + ".missing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

TEST(TraceUpgrade, EveryBundledTraceIsAtTheCurrentVersion) {
  for (const fs::directory_entry& e : fs::directory_iterator("tests/data")) {
    if (e.path().extension() != ".sqlite") continue;
    EXPECT_EQ(One(e.path().string(), "PRAGMA user_version"), std::to_string(schema::Version())) << e.path();
    EXPECT_EQ(One(e.path().string(), "SELECT count(*) FROM gpu_op_with_api WHERE queue_delay_ns < 0"), "0") << e.path();
  }
}

}  // namespace
}  // namespace streamscope
