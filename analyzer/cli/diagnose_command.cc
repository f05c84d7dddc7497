// `streamscope diagnose TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute] [--clip]] [--format text|json] [-o FILE [--force]]`: why overlap is
// missing or did not pay off. See analyzer/COMPARE.md.
#include <iostream>
#include <memory>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/window_options.h"
#include "analyzer/commands/diagnose_runner.h"

namespace streamscope {

void RegisterDiagnoseCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> traces;
    WindowArgs win;
    std::string format = "text";
    std::string output;
    bool force = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose",
      "Explain missing overlap (or overlap without gain): causes checked in a fixed order, each with "
      "evidence and a remedy");
  cmd->add_option("traces", args->traces, "Trace files")->required();
  AddWindowOptions(cmd, &args->win, "Window: every instance of the NVTX range with this name, each diagnosed");
  cmd->add_option("--format", args->format, "Output format")->check(OneOf({"text", "json"}));
  cmd->add_option("-o,--output", args->output, "Write the diagnosis to FILE instead of stdout")
      ->check(OutputFilePath());
  cmd->add_flag("--force", args->force, "Replace an existing -o FILE")->needs("--output");
  AddMemoryLimitOption(cmd);
  SetExample(cmd, "streamscope diagnose tests/data/sequential.sqlite");

  cmd->callback([args, exit_code]() {
    DiagnoseCommandOptions options;
    options.traces = args->traces;
    std::optional<WindowSpec> spec = WindowSpecFromArgs(args->win, "diagnose", std::cerr);
    if (!spec) {
      *exit_code = kExitUsage;
      return;
    }
    options.window = *spec;
    options.window_given = spec->kind != WindowSpec::Kind::kDefault;
    options.format =
        args->format == "json" ? DiagnoseCommandOptions::Format::kJson : DiagnoseCommandOptions::Format::kText;
    options.output_path = args->output;
    options.force = args->force;
    *exit_code = ExitWith(RunDiagnose(options, std::cout, std::cerr), std::cerr);
  });
}

}  // namespace streamscope
