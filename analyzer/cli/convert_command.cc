// `streamscope convert NSYS.sqlite -o TRACE.sqlite`: writes an Nsight
// Systems export (or any trace the loader reads) as streamscope traces, one
// per process. See analyzer/NSYS.md.
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/convert/trace_writer.h"
#include "analyzer/importers/trace_loader.h"

namespace streamscope {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  bool force = false;
};

int RunConvert(const ConvertArgs& args) {
  auto models = LoadTraceFile(args.input);
  if (!models.ok()) {
    std::fprintf(stderr, "streamscope convert: %s\n", std::string(models.status().message()).c_str());
    return ExitCodeFor(models.status());
  }
  const bool has_pattern = args.output.find("%p") != std::string::npos;
  if (models->size() > 1 && !has_pattern) {
    std::vector<int64_t> pids;
    for (const TraceModel& m : *models) pids.push_back(m.pid);
    std::fprintf(stderr,
                 "streamscope convert: %s holds %zu processes (pids %s); a streamscope trace "
                 "holds one. Give -o a name with %%p, e.g. -o 'out-%%p.sqlite', to write one "
                 "trace per process.\n",
                 args.input.c_str(), models->size(), absl::StrJoin(pids, ", ").c_str());
    return kExitUsage;
  }
  // Check every output first, so that a refusal writes nothing.
  std::vector<std::string> outputs;
  std::set<std::string> distinct;
  for (const TraceModel& m : *models) {
    outputs.push_back(ExpandOutputPattern(args.output, m.pid));
    distinct.insert(outputs.back());
    struct stat st;
    if (!args.force && lstat(outputs.back().c_str(), &st) == 0) {
      std::fprintf(stderr,
                   "streamscope convert: %s already exists; choose another name or pass --force\n",
                   outputs.back().c_str());
      return kExitOutputError;
    }
  }
  if (distinct.size() != outputs.size()) {
    std::fprintf(stderr, "streamscope convert: output names collide; use %%p in -o\n");
    return kExitUsage;
  }
  for (size_t i = 0; i < models->size(); ++i) {
    const TraceModel& m = (*models)[i];
    TraceWriteOptions options;
    options.overwrite = args.force;
    options.source_path = args.input;
    absl::Status status = WriteStreamscopeTrace(m, outputs[i], options);
    if (!status.ok()) {
      std::fprintf(stderr, "streamscope convert: %s\n", std::string(status.message()).c_str());
      return ExitCodeFor(status);
    }
    std::printf("%s: pid %lld, %zu GPU ops, %zu API calls, %zu NVTX ranges (from %s)\n",
                outputs[i].c_str(), static_cast<long long>(m.pid), m.ops.size(), m.api.size(),
                m.nvtx_ranges.size(), m.format.c_str());
  }
  return kExitOk;
}

}  // namespace

void RegisterConvertCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Write an Nsight Systems SQLite export as streamscope trace(s), one per process");
  cmd->add_option("input", args->input, "nsys export (nsys export --type sqlite)")->required();
  cmd->add_option("-o,--output", args->output,
                  "output trace; '%p' becomes the process id (required when the export holds "
                  "several processes)")
      ->required();
  cmd->add_flag("--force", args->force, "replace existing output files");
  cmd->callback([args, exit_code] { *exit_code = RunConvert(*args); });
}

}  // namespace streamscope
