#include "analyzer/cli/window_options.h"

#include "analyzer/cli/cli_setup.h"

namespace streamscope {

void AddWindowOptions(CLI::App* cmd, WindowArgs* args, const std::string& nvtx_help) {
  auto* window = cmd->add_option("--window", args->window,
                                 "Window: 'whole', the whole trace (first to last GPU op or API call). Default: the "
                                 "steady state (a repeated NVTX range or kernel sequence), else the span of GPU "
                                 "activity")
                     ->check(OneOf({"whole"}))
                     ->default_str("");
  auto* nvtx = cmd->add_option("--nvtx", args->nvtx, nvtx_help);
  auto* instance = cmd->add_option("--nvtx-instance", args->nvtx_instance,
                                   "Only the K-th instance (1-based, in start order) of the --nvtx range")
                       ->check(AtLeast(1))
                       ->default_str("all");
  auto* from =
      cmd->add_option("--from", args->from, "Window start, ns from the trace start (see --absolute)")->default_str("");
  auto* to = cmd->add_option("--to", args->to, "Window end, ns from the trace start (see --absolute)")->default_str("");
  auto* absolute = cmd->add_flag("--absolute", args->absolute, "--from/--to are absolute trace-clock times");
  auto* clip = cmd->add_flag("--clip", args->clip,
                             "Cut a --from/--to window that reaches outside the trace to the trace (a note on "
                             "stderr says so) instead of refusing it");
  instance->needs(nvtx);
  nvtx->excludes(from)->excludes(to)->excludes(window);
  from->needs(to);
  to->needs(from);
  from->excludes(window);
  absolute->needs(from);
  clip->needs(from);
  args->window_option = window;
  args->from_option = from;
}

std::optional<WindowSpec> WindowSpecFromArgs(const WindowArgs& args, std::string_view command, std::ostream& err) {
  WindowSpec spec;
  const bool range_given = args.from_option != nullptr && args.from_option->count() > 0;
  const bool whole_given = args.window_option != nullptr && args.window_option->count() > 0;
  if (!args.nvtx.empty()) {
    spec.kind = WindowSpec::Kind::kNvtxRange;
    spec.nvtx_name = args.nvtx;
    if (args.nvtx_instance > 0) spec.nvtx_instance = args.nvtx_instance;
  } else if (range_given) {
    if (!args.absolute && (args.from < 0 || args.to < 0)) {
      err << "streamscope: " << command << ": " << (args.from < 0 ? "--from " : "--to ")
          << (args.from < 0 ? args.from : args.to)
          << " is before the trace start: --from and --to count ns from the trace start (0 or more; "
             "--absolute for trace-clock times)\n";
      return std::nullopt;
    }
    if (args.to <= args.from) {
      err << "streamscope: " << command << ": --to must be greater than --from\n";
      return std::nullopt;
    }
    spec.kind = WindowSpec::Kind::kExplicit;
    spec.start_ns = args.from;
    spec.end_ns = args.to;
    spec.relative_to_trace_start = !args.absolute;
    spec.clip = args.clip;
  } else if (whole_given) {
    spec.kind = WindowSpec::Kind::kWholeTrace;
  }
  return spec;
}

}  // namespace streamscope
