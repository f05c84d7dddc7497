#include "analyzer/cli/cli_setup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace streamscope {
namespace {

// A root app with one subcommand shaped like `report`.
struct TestCli {
  CLI::App app{"test"};
  std::vector<std::string> traces;
  int top = 10;
  std::string format = "text";
  TestCli() {
    app.require_subcommand(1);
    SetUpRootApp(app);
    CLI::App* report = app.add_subcommand("report", "Report");
    report->add_option("traces", traces, "Trace files")->required();
    report->add_option("--top", top, "Worst offenders")->check(AtLeast(0));
    report->add_option("--format", format, "Output format")->check(OneOf({"text", "json", "csv"}));
    SetExample(report, "streamscope report tests/data/overlapped.sqlite");
    app.add_subcommand("compare", "Compare");
  }
  // Parses `args`; returns the exit code, stdout and stderr.
  int Run(std::vector<std::string> args, std::string* out, std::string* err) {
    std::ostringstream o, e;
    const std::vector<std::string> given = args;
    std::reverse(args.begin(), args.end());
    int rc = 0;
    try {
      app.parse(args);
    } catch (const CLI::ParseError& error) {
      rc = HandleParseError(app, error, given, o, e);
    }
    *out = o.str();
    *err = e.str();
    return rc;
  }
};

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(ParseErrors, AMisspelledCommandGetsDidYouMean) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"reprot", "x.sqlite"}, &out, &err), 2);
  EXPECT_EQ(err, "streamscope: unknown command 'reprot' (did you mean 'report'?)\n");
}

TEST(ParseErrors, AMisspelledOptionGetsDidYouMean) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"report", "--tpo", "3", "x.sqlite"}, &out, &err), 2);
  EXPECT_EQ(err, "streamscope: report: unknown option '--tpo' (did you mean '--top'?)\n");
}

TEST(ParseErrors, AFormatNameUsedAsAnOptionPointsToFormat) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"report", "--json", "x.sqlite"}, &out, &err), 2);
  EXPECT_EQ(err, "streamscope: report: unknown option '--json' (did you mean '--format json'?)\n");
}

TEST(ParseErrors, ANegativeCountSaysTheBoundInWords) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"report", "--top", "-1", "x.sqlite"}, &out, &err), 2);
  EXPECT_EQ(err, "streamscope: report: --top: must be 0 or more, got -1\n");
}

TEST(ParseErrors, AWrongValueGetsTheNearestChoice) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"report", "--format", "jsno", "x.sqlite"}, &out, &err), 2);
  EXPECT_EQ(err, "streamscope: report: --format: 'jsno' is not one of text, json, csv (did you mean 'json'?)\n");
}

TEST(ParseErrors, NoCommandListsTheCommandsOnOneLine) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({}, &out, &err), 2);
  EXPECT_EQ(Lines(err), 1);
  EXPECT_EQ(err.rfind("streamscope: no command given; commands: report, compare", 0), 0u) << err;
}

TEST(ParseErrors, AMissingArgumentIsOneLineWithTheCommand) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"report"}, &out, &err), 2);
  EXPECT_EQ(Lines(err), 1);
  EXPECT_EQ(err.rfind("streamscope: report: ", 0), 0u) << err;
}

TEST(Help, ListsEachOptionWithItsDefaultAndAnExample) {
  TestCli cli;
  std::string out, err;
  EXPECT_EQ(cli.Run({"report", "--help"}, &out, &err), 0);
  EXPECT_EQ(err, "");
  EXPECT_NE(out.find("Worst offenders (default: 10)"), std::string::npos) << out;
  EXPECT_NE(out.find("Output format (default: text)"), std::string::npos) << out;
  EXPECT_NE(out.find("Example:\n  streamscope report tests/data/overlapped.sqlite"), std::string::npos) << out;
}

}  // namespace
}  // namespace streamscope
