// `streamscope export TRACE... [--perfetto OUT.json] [--perfetto-proto OUT.pftrace] [--html OUT.html]
//  [--nvtx NAME [--nvtx-instance K] | --from NS --to NS [--absolute]]
//  [--max-ops N] [--no-analysis] [--force] [--title T] [--progress]`.
// Data goes to the named files; status lines ("wrote ...") to stderr.
// See analyzer/EXPORT.md.
#include <iostream>

#include "absl/strings/str_join.h"
#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/progress_meter.h"
#include "analyzer/cli/window_options.h"
#include "analyzer/commands/export_runner.h"

namespace streamscope {

void RegisterExportCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> traces;
    WindowArgs win;
    std::string perfetto, perfetto_proto, html, title;
    int64_t max_ops = -2;
    bool no_analysis = false, force = false, progress = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a timeline for ui.perfetto.dev / chrome://tracing (JSON) and a self-contained HTML report");
  cmd->add_option("traces", args->traces, "Trace files (the processes of one run)")->required();
  cmd->add_option("--perfetto", args->perfetto,
                  "Write Chrome trace-event JSON (Perfetto UI, chrome://tracing) to FILE");
  cmd->add_option("--perfetto-proto", args->perfetto_proto,
                  "Write Perfetto's native protobuf trace (ui.perfetto.dev, trace_processor) to FILE: the same "
                  "tracks as --perfetto, several times smaller and faster");
  cmd->add_option("--html", args->html, "Write a self-contained HTML report to FILE");
  AddWindowOptions(cmd, &args->win, "Window: the span of every instance of the NVTX range with this name");
  cmd->add_option("--max-ops", args->max_ops,
                  "JSON: keep only the window's first N ops (default: all). HTML: draw at most N blocks, merging "
                  "short ops beyond (default 200000). -1: no limit for either")
      ->check(AtLeast(-1))
      ->default_str("");
  cmd->add_flag("--no-analysis", args->no_analysis, "Skip the analyses (no analysis tracks or findings)");
  cmd->add_flag("--force", args->force, "Replace existing output files (never through a symlink)");
  cmd->add_option("--title", args->title, "Title of the HTML report (default: the trace's path)");
  AddProgressFlag(cmd, &args->progress);
  AddMemoryLimitOption(cmd);
  SetExample(cmd, "streamscope export tests/data/overlapped.sqlite --html overlapped.html");

  cmd->callback([args, exit_code]() {
    ExportOptions options;
    options.traces = args->traces;
    std::optional<WindowSpec> spec = WindowSpecFromArgs(args->win, "export", std::cerr);
    if (!spec) {
      *exit_code = kExitUsage;
      return;
    }
    options.window = *spec;
    options.perfetto_path = args->perfetto;
    options.perfetto_proto_path = args->perfetto_proto;
    options.html_path = args->html;
    if (args->max_ops != -2) {
      options.json_max_ops = args->max_ops;
      options.html_max_ops = args->max_ops;
    }
    options.analyses = !args->no_analysis;
    options.overwrite = args->force;
    options.title = args->title;
    options.command_line = "streamscope export " + absl::StrJoin(args->traces, " ");
    absl::Status status;
    {
      ProgressMeter meter(ProgressModeForStderr(args->progress), std::cerr,
                          std::chrono::milliseconds(args->progress ? 0 : 2000));
      status = RunExport(options, std::cerr);
    }
    *exit_code = ExitWith(status, std::cerr);
  });
}

}  // namespace streamscope
