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
#include "analyzer/commands/export_runner.h"

namespace streamscope {

void RegisterExportCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> traces;
    std::string perfetto, perfetto_proto, html, nvtx, title, window;
    int nvtx_instance = 0;
    int64_t from = 0, to = 0, max_ops = -2;
    bool absolute = false, no_analysis = false, force = false, progress = false;
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
  auto* window = cmd->add_option("--window", args->window,
                                 "Window: 'whole' (the whole trace). Default: the steady state, else the span of GPU "
                                 "activity")
                     ->check(CLI::IsMember({"whole"}));
  auto* nvtx = cmd->add_option("--nvtx", args->nvtx, "Window: the NVTX range with this name (span of all instances)");
  auto* instance = cmd->add_option("--nvtx-instance", args->nvtx_instance,
                                   "Only the K-th instance (1-based, in start order) of the --nvtx range")
                       ->check(AtLeast(1))
                       ->default_str("all");
  auto* from =
      cmd->add_option("--from", args->from, "Window start, ns from the trace start (see --absolute)")->default_str("");
  auto* to = cmd->add_option("--to", args->to, "Window end, ns from the trace start (see --absolute)")->default_str("");
  auto* absolute = cmd->add_flag("--absolute", args->absolute, "--from/--to are absolute trace-clock times");
  cmd->add_option("--max-ops", args->max_ops,
                  "JSON: keep only the window's first N ops (default: all). HTML: draw at most N blocks, merging "
                  "short ops beyond (default 200000). -1: no limit for either")
      ->check(AtLeast(-1))
      ->default_str("");
  cmd->add_flag("--no-analysis", args->no_analysis, "Skip the analyses (no analysis tracks or findings)");
  cmd->add_flag("--force", args->force, "Replace existing output files (never through a symlink)");
  cmd->add_option("--title", args->title, "Title of the HTML report (default: the trace's path)");
  AddProgressFlag(cmd, &args->progress);
  SetExample(cmd, "streamscope export tests/data/overlapped.sqlite --html overlapped.html");
  instance->needs(nvtx);
  nvtx->excludes(from)->excludes(to)->excludes(window);
  from->excludes(window);
  from->needs(to);
  to->needs(from);
  absolute->needs(from);

  cmd->callback([args, exit_code]() {
    ExportOptions options;
    options.traces = args->traces;
    if (args->window == "whole") options.window.kind = WindowSpec::Kind::kWholeTrace;
    if (!args->nvtx.empty()) {
      options.window.kind = WindowSpec::Kind::kNvtxRange;
      options.window.nvtx_name = args->nvtx;
      if (args->nvtx_instance > 0) options.window.nvtx_instance = args->nvtx_instance;
    } else if (args->from != 0 || args->to != 0) {
      if (args->to <= args->from) {
        std::cerr << "streamscope: export: --to must be greater than --from\n";
        *exit_code = kExitUsage;
        return;
      }
      options.window.kind = WindowSpec::Kind::kExplicit;
      options.window.start_ns = args->from;
      options.window.end_ns = args->to;
      options.window.relative_to_trace_start = !args->absolute;
    }
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
