// `streamscope facts TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute] [--clip]] [-o FILE [--force]]` and
// `streamscope merge-facts FACTS... [--format json|text] [--top N] [-o FILE [--force]]`.
// See analyzer/README.md "Many ranks" and docs/ranks.md.
#include <iostream>
#include <memory>

#include "analyzer/cli/cli_setup.h"
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
  CLI::App* cmd = app.add_subcommand(
      "facts",
      "One rank's compact facts (per-window busy/idle/overlap, communication kernels, clock facts) as JSON, "
      "for merge-facts");
  cmd->add_option("traces", args->traces, "Trace files")->required();
  AddWindowOptions(cmd, &args->win, "Window: every instance of the NVTX range with this name (the steps)");
  cmd->add_option("-o,--output", args->output, "Write the facts to FILE instead of stdout")->check(OutputFilePath());
  cmd->add_flag("--force", args->force, "Replace an existing -o FILE")->needs("--output");
  SetExample(cmd, "streamscope facts tests/data/overlapped.sqlite --nvtx measured -o rank0.json");
  cmd->callback([args, exit_code]() {
    FactsOptions options;
    options.traces = args->traces;
    std::optional<WindowSpec> spec = WindowSpecFromArgs(args->win, "facts", std::cerr);
    if (!spec) {
      *exit_code = kExitUsage;
      return;
    }
    options.window = *spec;
    options.output_path = args->output;
    options.force = args->force;
    *exit_code = ExitWith(RunFacts(options, std::cout, std::cerr), std::cerr);
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
  merge->add_option("--format", margs->format, "Output format")->check(OneOf({"json", "text"}));
  merge->add_option("--top", margs->top, "Largest arrival skews listed")->check(AtLeast(0));
  merge->add_option("-o,--output", margs->output, "Write the cross-rank figures to FILE instead of stdout")
      ->check(OutputFilePath());
  merge->add_flag("--force", margs->force, "Replace an existing -o FILE")->needs("--output");
  SetExample(merge, "streamscope merge-facts rank0.json rank1.json --format text");
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
