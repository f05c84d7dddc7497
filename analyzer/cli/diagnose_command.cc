// `streamscope diagnose TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute]] [--format text|json]`: why overlap is
// missing or did not pay off. See analyzer/COMPARE.md.
#include <iostream>
#include <memory>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/diagnose_runner.h"

namespace streamscope {

void RegisterDiagnoseCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> traces;
    std::string window;
    std::string nvtx;
    int nvtx_instance = 0;
    int64_t from = 0, to = 0;
    bool absolute = false;
    std::string format = "text";
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose",
      "Explain missing overlap (or overlap without gain): causes checked in a fixed order, each with "
      "evidence and a remedy");
  cmd->add_option("traces", args->traces, "Trace files")->required();
  auto* window = cmd->add_option("--window", args->window,
                                 "Window: 'whole' (whole trace). Default: the steady state (repeated NVTX range or "
                                 "kernel sequence), else the span of GPU activity")
                     ->check(OneOf({"whole"}));
  auto* nvtx = cmd->add_option("--nvtx", args->nvtx, "Window: the NVTX range with this name (each instance)");
  auto* instance = cmd->add_option("--nvtx-instance", args->nvtx_instance,
                                   "Only the K-th instance (1-based, in start order) of the --nvtx range")
                       ->check(AtLeast(1))
                       ->default_str("all");
  auto* from =
      cmd->add_option("--from", args->from, "Window start, ns from the trace start (see --absolute)")->default_str("");
  auto* to = cmd->add_option("--to", args->to, "Window end, ns from the trace start (see --absolute)")->default_str("");
  auto* absolute = cmd->add_flag("--absolute", args->absolute, "--from/--to are absolute trace-clock times");
  cmd->add_option("--format", args->format, "Output format")->check(OneOf({"text", "json"}));
  SetExample(cmd, "streamscope diagnose tests/data/sequential.sqlite");
  instance->needs(nvtx);
  nvtx->excludes(from)->excludes(to)->excludes(window);
  from->needs(to);
  to->needs(from);
  from->excludes(window);
  absolute->needs(from);

  cmd->callback([args, exit_code]() {
    DiagnoseCommandOptions options;
    options.traces = args->traces;
    if (!args->nvtx.empty()) {
      options.window_given = true;
      options.window.kind = WindowSpec::Kind::kNvtxRange;
      options.window.nvtx_name = args->nvtx;
      if (args->nvtx_instance > 0) options.window.nvtx_instance = args->nvtx_instance;
    } else if (args->from != 0 || args->to != 0) {
      if (args->to <= args->from) {
        std::cerr << "streamscope: diagnose: --to must be greater than --from\n";
        *exit_code = kExitUsage;
        return;
      }
      options.window_given = true;
      options.window.kind = WindowSpec::Kind::kExplicit;
      options.window.start_ns = args->from;
      options.window.end_ns = args->to;
      options.window.relative_to_trace_start = !args->absolute;
    } else if (args->window == "whole") {
      options.window_given = true;
      options.window.kind = WindowSpec::Kind::kWholeTrace;
    }
    options.format =
        args->format == "json" ? DiagnoseCommandOptions::Format::kJson : DiagnoseCommandOptions::Format::kText;
    *exit_code = ExitWith(RunDiagnose(options, std::cout, std::cerr), std::cerr);
  });
}

}  // namespace streamscope
