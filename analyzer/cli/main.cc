// `streamscope`: record (run), analyze (report, compare, diagnose), export
// and convert CUDA timeline traces. See README.md.
#include <iostream>
#include <string>
#include <vector>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/heap_settings.h"
#include "analyzer/pipeline/memory_budget.h"

int main(int argc, char** argv) {
  streamscope::KeepLargeBuffersOnTheHeap();
  streamscope::ConfigureMemoryFromEnvironment();
  CLI::App app{"streamscope: what really ran at the same time on the GPU, what did not, and why"};
  app.require_subcommand(1);
  app.set_version_flag("--version", STREAMSCOPE_VERSION);
  app.footer("Each command's options: streamscope COMMAND --help. Tutorial: docs/tutorial.md");
  streamscope::SetUpRootApp(app);
  int exit_code = streamscope::kExitOk;
  // Each command registers itself here (one line per command file).
  streamscope::RegisterRunCommand(app, &exit_code);
  streamscope::RegisterReportCommand(app, &exit_code);
  streamscope::RegisterCompareCommand(app, &exit_code);
  streamscope::RegisterDiagnoseCommand(app, &exit_code);
  streamscope::RegisterExportCommand(app, &exit_code);
  streamscope::RegisterConvertCommand(app, &exit_code);
  streamscope::RegisterWorkloadsCommand(app, &exit_code);
  streamscope::RegisterFactsCommands(app, &exit_code);
  streamscope::RegisterCaptureCommand(app, &exit_code);
  streamscope::RegisterUpgradeCommand(app, &exit_code);
  streamscope::RegisterSynthCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return streamscope::HandleParseError(app, e, args, std::cout, std::cerr);
  }
  streamscope::ReportSpill(std::cerr);
  return exit_code;
}
