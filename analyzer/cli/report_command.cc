// `streamscope report TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute]] [--format text|json|csv] [--save]
//  [--gap-threshold US] [--top N] [-o FILE | --format csv -o DIR [--force]]`.
// See analyzer/README.md.
#include <cmath>
#include <iostream>

#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"

namespace streamscope {

void RegisterReportCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> traces;
    std::string window = "whole";
    std::string nvtx;
    int nvtx_instance = 0;
    int64_t from = 0, to = 0;
    bool absolute = false;
    std::string format = "text";
    bool save = false;
    double gap_threshold_us = 10;
    int top = 10;
    std::string output;
    bool force = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Overlap, idle gaps, gap causes, hidden syncs and launch statistics of one or more traces");
  cmd->add_option("traces", args->traces, "Trace files (the processes of one run)")->required();
  auto* window = cmd->add_option("--window", args->window, "Window: 'whole' (the whole trace). Default: the steady state, else the span of GPU activity")
                     ->check(CLI::IsMember({"whole"}));
  auto* nvtx = cmd->add_option("--nvtx", args->nvtx, "Window: the NVTX range with this name (all instances)");
  auto* instance = cmd->add_option("--nvtx-instance", args->nvtx_instance,
                                   "Only the K-th instance (1-based, in start order) of the --nvtx range")
                       ->check(CLI::PositiveNumber);
  auto* from = cmd->add_option("--from", args->from, "Window start, ns from the trace start (see --absolute)");
  auto* to = cmd->add_option("--to", args->to, "Window end, ns from the trace start (see --absolute)");
  auto* absolute = cmd->add_flag("--absolute", args->absolute, "--from/--to are absolute trace-clock times");
  cmd->add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->add_flag("--save", args->save, "Write the analysis_* tables into each trace file");
  cmd->add_option("--gap-threshold", args->gap_threshold_us, "List idle gaps of at least this many microseconds")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--top", args->top, "Worst offenders listed per finding")->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--output", args->output,
                  "Write the report to FILE instead of stdout; with --format csv, to the folder FILE, one "
                  "<table>.csv per analysis table");
  auto* force = cmd->add_flag("--force", args->force, "--format csv -o DIR: replace existing table files");
  instance->needs(nvtx);
  nvtx->excludes(from)->excludes(to)->excludes(window);
  from->needs(to);
  to->needs(from);
  from->excludes(window);
  absolute->needs(from);
  force->needs("--output");

  cmd->callback([args, exit_code, from, window]() {
    ReportOptions options;
    options.traces = args->traces;
    if (window->count() > 0) options.window.kind = WindowSpec::Kind::kWholeTrace;
    if (!args->nvtx.empty()) {
      options.window.kind = WindowSpec::Kind::kNvtxRange;
      options.window.nvtx_name = args->nvtx;
      if (args->nvtx_instance > 0) options.window.nvtx_instance = args->nvtx_instance;
    } else if (from->count() > 0) {
      if (args->to <= args->from) {
        std::cerr << "streamscope: report: --to must be greater than --from\n";
        *exit_code = kExitUsage;
        return;
      }
      options.window.kind = WindowSpec::Kind::kExplicit;
      options.window.start_ns = args->from;
      options.window.end_ns = args->to;
      options.window.relative_to_trace_start = !args->absolute;
    }
    options.format = args->format == "json"  ? ReportOptions::Format::kJson
                     : args->format == "csv" ? ReportOptions::Format::kCsv
                                             : ReportOptions::Format::kText;
    options.save = args->save;
    options.gap_threshold_ns = static_cast<int64_t>(std::llround(args->gap_threshold_us * 1000.0));
    options.top = args->top;
    options.output_path = args->output;
    options.force = args->force;
    *exit_code = ExitWith(RunReport(options, std::cout, std::cerr), std::cerr);
  });
}

}  // namespace streamscope
