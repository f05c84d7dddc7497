// The operator attribution in every report format, end to end through
// RunReport on the hand-written torch.profiler trace; and no section on a
// trace without ranges.
#include "analyzer/render/op_attribution_render.h"

#include <sstream>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/torch/torch_test_util.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::kSyntheticTorchTrace;

std::string Report(const std::string& path, ReportOptions::Format format) {
  ReportOptions options;
  options.traces = {path};
  options.format = format;
  std::ostringstream out, err;
  EXPECT_EQ(ExitWith(RunReport(options, out, err), err), kExitOk) << err.str();
  return out.str();
}

TEST(OpAttributionRender, TheTextReportNamesTheOperatorsAndAnnotationsByGpuTime) {
  std::string text = Report(kSyntheticTorchTrace, ReportOptions::Format::kText);
  EXPECT_NE(text.find("Who launched the GPU work: 6 GPU ops, 48.8 us"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU time by PyTorch operator"), std::string::npos) << text;
  size_t addmm = text.find("    aten::addmm"), copy = text.find("    aten::copy_");
  ASSERT_NE(addmm, std::string::npos) << text;
  ASSERT_NE(copy, std::string::npos) << text;
  EXPECT_LT(addmm, copy);  // 20 us before 19.75 us
  EXPECT_NE(text.find("    aten::linear"), std::string::npos) << text;
  EXPECT_NE(text.find("    step"), std::string::npos) << text;
  EXPECT_NE(text.find("(no operator)"), std::string::npos) << text;
}

TEST(OpAttributionRender, JsonCarriesEveryTotal) {
  nlohmann::json j = nlohmann::json::parse(Report(kSyntheticTorchTrace, ReportOptions::Format::kJson));
  const nlohmann::json& a = j["traces"][0]["windows"][0]["op_attribution"];
  ASSERT_TRUE(a.is_object()) << j.dump(1);
  EXPECT_EQ(a["op_count"], 6);
  EXPECT_EQ(a["gpu_ns"], 48'751);
  EXPECT_EQ(a["by_operator"][0]["name"], "aten::addmm");
  EXPECT_EQ(a["by_operator"][0]["gpu_ns"], 20'000);
  EXPECT_EQ(a["by_top_operator"][0]["name"], "aten::linear");
  EXPECT_EQ(a["by_annotation"][0]["name"], "step");
  EXPECT_EQ(a["by_annotation"][0]["gpu_ns"], 47'751);
  EXPECT_TRUE(a["by_annotation"][1]["name"].is_null());
  EXPECT_EQ(j["traces"][0]["format"], "torch-profiler");
}

TEST(OpAttributionRender, CsvHasTheTotalsAndOneRowPerGpuOp) {
  std::string csv = Report(kSyntheticTorchTrace, ReportOptions::Format::kCsv);
  size_t totals = csv.find("# table: analysis_gpu_time_by_launcher\n");
  ASSERT_NE(totals, std::string::npos) << csv;
  EXPECT_NE(csv.find("0,operator,aten::addmm,20000,1,1,0,0,1", totals), std::string::npos) << csv.substr(totals);
  EXPECT_NE(csv.find("0,annotation,step,47751,5,3,1,1,1", totals), std::string::npos) << csv.substr(totals);
  size_t per_op = csv.find("# table: analysis_op_launcher\n");
  ASSERT_NE(per_op, std::string::npos);
  std::string rest = csv.substr(per_op);
  rest = rest.substr(0, rest.find("\n\n"));
  int lines = 0;
  for (char c : rest) lines += c == '\n';
  EXPECT_EQ(lines + 1, 1 + 1 + 6);  // the table line, the header, six ops (the last line ends the cut)
  EXPECT_NE(rest.find(",gemm_a,"), std::string::npos);
  EXPECT_NE(rest.find(",aten::addmm,aten::linear,step"), std::string::npos) << rest;
}

TEST(OpAttributionRender, ATraceWithoutRangesHasNoSection) {
  testing::SyntheticTrace t;
  t.Device(0).Stream(13);
  t.Kernel(13, 1'000, 2'000, "k");
  t.Api("cudaLaunchKernel", 1, 500, 600);
  std::string path = testing::TempTracePath("no_ranges");
  ASSERT_TRUE(t.WriteFile(path).ok());
  std::string text = Report(path, ReportOptions::Format::kText);
  EXPECT_EQ(text.find("Who launched the GPU work"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(Report(path, ReportOptions::Format::kJson));
  EXPECT_FALSE(j["traces"][0]["windows"][0].contains("op_attribution"));
  std::string csv = Report(path, ReportOptions::Format::kCsv);
  EXPECT_EQ(csv.find("analysis_op_launcher"), std::string::npos);
}

}  // namespace
}  // namespace streamscope
