// `streamscope report TRACE... [--window whole | --nvtx NAME [--nvtx-instance K]
//  | --from NS --to NS [--absolute]] [--format text|json|csv] [--save]
//  [--gap-threshold US] [--top N] [-o FILE | --format csv --output-dir DIR]
//  [--force] [--progress] [--jobs N] [--section NAME]... [--summary]`.
// See analyzer/README.md.
#include <cmath>
#include <iostream>

#include "absl/strings/str_join.h"
#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/progress_meter.h"
#include "analyzer/cli/window_options.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/render/report_render.h"

namespace streamscope {

void RegisterReportCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> traces;
    WindowArgs win;
    std::string format = "text";
    bool save = false;
    double gap_threshold_us = 10;
    int top = 10;
    std::string output;
    std::string output_dir;
    bool force = false;
    bool progress = false;
    int jobs = 1;
    std::vector<std::string> sections;
    bool summary = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Overlap, idle gaps, gap causes, hidden syncs and launch statistics of one or more traces");
  cmd->add_option("traces", args->traces, "Trace files (the processes of one run)")->required();
  AddWindowOptions(cmd, &args->win,
                   "Window: every instance of the NVTX range with this name, each analyzed as a window");
  cmd->add_option("--format", args->format, "Output format")->check(OneOf({"text", "json", "csv"}));
  cmd->add_flag("--save", args->save, "Write the analysis_* tables into each trace file");
  cmd->add_option("--gap-threshold", args->gap_threshold_us, "List idle gaps of at least this many microseconds")
      ->check(AtLeast(0));
  cmd->add_option("--top", args->top, "Worst offenders listed per finding")->check(AtLeast(0));
  auto* output = cmd->add_option("-o,--output", args->output,
                                 "Write the report to FILE instead of stdout (with --format csv: every table in "
                                 "one file, as on stdout)")
                     ->check(OutputFilePath("--format csv --output-dir DIR writes one file per table"));
  auto* output_dir = cmd->add_option("--output-dir", args->output_dir,
                                     "With --format csv: write one <table>.csv per analysis table into the "
                                     "folder DIR (created when missing) instead of stdout");
  cmd->add_flag("--force", args->force, "Replace an existing -o FILE, or table files in --output-dir");
  AddProgressFlag(cmd, &args->progress);
  AddMemoryLimitOption(cmd);
  SetExample(cmd, "streamscope report tests/data/overlapped.sqlite --nvtx measured --top 3");
  output->excludes(output_dir);
  cmd->add_option("-j,--jobs", args->jobs, "Analyze this many traces at once (threads); the output is the same")
      ->check(AtLeast(1));
  auto* section =
      cmd->add_option(
             "--section", args->sections,
             "Report only this section (repeatable; text, JSON or CSV), computing only the analyses it needs: " +
                 absl::StrJoin(ReportSectionNames(), ", "))
          ->allow_extra_args(false)
          ->check(OneOf(ReportSectionNames()));
  cmd->add_flag("--summary", args->summary, "Print only the summary (the report's first lines)")->excludes(section);

  cmd->callback([args, exit_code]() {
    ReportOptions options;
    options.traces = args->traces;
    std::optional<WindowSpec> spec = WindowSpecFromArgs(args->win, "report", std::cerr);
    if (!spec) {
      *exit_code = kExitUsage;
      return;
    }
    options.window = *spec;
    options.format = args->format == "json"  ? ReportOptions::Format::kJson
                     : args->format == "csv" ? ReportOptions::Format::kCsv
                                             : ReportOptions::Format::kText;
    options.save = args->save;
    options.gap_threshold_ns = static_cast<int64_t>(std::llround(args->gap_threshold_us * 1000.0));
    options.top = args->top;
    options.output_path = args->output;
    options.force = args->force;
    if (!args->output_dir.empty()) {
      if (options.format != ReportOptions::Format::kCsv) {
        std::cerr << "streamscope: report: --output-dir is for --format csv (one file per table); "
                     "-o FILE writes the report to a file\n";
        *exit_code = kExitUsage;
        return;
      }
      options.output_path = args->output_dir;
      options.output_is_folder = true;
    }
    if (args->force && options.output_path.empty()) {
      std::cerr << "streamscope: report: --force needs -o FILE or --output-dir DIR\n";
      *exit_code = kExitUsage;
      return;
    }
    options.jobs = args->jobs;
    options.sections = args->summary ? std::vector<std::string>{"summary"} : args->sections;
    absl::Status status;
    {
      ProgressMeter meter(ProgressModeForStderr(args->progress), std::cerr,
                          std::chrono::milliseconds(args->progress ? 0 : 2000));
      status = RunReport(options, std::cout, std::cerr);
    }
    *exit_code = ExitWith(status, std::cerr);
  });
}

}  // namespace streamscope
