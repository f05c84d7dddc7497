// `streamscope diagnose TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute]] [--format text|json]`: why overlap is
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
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose",
      "Explain missing overlap (or overlap without gain): causes checked in a fixed order, each with "
      "evidence and a remedy");
  cmd->add_option("traces", args->traces, "Trace files")->required();
  AddWindowOptions(cmd, &args->win,
                   "Window: 'whole' (whole trace). Default: the steady state (repeated NVTX range or kernel "
                   "sequence), else the span of GPU activity",
                   "Window: the NVTX range with this name (each instance)", OneOf({"whole"}));
  cmd->add_option("--format", args->format, "Output format")->check(OneOf({"text", "json"}));
  SetExample(cmd, "streamscope diagnose tests/data/sequential.sqlite");

  cmd->callback([args, exit_code]() {
    DiagnoseCommandOptions options;
    options.traces = args->traces;
    std::optional<WindowSpec> spec = WindowSpecFromArgs(args->win, args->win.from != 0 || args->win.to != 0,
                                                        args->win.window == "whole", "diagnose", std::cerr);
    if (!spec) {
      *exit_code = kExitUsage;
      return;
    }
    options.window = *spec;
    options.window_given = spec->kind != WindowSpec::Kind::kDefault;
    options.format =
        args->format == "json" ? DiagnoseCommandOptions::Format::kJson : DiagnoseCommandOptions::Format::kText;
    *exit_code = ExitWith(RunDiagnose(options, std::cout, std::cerr), std::cerr);
  });
}

}  // namespace streamscope
