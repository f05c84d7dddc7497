// `streamscope facts TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute]] [-o FILE [--force]]` and
// `streamscope merge-facts FACTS... [--format json|text] [--top N] [-o FILE [--force]]`.
// See analyzer/README.md "Many ranks" and docs/ranks.md.
#include <iostream>
#include <memory>

#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/window_options.h"
#include "analyzer/commands/facts_runner.h"

namespace streamscope {

void RegisterFactsCommands(CLI::App& app, int* exit_code) {
  struct FactsArgs {
    std::vector<std::string> traces;
    WindowArgs win;
    std::string output;
    bool force = false;
  };
  auto args = std::make_shared<FactsArgs>();
  args->win.window = "whole";  // the default --help shows
  CLI::App* cmd = app.add_subcommand(
      "facts",
      "One rank's compact facts (per-window busy/idle/overlap, communication kernels, clock facts) as JSON, "
      "for merge-facts");
  cmd->add_option("traces", args->traces, "Trace files")->required();
  auto* window =
      cmd->add_option("--window", args->win.window, "Window: 'whole' (default)")->check(CLI::IsMember({"whole"}));
  auto* nvtx =
      cmd->add_option("--nvtx", args->win.nvtx, "Window: the NVTX range with this name (all instances: the steps)");
  auto* instance = cmd->add_option("--nvtx-instance", args->win.nvtx_instance,
                                   "Only the K-th instance (1-based, in start order) of the --nvtx range")
                       ->check(CLI::PositiveNumber);
  auto* from = cmd->add_option("--from", args->win.from, "Window start, ns from the trace start (see --absolute)");
  auto* to = cmd->add_option("--to", args->win.to, "Window end, ns from the trace start (see --absolute)");
  auto* absolute = cmd->add_flag("--absolute", args->win.absolute, "--from/--to are absolute trace-clock times");
  cmd->add_option("-o,--output", args->output, "Write the facts to FILE instead of stdout");
  auto* force = cmd->add_flag("--force", args->force, "Replace an existing output file");
  LinkWindowOptions(window, nvtx, instance, from, to, absolute);
  force->needs("--output");
  cmd->callback([args, exit_code, from]() {
    FactsOptions options;
    options.traces = args->traces;
    // --window whole leaves the default window, as facts always did.
    std::optional<WindowSpec> spec = WindowSpecFromArgs(args->win, from->count() > 0, false, "facts", std::cerr);
    if (!spec) {
      *exit_code = kExitUsage;
      return;
    }
    options.window = *spec;
    options.output_path = args->output;
    options.force = args->force;
    *exit_code = ExitWith(RunFacts(options, std::cout), std::cerr);
  });

  struct MergeArgs {
    std::vector<std::string> facts;
    std::string format = "json", output;
    int top = 10;
    bool force = false;
  };
  auto margs = std::make_shared<MergeArgs>();
  CLI::App* merge = app.add_subcommand(
      "merge-facts", "Cross-rank figures (waits, arrival skew, stragglers, clock alignment) from `facts` documents");
  merge->add_option("facts", margs->facts, "Facts files written by `streamscope facts` ('-': stdin), in rank order")
      ->required();
  merge->add_option("--format", margs->format, "Output format")->check(CLI::IsMember({"json", "text"}));
  merge->add_option("--top", margs->top, "Largest arrival skews listed")->check(CLI::NonNegativeNumber);
  merge->add_option("-o,--output", margs->output, "Write to FILE instead of stdout");
  auto* mforce = merge->add_flag("--force", margs->force, "Replace an existing output file");
  mforce->needs("--output");
  merge->callback([margs, exit_code]() {
    MergeFactsOptions options;
    options.facts = margs->facts;
    options.format = margs->format == "text" ? MergeFactsOptions::Format::kText : MergeFactsOptions::Format::kJson;
    options.top = margs->top;
    options.output_path = margs->output;
    options.force = margs->force;
    *exit_code = ExitWith(RunMergeFacts(options, std::cin, std::cout), std::cerr);
  });
}

}  // namespace streamscope
