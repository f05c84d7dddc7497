// STREAMSCOPE_THREADS=1 runs every command on the calling thread: report,
// diagnose, compare, export and facts start no thread (TaskThreads counts
// every thread the analyzer starts; tools/dev/pipeline_check.py fails on one
// started elsewhere) on a streamscope trace, an Nsight Systems export and a
// torch.profiler trace (export: the SQLite ones). Without it, the same
// commands do start threads, and print the same.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>

#include "analyzer/base/threads.h"
#include "analyzer/commands/compare_runner.h"
#include "analyzer/commands/diagnose_runner.h"
#include "analyzer/commands/export_runner.h"
#include "analyzer/commands/facts_runner.h"
#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

const std::string kData = STREAMSCOPE_TEST_DATA_DIR;

// Every command on `trace`, its output and how many threads they started.
struct CommandsRun {
  std::string output;
  int64_t threads = 0;
};

CommandsRun RunAll(const std::string& trace, bool one_thread) {
  if (one_thread) {
    setenv("STREAMSCOPE_THREADS", "1", 1);
  } else {
    unsetenv("STREAMSCOPE_THREADS");
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("streamscope_threads_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  CommandsRun run;
  const int64_t before = TaskThreads::Started();
  std::ostringstream out, err;
  auto check = [&](const char* what, const absl::Status& s) {
    EXPECT_TRUE(s.ok()) << what << " " << trace << ": " << s;
    out << "\n== " << what << "\n";
  };
  for (auto format : {ReportOptions::Format::kText, ReportOptions::Format::kJson}) {
    ReportOptions report;
    report.traces = {trace, trace};  // two processes: the cross-rank merge too
    report.format = format;
    check("report", RunReport(report, out, err));
  }
  DiagnoseCommandOptions diagnose;
  diagnose.traces = {trace};
  check("diagnose", RunDiagnose(diagnose, out, err));
  CompareCommandOptions compare;
  compare.control = {trace};
  compare.variant = {trace};
  absl::Status compared = RunCompare(compare, out);  // same trace twice: not verified
  out << "\n== compare " << compared.ok() << "\n";
  if (trace.ends_with(".sqlite")) {  // export reads kernel shapes from SQLite traces only
    ExportOptions exported;
    exported.traces = {trace};
    exported.perfetto_path = (dir / "t.json").string();
    exported.html_path = (dir / "t.html").string();
    exported.overwrite = true;
    std::ostringstream export_out;  // wall times
    check("export", RunExport(exported, export_out));
  }
  FactsOptions facts;
  facts.traces = {trace};
  check("facts", RunFacts(facts, out, err));
  run.threads = TaskThreads::Started() - before;
  run.output = out.str() + err.str();
  std::filesystem::remove_all(dir);
  unsetenv("STREAMSCOPE_THREADS");
  return run;
}

class OneThread : public ::testing::TestWithParam<std::string> {};

TEST_P(OneThread, StartsNoThreadAndPrintsWhatThreadsPrint) {
  const std::string trace = kData + "/" + GetParam();
  CommandsRun one = RunAll(trace, true);
  EXPECT_EQ(one.threads, 0) << trace;
  CommandsRun many = RunAll(trace, false);
  EXPECT_GT(many.threads, 0) << trace;
  EXPECT_EQ(one.output, many.output);
}

INSTANTIATE_TEST_SUITE_P(Traces, OneThread,
                         ::testing::Values("overlapped.sqlite", "nsys/small-rtx3060-nsys2025.sqlite",
                                           "torch/torch_two_streams.json.gz"));

}  // namespace
}  // namespace streamscope
