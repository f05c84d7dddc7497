// Fuzzes the CLI's inputs through the very code `streamscope` runs: the
// report, diagnose, compare and export commands (analyzer/cli/*_command.cc)
// registered on a CLI11 app exactly as in main.cc, parsing a fuzzed command
// line: window specs (--nvtx NAME, --nvtx-instance, --from/--to,
// --absolute), range names, formats, thresholds, trace lists. The input is
// the argument list, NUL-separated, starting with the subcommand.
//
// The command line runs inside a scratch folder holding a.sqlite and
// b.sqlite (real streamscope traces) and n.sqlite (an Nsight Systems
// export), fresh for every input. Never runs programs: --run and
// --collector are dropped, and '/' in an argument becomes '_', so the
// command only reaches files in the scratch folder.
//
// Invariants (abort = finding): no crash, hang, leak or UB; no exception
// escapes a command; the exit code is never 1 ("internal error").
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "tests/fuzz/fuzz_support.h"

namespace streamscope::fuzz {
namespace {

struct ScratchTrace {
  const char* name;  // in the scratch folder
  const char* seed;  // under tests/data
  std::string bytes;
};

std::vector<ScratchTrace>& Traces() {
  static std::vector<ScratchTrace> traces = {
      {"a.sqlite", "overlapped.sqlite", ""},
      {"b.sqlite", "sequential.sqlite", ""},
      {"n.sqlite", "nsys/small-rtx3060-nsys2025.sqlite", ""},
  };
  return traces;
}

bool Dropped(const std::string& arg) {
  std::string name = arg.substr(0, arg.find('='));
  return name == "--run" || name == "--collector";
}

std::vector<std::string> Arguments(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    char c = static_cast<char>(data[i]);
    if (c == '\0') {
      args.emplace_back();
    } else {
      args.back().push_back(c == '/' ? '_' : c);
    }
  }
  args.erase(std::remove_if(args.begin(), args.end(), Dropped), args.end());
  return args;
}

int RunCommandLine(std::vector<std::string> args) {
  CLI::App app{"streamscope"};
  app.require_subcommand(1);
  SetUpRootApp(app);
  int exit_code = kExitOk;
  RegisterReportCommand(app, &exit_code);
  RegisterCompareCommand(app, &exit_code);
  RegisterDiagnoseCommand(app, &exit_code);
  RegisterExportCommand(app, &exit_code);
  const std::vector<std::string> given = args;
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  std::ostringstream out, err;
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return HandleParseError(app, e, given, out, err);  // as main.cc
  }
  return exit_code;
}

void RunOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = Arguments(data, size);
  static const char* kCommands[] = {"report", "diagnose", "compare", "export"};
  if (std::find(std::begin(kCommands), std::end(kCommands), args[0]) == std::end(kCommands)) return;
  ClearScratch();
  for (const ScratchTrace& t : Traces()) WriteScratchFile(ScratchPath(t.name), t.bytes);
  // Relative names resolve in the scratch folder.
  int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (here < 0 || chdir(ScratchDir().c_str()) != 0) std::abort();
  int rc = RunCommandLine(args);
  if (fchdir(here) != 0) std::abort();
  close(here);
  if (rc == kExitFailure) {
    std::string line;
    for (const std::string& a : args) line += " '" + a + "'";
    std::fprintf(stderr, "FUZZ INVARIANT BROKEN: exit code 1 (internal error) for:%s\n", line.c_str());
    std::abort();
  }
}

}  // namespace
}  // namespace streamscope::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace streamscope::fuzz;
  InitScratch();
  for (ScratchTrace& t : Traces()) {
    std::ifstream f(SeedDir() + "/" + t.seed, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    t.bytes = s.str();
  }
  // The commands print reports to stdout; the fuzzer reports on stderr.
  int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  streamscope::fuzz::RunOneInput(data, size);
  return 0;
}
