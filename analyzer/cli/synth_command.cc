// `streamscope synth SPEC.json -o TRACE.sqlite [--force]`: a trace written
// from a JSON description of its rows (analyzer/commands/synth_runner.h),
// for tests and trace generators. See analyzer/README.md "Synthetic traces".
#include <iostream>
#include <memory>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/synth_runner.h"

namespace streamscope {

void RegisterSynthCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<SynthOptions>();
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Write a streamscope trace from a JSON spec of its rows (metadata, strings, devices, streams, GPU ops, "
      "API calls, NVTX ranges and marks, ...), for tests and trace generators");
  cmd->add_option("spec", args->spec_path,
                  "The spec ('-': stdin): a JSON object; \"metadata\" is an object of key: value, every other key "
                  "a schema table (string, device, context, stream, thread, kernel, memcpy, memset, api_call, "
                  "sync, nvtx_range, nvtx_mark, ...) holding a list of rows, each an object of column: value")
      ->required();
  cmd->add_option("-o,--output", args->output_path, "Output trace")->required()->check(OutputFilePath());
  cmd->add_flag("--force", args->force, "Replace an existing output file");
  SetExample(cmd, "streamscope synth tests/data/synth/two_streams.json -o synthetic.sqlite");
  cmd->callback([args, exit_code] { *exit_code = ExitWith(RunSynth(*args), std::cerr); });
}

}  // namespace streamscope
