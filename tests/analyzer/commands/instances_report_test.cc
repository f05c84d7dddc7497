// The report's instances section end to end: a synthetic loop of ten steps
// with one planted host gap (tests/data/synth/slow_step.json) in text, JSON
// and CSV, and the rows' idle time against the window's on every bundled
// trace.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/commands/report_runner.h"
#include "analyzer/commands/synth_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/bundled_traces.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::TraceFilesIn;

const std::string kData = STREAMSCOPE_TEST_DATA_DIR;

std::string SlowStepTrace() {
  std::ifstream in(kData + "/synth/slow_step.json");
  std::stringstream spec;
  spec << in.rdbuf();
  const std::string path = testing::TempTracePath("slow_step");
  const absl::Status s = WriteSynthTrace(spec.str(), path, false);
  EXPECT_TRUE(s.ok()) << s;
  return path;
}

std::string Report(const std::string& path, ReportOptions::Format format, std::vector<std::string> sections = {}) {
  ReportOptions o;
  o.traces = {path};
  o.format = format;
  o.sections = std::move(sections);
  std::ostringstream out, err;
  const absl::Status s = RunReport(o, out, err);
  EXPECT_TRUE(s.ok()) << path << ": " << s;
  return out.str();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(InstancesReport, TheTextReportFlagsThePlantedStepAloneRightAfterTheSummary) {
  const std::string text = Report(SlowStepTrace(), ReportOptions::Format::kText);
  const size_t summary = text.find("Summary of window");
  const size_t instances = text.find("Instances of NVTX range 'step': 10, median 162 us, 1 slow (> 1.5x");
  ASSERT_NE(instances, std::string::npos) << text;
  EXPECT_LT(summary, instances);
  EXPECT_LT(instances, text.find("Trace "));  // before the trace's own summary
  EXPECT_EQ(Count(text, "SLOW"), 1u) << text;
  const size_t row = text.rfind("\n      6 ", text.find("SLOW"));
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("562 us"), std::string::npos) << line;
  EXPECT_NE(line.find("404 us host_nvtx_range 'prepare'"), std::string::npos) << line;
}

TEST(InstancesReport, JsonAndCsvCarryEveryRowWithItsCause) {
  const std::string path = SlowStepTrace();
  const nlohmann::json j = nlohmann::json::parse(Report(path, ReportOptions::Format::kJson));
  const nlohmann::json& s = j["traces"][0]["windows"][0]["instances"];
  EXPECT_EQ(s["source"], "nvtx_range");
  EXPECT_EQ(s["nvtx_name"], "step");
  EXPECT_EQ(s["slow_factor"], 1.5);
  EXPECT_EQ(s["median_ns"], 162'000);
  ASSERT_EQ(s["rows"].size(), 10u);
  for (const nlohmann::json& row : s["rows"]) {
    SCOPED_TRACE(row.dump());
    const bool planted = row["instance"] == 6;
    EXPECT_EQ(row["slow"], planted);
    if (!planted) continue;
    EXPECT_EQ(row["duration_ns"], 562'000);
    EXPECT_EQ(row["busy_ns"], 150'000);
    EXPECT_EQ(row["idle_ns"], 412'000);
    EXPECT_EQ(row["top_cause"], "host_nvtx_range");
    EXPECT_EQ(row["top_nvtx_name"], "prepare");
    EXPECT_TRUE(row["top_api_name"].is_null());
    EXPECT_EQ(row["top_cause_ns"], 404'000);
  }
  const std::string csv = Report(path, ReportOptions::Format::kCsv);
  const size_t table = csv.find("# table: analysis_instances\n");
  ASSERT_NE(table, std::string::npos);
  const std::string header = csv.substr(table, csv.find('\n', csv.find('\n', table) + 1) - table);
  EXPECT_NE(header.find("window_index,instance,start_ns,end_ns,duration_ns"), std::string::npos) << header;
  EXPECT_EQ(Count(csv.substr(table, csv.find("# table:", table + 1) - table), ",host_nvtx_range,,prepare,"), 1u);
}

TEST(InstancesReport, TheSectionAloneListsEveryRow) {
  const std::string text = Report(SlowStepTrace(), ReportOptions::Format::kText, {"instances"});
  EXPECT_EQ(text.find("Summary of window"), std::string::npos);
  std::vector<int> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    int k = 0;
    if (words >> k) rows.push_back(k);
  }
  EXPECT_EQ(rows, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})) << text;
}

// Every idle ns of the window is in one row or between the instances; where
// the instances tile the window (nothing between them) the rows' idle time
// is the window's.
TEST(InstancesReport, TheRowsIdleTimeAddsUpToTheWindowsOnEveryBundledTrace) {
  int with_rows = 0, tiling = 0;
  for (const std::string& path :
       TraceFilesIn({kData, kData + "/nsys", kData + "/torch"}, {".sqlite", ".json.gz", ".json"})) {
    SCOPED_TRACE(path);
    const nlohmann::json j = nlohmann::json::parse(Report(path, ReportOptions::Format::kJson));
    const nlohmann::json& w = j["traces"][0]["windows"][0];
    const nlohmann::json& s = w["instances"];
    if (s["rows"].empty()) continue;
    ++with_rows;
    int64_t idle = 0, length = 0;
    for (const nlohmann::json& row : s["rows"]) {
      idle += row["idle_ns"].get<int64_t>();
      length += row["duration_ns"].get<int64_t>();
      EXPECT_EQ(row["busy_ns"].get<int64_t>() + row["idle_ns"].get<int64_t>(), row["device_ns"].get<int64_t>());
    }
    const int64_t window_idle = w["gap_causes"]["idle_ns"].get<int64_t>();
    EXPECT_EQ(s["idle_ns"].get<int64_t>(), window_idle);
    EXPECT_EQ(idle + s["outside_idle_ns"].get<int64_t>(), window_idle);
    EXPECT_EQ(length + s["outside_ns"].get<int64_t>(), w["length_ns"].get<int64_t>());
    if (s["outside_ns"] == 0) {
      ++tiling;
      EXPECT_EQ(idle, window_idle);
    }
  }
  EXPECT_GE(with_rows, 15);
  EXPECT_GE(tiling, 10);
}

}  // namespace
}  // namespace streamscope
