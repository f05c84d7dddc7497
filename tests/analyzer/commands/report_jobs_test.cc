// `report --jobs N` gives what `--jobs 1` gives, and `facts` + `merge-facts`
// give report's cross-rank figures, on the bundled traces.
#include <iostream>
#include <sstream>

#include "analyzer/commands/facts_runner.h"
#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

const std::string kData = STREAMSCOPE_TEST_DATA_DIR;

std::vector<std::string> Bundled() {
  return {kData + "/overlapped.sqlite",         kData + "/sequential.sqlite",     kData + "/pageable.sqlite",
          kData + "/concurrent_kernels.sqlite", kData + "/event_pipeline.sqlite", kData + "/cpu_starved.sqlite"};
}

std::string Report(ReportOptions options, int jobs) {
  options.jobs = jobs;
  std::ostringstream out, err;
  absl::Status s = RunReport(options, out, err);
  return s.ok() ? out.str() : "error: " + std::string(s.message());
}

TEST(ReportJobs, SeveralThreadsPrintWhatOneThreadPrints) {
  for (auto format : {ReportOptions::Format::kText, ReportOptions::Format::kJson, ReportOptions::Format::kCsv}) {
    ReportOptions options;
    options.traces = Bundled();
    options.format = format;
    std::string one = Report(options, 1);
    ASSERT_EQ(one.rfind("error", 0), std::string::npos) << one;
    EXPECT_EQ(Report(options, 4), one);
    EXPECT_EQ(Report(options, 2), one);
  }
}

TEST(ReportJobs, TheFirstBadFileInArgumentOrderIsTheOneReported) {
  ReportOptions options;
  options.traces = Bundled();
  options.traces.insert(options.traces.begin() + 2, kData + "/no_such_trace.sqlite");
  options.traces.push_back(kData + "/also_missing.sqlite");
  std::string one = Report(options, 1);
  EXPECT_NE(one.find("no_such_trace.sqlite"), std::string::npos) << one;
  EXPECT_EQ(Report(options, 3), one);
}

TEST(FactsAndMerge, GiveTheCrossRankFiguresOfReport) {
  ReportOptions report;
  report.traces = Bundled();
  report.format = ReportOptions::Format::kJson;
  nlohmann::json expected = nlohmann::json::parse(Report(report, 2))["combined"]["ranks"];

  FactsOptions facts;
  facts.traces = Bundled();
  std::ostringstream facts_out;
  ASSERT_TRUE(RunFacts(facts, facts_out, std::cerr).ok());
  MergeFactsOptions merge;
  merge.facts = {"-"};
  std::istringstream in(facts_out.str());
  std::ostringstream merged;
  ASSERT_TRUE(RunMergeFacts(merge, in, merged).ok());
  EXPECT_EQ(nlohmann::json::parse(merged.str())["ranks"], expected);
}

TEST(FactsAndMerge, ATraceIsNotAFactsFile) {
  MergeFactsOptions merge;
  merge.facts = {kData + "/overlapped.sqlite"};
  std::istringstream in;
  std::ostringstream out;
  absl::Status s = RunMergeFacts(merge, in, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not a JSON document"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace streamscope
