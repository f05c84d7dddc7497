// What every `streamscope` subcommand shares on the command line: the help
// layout (defaults shown, one example per command), option checks whose
// errors read as one short sentence, and how a CLI11 parse error becomes
// one `streamscope: ...` line on stderr with exit code 2, with a "did you
// mean" for a misspelled command or option. main.cc and the CLI fuzzer
// (tests/fuzz/cli_args_fuzzer.cc) both use it.
#ifndef STREAMSCOPE_ANALYZER_CLI_CLI_SETUP_H_
#define STREAMSCOPE_ANALYZER_CLI_CLI_SETUP_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace streamscope {

// The root app's help formatter and option defaults; call before the
// subcommands are registered (they inherit both).
void SetUpRootApp(CLI::App& app);

// The example shown at the end of `streamscope CMD --help` (a command line
// that runs on the traces in tests/data; the doc test runs it).
void SetExample(CLI::App* cmd, const std::string& example);

// Option checks with one-sentence errors ("--top: must be 0 or more, got
// -1"); OneOf suggests the nearest value.
CLI::Validator AtLeast(double minimum);
CLI::Validator OneOf(std::vector<std::string> values);
// The check of every -o FILE: an existing folder is refused ("'DIR' is a
// folder; -o names a file"), with `folder_hint` (where a folder goes
// instead) in parentheses when given.
CLI::Validator OutputFilePath(const std::string& folder_hint = "");

// `--memory-limit MIB` and `--spill-dir DIR|none` of the commands that
// build a window's dependency graph (report, diagnose, export): the
// process's memory budget (pipeline/memory_budget.h) and where arrays past
// it go (base/spill_memory.h), set as they are parsed.
void AddMemoryLimitOption(CLI::App* cmd);
// A line on `err` when arrays went to spill files, or stayed in memory past
// the budget for want of one; nothing otherwise.
void ReportSpill(std::ostream& err);

// Handles an exception of app.parse(args): help and version go to `out`
// (exit 0); an error is one line "streamscope: [CMD: ]what" on `err`
// (exit 2). `args` are the arguments after the program name.
int HandleParseError(const CLI::App& root, const CLI::ParseError& e, const std::vector<std::string>& args,
                     std::ostream& out, std::ostream& err);

// The one-line message for a parse error of `app` (the root or a
// subcommand), without the "streamscope: " prefix. `command` names the
// subcommand path ("report", "workloads run"), empty for the root.
std::string ParseErrorLine(const CLI::App& app, const std::string& command, const CLI::ParseError& e,
                           const std::vector<std::string>& unexpected);

// `streamscope` followed by an unknown command `word`: the message, with a
// suggestion when one is close.
std::string UnknownCommandLine(const CLI::App& root, const std::string& word);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_CLI_SETUP_H_
