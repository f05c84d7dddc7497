// User text never reaches SQL unbound (docs/DEFINITIONS.md "Reliability and safety"):
// range names that look like SQL injections select exactly the ranges of
// that name, or nothing, and never change a trace; --save with such a name
// writes only the analysis tables.
#include <sqlite3.h>

#include <sstream>
#include <string>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

constexpr char kOrTrue[] = "x' OR '1'='1";
constexpr char kDropTable[] = "\"; DROP TABLE kernel; --";

// Two kernels; ranges "measured", kOrTrue and kDropTable (one instance each).
std::string TraceWithHostileRangeNames() {
  testing::SyntheticTrace t;
  t.Device(0).Stream(1);
  t.Kernel(1, 100, 200, "k");
  t.Kernel(1, 300, 400, "k");
  t.Nvtx("measured", 50, 450);
  t.Nvtx(kOrTrue, 90, 210);
  t.Nvtx(kDropTable, 290, 410);
  std::string path = testing::TempTracePath("hostile_names");
  EXPECT_TRUE(t.WriteFile(path).ok());
  return path;
}

int64_t CountRows(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table).c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome ReportJson(const std::string& path, const std::string& nvtx_name, bool save) {
  ReportOptions options;
  options.traces = {path};
  options.window.kind = WindowSpec::Kind::kNvtxRange;
  options.window.nvtx_name = nvtx_name;
  options.format = ReportOptions::Format::kJson;
  options.save = save;
  std::ostringstream out, err;
  int code = ExitWith(RunReport(options, out, err), err);
  return {code, out.str(), err.str()};
}

TEST(UserTextInSql, AnOrTrueRangeNameSelectsOnlyTheRangeOfThatName) {
  std::string path = TraceWithHostileRangeNames();
  Outcome r = ReportJson(path, kOrTrue, /*save=*/false);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto json = nlohmann::json::parse(r.out);
  const auto& windows = json["traces"][0]["windows"];
  ASSERT_EQ(windows.size(), 1u);  // not every range
  EXPECT_EQ(windows[0]["start_ns"], 90);
  EXPECT_EQ(windows[0]["end_ns"], 210);
}

TEST(UserTextInSql, ADropTableRangeNameIsSavedWithoutDroppingAnything) {
  std::string path = TraceWithHostileRangeNames();
  Outcome r = ReportJson(path, kDropTable, /*save=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(CountRows(path, "kernel"), 2);
  EXPECT_EQ(CountRows(path, "nvtx_range"), 3);
  EXPECT_EQ(CountRows(path, "analysis_window"), 1);
  auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["traces"][0]["windows"][0]["start_ns"], 290);
  EXPECT_EQ(json["window_spec"]["nvtx_name"], kDropTable);
}

TEST(UserTextInSql, AnInjectionThatNamesNoRangeSelectsNothingAndChangesNothing) {
  std::string path = TraceWithHostileRangeNames();
  for (const char* name : {"' OR 1=1 --", "measured' --", "x\"; DELETE FROM kernel; --", "%", "_easured"}) {
    Outcome r = ReportJson(path, name, /*save=*/true);
    EXPECT_EQ(r.code, kExitWindowNotFound) << name << ": " << r.err;
    EXPECT_NE(r.err.find("ranges in this trace: "), std::string::npos) << "lists the ranges that exist: " << r.err;
  }
  EXPECT_EQ(CountRows(path, "kernel"), 2);
  EXPECT_EQ(CountRows(path, "nvtx_range"), 3);
  EXPECT_EQ(CountRows(path, "analysis_window"), -1);  // nothing saved
}

}  // namespace
}  // namespace streamscope
