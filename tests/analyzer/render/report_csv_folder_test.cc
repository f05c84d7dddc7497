// `streamscope report --format csv -o DIR` end to end through RunReport:
// the folder form next to the unchanged stdout stream form.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"
#include "tests/analyzer/model/test_files.h"

namespace streamscope {
namespace {

using testing::SyntheticTrace;
using testing::TempTracePath;

std::string Overlapped() {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 100, 300, "k");
  t.Copy(OpCategory::kHtoD, 2, 200, 400);
  std::string path = TempTracePath("csv_folder");
  EXPECT_TRUE(t.WriteFile(path).ok());
  return path;
}

using testing::ReadFile;

int RunToFolder(const ReportOptions& options, std::string* err = nullptr) {
  std::ostringstream out, errs;
  int code = ExitWith(RunReport(options, out, errs), errs);
  EXPECT_TRUE(out.str().empty()) << out.str();
  if (err) *err = errs.str();
  return code;
}

TEST(ReportCsvFolder, EveryTableOfTheStreamFormBecomesAFileWithTheSameRows) {
  ReportOptions options;
  options.traces = {Overlapped()};
  options.format = ReportOptions::Format::kCsv;
  std::ostringstream stream, err;
  ASSERT_EQ(ExitWith(RunReport(options, stream, err), err), kExitOk) << err.str();

  options.output_path = TempTracePath("csv_dir");
  options.output_is_folder = true;
  ASSERT_EQ(RunToFolder(options), kExitOk);
  // The stream form is "# trace:", "# table: NAME", the table, a blank line.
  std::istringstream lines(stream.str());
  std::string line, name, body;
  int tables = 0;
  auto check = [&] {
    if (name.empty()) return;
    ++tables;
    EXPECT_EQ(ReadFile(options.output_path + "/" + name + ".csv"), body) << name;
  };
  while (std::getline(lines, line)) {
    if (line.rfind("# table: ", 0) == 0) {
      check();
      name = line.substr(9);
      body.clear();
    } else if (line.rfind("# trace: ", 0) != 0 && !line.empty()) {
      body += line + "\n";
    }
  }
  check();
  EXPECT_GE(tables, 20);
  EXPECT_EQ(ReadFile(options.output_path + "/analysis_overlap_pair.csv").substr(0, 22), "window_index,device_id");
}

TEST(ReportCsvFolder, ExistingTablesAreKeptUnlessForced) {
  ReportOptions options;
  options.traces = {Overlapped()};
  options.format = ReportOptions::Format::kCsv;
  options.output_path = TempTracePath("csv_again");
  options.output_is_folder = true;
  ASSERT_EQ(RunToFolder(options), kExitOk);
  std::ofstream(options.output_path + "/analysis_window.csv") << "mine\n";
  std::string err;
  EXPECT_EQ(RunToFolder(options, &err), kExitOutputError);
  EXPECT_NE(err.find(".csv: exists; pass --force to replace it"), std::string::npos) << err;
  EXPECT_EQ(ReadFile(options.output_path + "/analysis_window.csv"), "mine\n");
  options.force = true;
  ASSERT_EQ(RunToFolder(options), kExitOk);
  EXPECT_EQ(ReadFile(options.output_path + "/analysis_window.csv").rfind("window_index,label,", 0), 0u);
}

}  // namespace
}  // namespace streamscope
