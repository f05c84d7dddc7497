// `streamscope convert INPUT -o TRACE.sqlite [--force] [--progress]`:
// writes an Nsight Systems export, a torch.profiler trace (or any trace the loader reads) as
// streamscope traces, one per process; the "wrote" lines go to stderr.
// See analyzer/NSYS.md.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/progress_meter.h"
#include "analyzer/commands/progress.h"
#include "analyzer/convert/converted_trace_writer.h"
#include "analyzer/convert/output_plan.h"
#include "analyzer/importers/nsys/nsys_export_importer.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  bool force = false;
  bool progress = false;
};

int RunConvert(const ConvertArgs& args) {
  ProgressPhase("loading " + args.input);
  auto models = LoadTraceFile(args.input);
  ProgressIdle();
  if (!models.ok()) {
    std::fprintf(stderr, "streamscope: convert: %s\n", std::string(models.status().message()).c_str());
    return ExitCodeFor(models.status());
  }
  // The import leaves kernel launch shapes out (no analysis needs them);
  // a converted trace should have them.
  if (!models->empty() && models->front().format.starts_with("nsys-export")) {
    auto db = SqliteDb::OpenReadOnly(args.input);
    absl::Status status = db.ok() ? absl::OkStatus() : db.status();
    for (TraceModel& m : *models) {
      if (status.ok()) status = AddNsysKernelShapes(**db, &m);
    }
    if (!status.ok()) {
      std::fprintf(stderr, "streamscope: convert: %s\n", std::string(status.message()).c_str());
      return ExitCodeFor(status);
    }
  }
  std::vector<int64_t> pids;
  for (const TraceModel& m : *models) pids.push_back(m.pid);
  // Every output is checked first, so that a refusal writes nothing.
  auto outputs = PlanConvertOutputs(pids, args.output, args.force);
  if (!outputs.ok()) {
    std::fprintf(stderr, "streamscope: convert: %s\n", std::string(outputs.status().message()).c_str());
    return outputs.status().code() == absl::StatusCode::kInvalidArgument ? kExitUsage : ExitCodeFor(outputs.status());
  }
  for (size_t i = 0; i < models->size(); ++i) {
    const TraceModel& m = (*models)[i];
    TraceWriteOptions options;
    options.overwrite = args.force;
    options.source_path = args.input;
    if (m.format == "torch-profiler") options.trace_format = "converted-torch-profiler";
    ProgressPhase("writing " + (*outputs)[i], static_cast<int64_t>(i), static_cast<int64_t>(models->size()));
    absl::Status status = WriteStreamscopeTrace(m, (*outputs)[i], options);
    ProgressIdle();
    if (!status.ok()) {
      std::fprintf(stderr, "streamscope: convert: %s\n", std::string(status.message()).c_str());
      return ExitCodeFor(status);
    }
    std::fprintf(stderr, "wrote %s: pid %lld, %zu GPU ops, %zu API calls, %zu NVTX ranges (from %s)\n",
                 (*outputs)[i].c_str(), static_cast<long long>(m.pid), m.ops.size(), m.api.size(), m.nvtx_ranges.size(),
                 m.format.c_str());
  }
  return kExitOk;
}

}  // namespace

void RegisterConvertCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Write any trace the analyzer reads as streamscope trace(s), one per process: an Nsight Systems SQLite "
      "export, a torch.profiler trace (JSON, plain or .gz) or a streamscope trace");
  cmd->add_option("input", args->input,
                  "The trace: an Nsight Systems SQLite export (nsys export --type sqlite), a torch.profiler "
                  "trace (.json or .json.gz) or a streamscope trace")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "Output trace; '%p' becomes the process id (required when the input holds several processes)")
      ->required()
      ->check(OutputFilePath("'%p' in FILE writes one trace per process"));
  cmd->add_flag("--force", args->force, "Replace existing output files");
  AddProgressFlag(cmd, &args->progress);
  SetExample(cmd, "streamscope convert tests/data/nsys/small-rtx3060-nsys2025.sqlite -o converted.sqlite");
  cmd->callback([args, exit_code] {
    ProgressMeter meter(ProgressModeForStderr(args->progress), std::cerr,
                        std::chrono::milliseconds(args->progress ? 0 : 2000));
    *exit_code = RunConvert(*args);
  });
}

}  // namespace streamscope
